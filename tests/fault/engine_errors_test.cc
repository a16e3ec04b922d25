// Disk errors during commit through the fault backend: ENOSPC fails the
// commit with Full and leaves the database usable; the next commit succeeds
// once space is back. EIO on sync poisons the handle; reopen shows the
// previous commit. And scenario 4: a commit that grew the file, then a crash
// that loses the growth or zeroes it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

#include "database_opener.h"
#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/io/testing/fault_backend.h"
#include "ordo/io/testing/fault_log.h"

namespace ordo {
namespace {

using io::testing::FaultLog;

Status fill(Database& db, int txn, int keys, size_t value_bytes) {
  auto w = db.begin_write();
  if (!w.is_ok()) return w.status();
  for (int i = 0; i < keys; ++i) {
    ORDO_RETURN_IF_ERROR(w->put(w->default_tree(),
                                "t" + std::to_string(txn) + "-" + std::to_string(i),
                                std::string(value_bytes, 'v')));
  }
  ORDO_RETURN_IF_ERROR(w->put(w->default_tree(), "txn", std::to_string(txn)));
  return w->commit();
}

std::string txn_of(Database& db) {
  auto r = db.begin_read();
  auto v = r->get(r->default_tree(), "txn");
  return v.is_ok() ? v->str() : "none";
}

TEST(FaultErrorsTest, NoSpaceFailsTheCommitWithFullAndTheNextOneSucceeds) {
  for (CommitProtocol protocol : {CommitProtocol::kOneSync, CommitProtocol::kTwoSync}) {
    io::testing::TempDir dir;
    auto log = std::make_shared<FaultLog>();
    Options o;
    o.commit_protocol = protocol;
    o.verify_checksums = true;
    auto db =
        DatabaseOpener::open(dir.file("full.ordo"), o, io::testing::fault_backend_factory(log));
    ASSERT_TRUE(db.is_ok());
    ASSERT_TRUE(fill(**db, 1, 500, 100).is_ok());
    log->enospc_after_bytes(20000);
    Status s = fill(**db, 2, 500, 100);
    EXPECT_TRUE(s.is_full()) << s.to_string();
    EXPECT_EQ(txn_of(**db), "1");
    // Still usable: reads work, and once space is back the next commit lands.
    log->clear_failures();
    ASSERT_TRUE(fill(**db, 3, 500, 100).is_ok());
    EXPECT_EQ(txn_of(**db), "3");
    auto r = (*db)->begin_read();
    EXPECT_TRUE(r->get(r->default_tree(), "t1-7").is_ok());
    EXPECT_TRUE(r->get(r->default_tree(), "t2-7").status().is_not_found());
    EXPECT_TRUE(r->check()->clean());
    r = Status::invalid_argument("done");
    db = Status::invalid_argument("closed");
    auto reopened = testing::open_db(dir.file("full.ordo"));
    EXPECT_EQ(txn_of(*reopened), "3");
  }
}

TEST(FaultErrorsTest, EioOnSyncPoisonsTheHandleAndReopenShowsTheLastDurableCommit) {
  io::testing::TempDir dir;
  auto log = std::make_shared<FaultLog>();
  auto db = DatabaseOpener::open(dir.file("eio.ordo"), Options{},
                                 io::testing::fault_backend_factory(log));
  ASSERT_TRUE(db.is_ok());
  ASSERT_TRUE(fill(**db, 1, 100, 50).is_ok());
  log->fail_sync_at(0, EIO);
  Status s = fill(**db, 2, 100, 50);
  EXPECT_TRUE(s.is_io_error()) << s.to_string();
  EXPECT_EQ(s.errno_value(), EIO);
  log->clear_failures();
  // Every later write txn fails until reopen, even with the disk healthy again.
  auto w = (*db)->begin_write();
  EXPECT_TRUE(w.status().is_io_error()) << w.status().to_string();
  EXPECT_EQ(txn_of(**db), "1");
  db = Status::invalid_argument("closed");
  auto reopened = testing::open_db(dir.file("eio.ordo"));
  // The failed commit's meta slot was put back before the error returned.
  EXPECT_EQ(txn_of(*reopened), "1");
  auto r = reopened->begin_read();
  EXPECT_TRUE(r->check()->clean());
}

// Scenario 4: a commit grows the file from 1 MiB to 9 MiB or more; a crash loses the
// growth, or keeps the length but zeroes the new region. Reopen gives the
// previous state or a Corruption error, never zero pages served as data.
TEST(FaultErrorsTest, CrashThatLosesOrZeroesTheGrowth) {
  for (CommitProtocol protocol : {CommitProtocol::kOneSync, CommitProtocol::kTwoSync}) {
    for (bool truncate : {true, false}) {
      io::testing::TempDir dir;
      const std::string path = dir.file("grow.ordo");
      Options o;
      o.commit_protocol = protocol;
      o.extent_bytes = 1 << 20;
      o.max_extent_bytes = 8 << 20;
      o.log_bytes = 64 << 10;  // the new file's pages fit the first extent
      uint64_t before = 0, after = 0;
      {
        auto db = testing::open_db(path, o);
        ASSERT_TRUE(fill(*db, 1, 100, 100).is_ok());
        before = db->info().file_bytes;
        ASSERT_EQ(before, 1u << 20);
        ASSERT_TRUE(fill(*db, 2, 60000, 100).is_ok());  // several MiB of pages
        after = db->info().file_bytes;
        ASSERT_GE(after, 9u << 20);
      }
      if (truncate) {
        ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(before)), 0);
      } else {
        int fd = ::open(path.c_str(), O_WRONLY);
        std::string zeros(after - before, '\0');
        ASSERT_EQ(::pwrite(fd, zeros.data(), zeros.size(), before), (ssize_t)zeros.size());
        ::close(fd);
      }
      o.verify_checksums = false;  // even without checksums, zero pages are never data
      auto db = Database::open(path, o);
      SCOPED_TRACE(std::string(protocol == CommitProtocol::kOneSync ? "one-sync" : "two-sync") +
                   (truncate ? ", growth lost" : ", growth zeroed"));
      if (!db.is_ok()) {
        EXPECT_TRUE(db.status().is_corruption()) << db.status().to_string();
        continue;
      }
      auto r = (*db)->begin_read();
      auto txn = r->get(r->default_tree(), "txn");
      if (txn.is_ok() && txn->str() == "1") {
        EXPECT_TRUE(r->check()->clean());  // rolled back to the previous state
        continue;
      }
      // Otherwise every read of the lost pages must be Corruption.
      auto c = r->cursor(r->default_tree());
      Status s = c->first();
      while (s.is_ok() && c->valid()) {
        ASSERT_EQ(c->value().size(), 100u);
        s = c->next();
      }
      EXPECT_TRUE(s.is_corruption()) << s.to_string();
    }
  }
}

}  // namespace
}  // namespace ordo
