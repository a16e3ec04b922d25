// Commit protocols: sync counts, and recovery when the newest one-sync commit
// did not fully reach the disk.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/node.h"

namespace ordo {
namespace {

using testing::be_key;

class CommitTest : public ::testing::TestWithParam<CommitProtocol> {
 protected:
  std::string path() const { return dir_.file("commit.ordo"); }
  Options options() const {
    Options o;
    o.commit_protocol = GetParam();
    o.extent_bytes = 1 << 20;
    return o;
  }
  io::testing::TempDir dir_;
};

TEST_P(CommitTest, SteadyStateCommitSyncsOncePerProtocolStep) {
  auto db = testing::open_db(path(), options());
  for (int warm = 0; warm < 3; ++warm) {
    auto w = db->begin_write();
    ASSERT_TRUE(w->put(w->default_tree(), be_key(warm), "v").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  const Stats before = db->stats();
  for (int i = 0; i < 20; ++i) {
    auto w = db->begin_write();
    ASSERT_TRUE(w->put(w->default_tree(), be_key(100 + i), std::string(100, 'x')).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  const Stats after = db->stats();
  EXPECT_EQ(after.commits - before.commits, 20u);
  EXPECT_EQ(after.file_growths, before.file_growths);
  const uint64_t syncs_per_commit = GetParam() == CommitProtocol::kOneSync ? 1 : 2;
  EXPECT_EQ(after.syncs - before.syncs, 20 * syncs_per_commit);
  // Kernel submissions: io_uring takes a one-sync commit (pages, meta, sync) in one
  // io_uring_enter and a two-sync one in two; POSIX pays a pwritev per run of adjacent
  // pages, one for the meta, and each fdatasync.
  const uint64_t calls = after.write_calls - before.write_calls;
  if (db->info().io_backend == "io_uring") {
    EXPECT_EQ(calls, 20 * syncs_per_commit);
  } else {
    EXPECT_GE(calls, 20 * (2 + syncs_per_commit));
  }
}

TEST_P(CommitTest, DamagedPageOfTheLastTxnRollsBackOnlyAOneSyncCommit) {
  uint64_t last_txn;
  {
    auto db = testing::open_db(path(), options());
    for (int t = 0; t < 5; ++t) {
      auto w = db->begin_write();
      for (uint64_t i = 0; i < 2000; ++i) {
        ASSERT_TRUE(w->put(w->default_tree(), be_key(t * 2000 + i), std::to_string(t)).is_ok());
      }
      ASSERT_TRUE(w->commit().is_ok());
    }
    last_txn = db->info().txn_id;
  }
  // Damage one byte of a leaf the last txn wrote, as a lost or torn write would.
  int64_t size = io::testing::file_size(path());
  uint64_t victim = 0;
  for (uint64_t pg = 2; pg * 4096 < static_cast<uint64_t>(size) && victim == 0; ++pg) {
    auto b = io::testing::pread_file(path(), pg * 4096, 4096);
    btree::NodeView v(b.data(), 4096);
    if (v.is_leaf() && v.txn_id() == last_txn) victim = pg;
  }
  ASSERT_NE(victim, 0u);
  int fd = ::open(path().c_str(), O_WRONLY);
  ASSERT_EQ(::pwrite(fd, "\xff", 1, victim * 4096 + 4095), 1);
  ::close(fd);

  if (GetParam() == CommitProtocol::kTwoSync) {
    // Its pages were durable before its meta: damage is reported, never
    // rolled back (that would lose a durable commit).
    auto db = testing::open_db(path(), options());
    EXPECT_EQ(db->info().txn_id, last_txn);
    EXPECT_TRUE(db->info().recovery.empty());
    auto r = db->begin_read();
    auto report = r->check();
    ASSERT_TRUE(report.is_ok());
    EXPECT_FALSE(report->clean());
    EXPECT_EQ(report->problems[0].page_number, victim);
    return;
  }
  auto db = testing::open_db(path(), options());
  DatabaseInfo info = db->info();
  EXPECT_EQ(info.txn_id, last_txn - 1);
  EXPECT_NE(info.recovery.find(std::to_string(victim)), std::string::npos) << info.recovery;
  auto r = db->begin_read();
  EXPECT_EQ(r->tree_stats(r->default_tree())->entries, 8000u);
  EXPECT_TRUE(r->check()->clean());
  r = Status::invalid_argument("done");
  // The next commit reuses the abandoned txn's slot and goes on normally.
  auto w = db->begin_write();
  ASSERT_TRUE(w->put(w->default_tree(), "after", "recovery").is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  db.reset();
  db = testing::open_db(path(), options());
  EXPECT_TRUE(db->info().recovery.empty());
  EXPECT_EQ(db->info().txn_id, last_txn);
  auto r2 = db->begin_read();
  EXPECT_EQ(r2->get(r2->default_tree(), "after")->str(), "recovery");
  EXPECT_TRUE(r2->check()->clean());
}

INSTANTIATE_TEST_SUITE_P(Protocols, CommitTest,
                         ::testing::Values(CommitProtocol::kTwoSync, CommitProtocol::kOneSync),
                         [](const auto& test_info) {
                           return test_info.param == CommitProtocol::kOneSync ? "OneSync" : "TwoSync";
                         });

}  // namespace
}  // namespace ordo
