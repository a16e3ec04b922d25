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

// An overflow run of the last txn on reused pages (below the previous meta's
// high-water mark) is checked too; its header is not trusted to tell, since a
// lost write leaves the older run that lay there before.
TEST_P(CommitTest, DamagedReusedRunOfTheLastTxnRollsBackOnlyAOneSyncCommit) {
  constexpr size_t kValueBytes = 100000;
  auto value = [](int t) { return std::string(kValueBytes, static_cast<char>('a' + t)); };
  uint64_t last_txn, previous_high_water;
  {
    auto db = testing::open_db(path(), options());
    for (int t = 0; t < 10; ++t) {
      auto w = db->begin_write();
      ASSERT_TRUE(w->put(w->default_tree(), "key", value(t)).is_ok());
      ASSERT_TRUE(w->commit().is_ok());
    }
    const DatabaseInfo info = db->info();
    last_txn = info.txn_id;
    previous_high_water = info.metas[1 - info.current_meta].page_high_water;
  }
  int64_t size = io::testing::file_size(path());
  uint64_t run = 0;
  for (uint64_t pg = 2; pg * 4096 < static_cast<uint64_t>(size) && run == 0; ++pg) {
    auto b = io::testing::pread_file(path(), pg * 4096, 4096);
    if (static_cast<btree::PageType>(b[btree::kOffType]) == btree::PageType::kOverflow &&
        btree::load_u64(b.data() + btree::kOffTxnId) == last_txn) {
      run = pg;
    }
  }
  ASSERT_NE(run, 0u);
  ASSERT_LT(run, previous_high_water);  // a reused run, the case under test
  // The run's first page as an older run there left it: an older txn id.
  std::byte old_txn[8];
  btree::store_u64(old_txn, last_txn - 2);
  int fd = ::open(path().c_str(), O_WRONLY);
  ASSERT_EQ(::pwrite(fd, old_txn, 8, run * 4096 + btree::kOffTxnId), 8);
  ::close(fd);

  auto db = testing::open_db(path(), options());
  const DatabaseInfo info = db->info();
  auto r = db->begin_read();
  if (GetParam() == CommitProtocol::kTwoSync) {
    EXPECT_EQ(info.txn_id, last_txn);
    EXPECT_TRUE(info.recovery.empty());
    EXPECT_FALSE(r->check()->clean());
    return;
  }
  EXPECT_EQ(info.txn_id, last_txn - 1);
  EXPECT_NE(info.recovery.find(std::to_string(run)), std::string::npos) << info.recovery;
  EXPECT_TRUE(r->get(r->default_tree(), "key")->str() == value(8));
  EXPECT_TRUE(r->check()->clean());
}

INSTANTIATE_TEST_SUITE_P(Protocols, CommitTest,
                         ::testing::Values(CommitProtocol::kTwoSync, CommitProtocol::kOneSync),
                         [](const auto& test_info) {
                           return test_info.param == CommitProtocol::kOneSync ? "OneSync"
                                                                              : "TwoSync";
                         });

}  // namespace
}  // namespace ordo
