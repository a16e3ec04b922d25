// The fault backend under the engine: a Database opened through
// fault_backend_factory() commits as usual, and the crash images the log builds
// reopen to the commits the protocol promises.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "database_opener.h"
#include "io_test_util.h"
#include "ordo/database.h"
#include "ordo/io/testing/fault_backend.h"
#include "ordo/io/testing/fault_log.h"

namespace ordo {
namespace {

using io::testing::CrashPoint;
using io::testing::CrashVariant;
using io::testing::FaultLog;
using io::testing::FaultOp;

constexpr uint32_t kPage = 4096;
constexpr int kKeysPerCommit = 40;

// One-sync commits: the op sequences below are that protocol's (the logged
// commit has a test of its own).
Options small_options(CommitProtocol protocol = CommitProtocol::kOneSync) {
  Options o;
  o.extent_bytes = 64 << 10;  // sync_commits stays true
  o.commit_protocol = protocol;
  o.log_bytes = 64 << 10;
  return o;
}

std::string key_of(int commit, int i) {
  return "key-" + std::to_string(commit) + "-" + std::to_string(1000 + i);
}

// Commit `n` (1-based): kKeysPerCommit keys in tree "t" and "count" = n in the default tree.
Status commit_number(Database& db, int n) {
  auto w = db.begin_write();
  if (!w.is_ok()) return w.status();
  auto t = w->create_tree("t");
  if (!t.is_ok()) return t.status();
  for (int i = 0; i < kKeysPerCommit; ++i) {
    ORDO_RETURN_IF_ERROR(w->put(*t, key_of(n, i), "v" + std::to_string(n * i)));
  }
  ORDO_RETURN_IF_ERROR(w->put(w->default_tree(), "count", std::to_string(n)));
  return w->commit();
}

// Opens the image as a fresh file and returns its "count" (0 when absent), after
// checking that every key of commits 1..count is there. -1 when it does not open.
int recovered_count(const io::testing::TempDir& dir, const std::vector<std::byte>& image,
                    const std::string& label) {
  const std::string path = dir.file("crash-" + label);
  std::remove(path.c_str());
  EXPECT_TRUE(io::testing::write_file(path, image)) << path;
  auto db = Database::open(path);
  EXPECT_TRUE(db.is_ok()) << label << ": " << db.status().to_string();
  if (!db.is_ok()) return -1;
  auto r = (*db)->begin_read();
  EXPECT_TRUE(r.is_ok());
  auto count = r->get(r->default_tree(), "count");
  if (!count.is_ok()) return 0;
  const int n = std::stoi(count->str());
  auto t = r->open_tree("t");
  EXPECT_TRUE(t.is_ok()) << label;
  if (!t.is_ok()) return -1;
  for (int c = 1; c <= n; ++c) {
    for (int i = 0; i < kKeysPerCommit; ++i) {
      auto v = r->get(*t, key_of(c, i));
      EXPECT_TRUE(v.is_ok()) << label << ": commit " << c << " key " << i;
      if (v.is_ok()) {
        EXPECT_EQ(v->str(), "v" + std::to_string(c * i)) << label;
      }
    }
  }
  auto beyond = r->get(*t, key_of(n + 1, 0));
  EXPECT_TRUE(beyond.status().is_not_found()) << label << ": a later commit leaked in";
  std::remove(path.c_str());
  return n;
}

// Every crash point from op `from` (the start of commit `commit`) recovers
// commit `commit` - 1 or `commit`, and `commit` once all of the log's ops
// were done.
void expect_every_crash_recovers(const io::testing::TempDir& dir, const FaultLog& log, size_t from,
                                 int commit) {
  const size_t ops = log.op_count();
  size_t states = 0;
  for (const CrashPoint& p : log.crash_points(from)) {
    auto img = log.image(p);
    ASSERT_TRUE(img.is_ok()) << p.to_string() << ": " << img.status().to_string();
    const int n = recovered_count(dir, *img, std::to_string(states));
    EXPECT_TRUE(n == commit - 1 || n == commit) << p.to_string() << " recovered " << n;
    if (p.after_ops == ops) {
      EXPECT_EQ(n, commit) << p.to_string();
    }
    ++states;
  }
  std::printf("crash states verified: %zu\n", states);
  EXPECT_GT(states, 4u);
}

// A database at dir/db whose every write and sync goes into `log`; nullptr (and a
// test failure) when it does not open.
std::unique_ptr<Database> open_logged(const io::testing::TempDir& dir,
                                      const std::shared_ptr<FaultLog>& log,
                                      CommitProtocol protocol = CommitProtocol::kOneSync) {
  auto opened = DatabaseOpener::open(dir.file("db"), small_options(protocol),
                                     io::testing::fault_backend_factory(log));
  EXPECT_TRUE(opened.is_ok()) << opened.status().to_string();
  return opened.is_ok() ? std::move(opened).value() : nullptr;
}

TEST(FaultEngineSmokeTest, CrashImagesAroundTheLastCommitRecoverIt) {
  io::testing::TempDir dir;
  auto log = std::make_shared<FaultLog>();
  auto opened = DatabaseOpener::open(dir.file("db"), small_options(),
                                     io::testing::fault_backend_factory(log));
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  std::unique_ptr<Database> db = std::move(opened).value();
  EXPECT_EQ(db->info().io_backend, "fault");

  ASSERT_TRUE(commit_number(*db, 1).is_ok());
  ASSERT_TRUE(commit_number(*db, 2).is_ok());
  const size_t before_third = log->op_count();
  ASSERT_TRUE(commit_number(*db, 3).is_ok());
  const size_t ops = log->op_count();
  std::printf("%zu ops: %zu writes, %zu syncs; commit 3 is ops [%zu, %zu)\n", ops,
              log->write_count(), log->sync_count(), before_third, ops);
  EXPECT_EQ(log->failed_count(), 0u);
  EXPECT_EQ(log->sync_count(), db->stats().syncs);

  // Commit 3 ends with its meta (checkpoint 3: slot 3 mod 2 = 1) and a sync.
  ASSERT_GE(ops, 2u);
  const FaultOp& meta = log->op(ops - 2);
  ASSERT_EQ(meta.kind, FaultOp::Kind::kWrite);
  EXPECT_EQ(meta.offset_bytes, kPage);
  EXPECT_EQ(meta.data.size(), kPage);
  ASSERT_EQ(log->op(ops - 1).kind, FaultOp::Kind::kSync);

  // Right after the final sync: commit 3.
  auto after_sync = log->image({ops, CrashVariant::prefix(0)});
  ASSERT_TRUE(after_sync.is_ok()) << after_sync.status().to_string();
  EXPECT_EQ(recovered_count(dir, *after_sync, "after-sync"), 3);

  // The meta written but not synced (the last pending write, whatever the commit
  // protocol put before it): commit 2 when it was lost, 3 when it landed.
  const size_t pending = log->pending_write_count(ops - 1);
  ASSERT_GE(pending, 1u);
  auto lost = log->image({ops - 1, CrashVariant::prefix(pending - 1)});
  auto landed = log->image({ops - 1, CrashVariant::prefix(pending)});
  ASSERT_TRUE(lost.is_ok() && landed.is_ok());
  EXPECT_EQ(recovered_count(dir, *lost, "meta-lost"), 2);
  EXPECT_EQ(recovered_count(dir, *landed, "meta-landed"), 3);
  // The 192-byte meta lies in the page's first sector: a tear at sector boundaries
  // leaves it whole, old or new, and the rest of the page is zeros either way.
  auto torn_old = log->image({ops - 1, CrashVariant::torn(pending - 1, uint64_t{0b11111110})});
  auto torn_new = log->image({ops - 1, CrashVariant::torn(pending - 1, uint64_t{0b00000001})});
  ASSERT_TRUE(torn_old.is_ok() && torn_new.is_ok());
  EXPECT_EQ(recovered_count(dir, *torn_old, "meta-torn-old"), 2);
  EXPECT_EQ(recovered_count(dir, *torn_new, "meta-torn-new"), 3);

  // Every crash point of commit 3 recovers commit 2 or 3, and 3 once its meta synced.
  expect_every_crash_recovers(dir, *log, before_third, 3);
}

TEST(FaultEngineSmokeTest, InjectedSyncEioFailsTheCommitAndKeepsThePreviousOne) {
  io::testing::TempDir dir;
  auto log = std::make_shared<FaultLog>();
  std::unique_ptr<Database> db = open_logged(dir, log);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(commit_number(*db, 1).is_ok());
  const size_t before_second = log->op_count();
  log->fail_sync_at(0, EIO);  // the first sync of commit 2
  Status s = commit_number(*db, 2);
  EXPECT_TRUE(s.is_io_error()) << s.to_string();
  EXPECT_EQ(s.errno_value(), EIO);
  EXPECT_EQ(log->failed_count(), 1u);
  // The failed sync follows the meta write (slot 0, one-sync); then the slot's
  // old bytes go back and are synced, so every crash from then on recovers commit 1.
  size_t failed = before_second;
  while (failed < log->op_count() && !log->op(failed).failed()) ++failed;
  ASSERT_LT(failed, log->op_count());
  EXPECT_EQ(log->op(failed).kind, FaultOp::Kind::kSync);
  EXPECT_EQ(log->op(failed).error, EIO);
  ASSERT_GE(failed, 1u);
  EXPECT_EQ(log->op(failed - 1).offset_bytes, 0u);  // the meta of commit 2
  ASSERT_EQ(log->op_count(), failed + 3);
  EXPECT_EQ(log->op(failed + 1).kind, FaultOp::Kind::kWrite);
  EXPECT_EQ(log->op(failed + 1).offset_bytes, 0u);  // the slot put back
  EXPECT_EQ(log->op(failed + 2).kind, FaultOp::Kind::kSync);
  EXPECT_FALSE(log->op(failed + 2).failed());
  const std::vector<CrashPoint> points = log->crash_points(log->op_count());
  EXPECT_FALSE(points.empty());
  for (const CrashPoint& p : points) {
    auto img = log->image(p);
    ASSERT_TRUE(img.is_ok());
    const int n = recovered_count(dir, *img, "eio");
    EXPECT_EQ(n, 1) << p.to_string();
  }
  // The handle is poisoned: the next commit fails without writing.
  const size_t ops = log->op_count();
  EXPECT_TRUE(commit_number(*db, 2).is_io_error());
  EXPECT_EQ(log->op_count(), ops);
}

// The write-out of a one-sync commit: its pages in ascending page order, then its
// meta, then one sync, and nothing synced in between.
TEST(FaultEngineSmokeTest, OneSyncCommitWritesPagesThenMetaThenOneSync) {
  io::testing::TempDir dir;
  auto log = std::make_shared<FaultLog>();
  std::unique_ptr<Database> db = open_logged(dir, log);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(commit_number(*db, 1).is_ok());
  const size_t before = log->op_count();
  const Stats stats_before = db->stats();
  ASSERT_TRUE(commit_number(*db, 2).is_ok());
  const size_t ops = log->op_count();
  ASSERT_GE(ops - before, 3u);
  uint64_t previous_offset = 0;
  const uint64_t first_data_page = 2 + db->info().log.area_bytes / kPage;
  for (size_t i = before; i + 2 < ops; ++i) {
    const FaultOp& op = log->op(i);
    ASSERT_EQ(op.kind, FaultOp::Kind::kWrite) << "op " << i;
    EXPECT_GE(op.offset_bytes, first_data_page * kPage) << "op " << i << " is not a data page";
    EXPECT_GT(op.offset_bytes, previous_offset) << "op " << i << " out of page order";
    previous_offset = op.offset_bytes;
  }
  EXPECT_EQ(log->op(ops - 2).kind, FaultOp::Kind::kWrite);
  EXPECT_EQ(log->op(ops - 2).offset_bytes, 0u);  // txn 2: meta slot 0
  EXPECT_EQ(log->op(ops - 1).kind, FaultOp::Kind::kSync);
  const Stats stats_after = db->stats();
  EXPECT_EQ(stats_after.syncs - stats_before.syncs, 1u);
  EXPECT_EQ(stats_after.pages_written - stats_before.pages_written, ops - before - 1);
  EXPECT_EQ(stats_after.bytes_written - stats_before.bytes_written, (ops - before - 1) * kPage);
}

// The write-out of a logged commit: its pages in ascending page order, into the
// page cache; then its record in the log area, made durable by a range sync of
// its own; no fdatasync and no meta page. A crash at any point of it recovers
// commit 1 or 2, and 2 once the record's sync completed, whichever pages landed
// (open replays the record when they did not).
TEST(FaultEngineSmokeTest, LoggedCommitWritesPagesThenOneDurableRecord) {
  io::testing::TempDir dir;
  auto log = std::make_shared<FaultLog>();
  std::unique_ptr<Database> db = open_logged(dir, log, CommitProtocol::kLog);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(commit_number(*db, 1).is_ok());
  const size_t before = log->op_count();
  const Stats stats_before = db->stats();
  ASSERT_TRUE(commit_number(*db, 2).is_ok());
  const size_t ops = log->op_count();
  const DatabaseInfo info = db->info();
  const uint64_t log_start = info.log.first_page * kPage;
  const uint64_t log_end = log_start + info.log.area_bytes;
  ASSERT_GE(ops - before, 3u);
  uint64_t previous_offset = 0;
  for (size_t i = before; i + 2 < ops; ++i) {
    const FaultOp& op = log->op(i);
    ASSERT_EQ(op.kind, FaultOp::Kind::kWrite) << "op " << i;
    EXPECT_GE(op.offset_bytes, log_end) << "op " << i << " is not a data page";
    EXPECT_GT(op.offset_bytes, previous_offset) << "op " << i << " out of page order";
    previous_offset = op.offset_bytes;
  }
  const FaultOp& record = log->op(ops - 2);
  EXPECT_EQ(record.kind, FaultOp::Kind::kWrite);
  EXPECT_EQ(record.offset_bytes, log_start + 4096);  // after commit 1's one-block record
  EXPECT_EQ(record.data.size(), 4096u);
  EXPECT_EQ(log->op(ops - 1).kind, FaultOp::Kind::kSyncRange);
  EXPECT_EQ(log->op(ops - 1).synced_op, ops - 2);
  EXPECT_EQ(info.log.records, 2u);
  EXPECT_EQ(info.log.last_txn, 2u);
  const Stats stats_after = db->stats();
  EXPECT_EQ(stats_after.syncs - stats_before.syncs, 1u);

  expect_every_crash_recovers(dir, *log, before, 2);
}

// A page write that fails ends the commit before its meta is written.
TEST(FaultEngineSmokeTest, FailedPageWriteLeavesTheMetaUnwritten) {
  io::testing::TempDir dir;
  auto log = std::make_shared<FaultLog>();
  std::unique_ptr<Database> db = open_logged(dir, log);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(commit_number(*db, 1).is_ok());
  const size_t before = log->op_count();
  log->fail_write_at(1, EIO);  // the second page write of commit 2
  EXPECT_TRUE(commit_number(*db, 2).is_io_error());
  for (size_t i = before; i < log->op_count(); ++i) {
    const FaultOp& op = log->op(i);
    EXPECT_FALSE(op.kind == FaultOp::Kind::kWrite && op.offset_bytes < 2u * kPage)
        << "op " << i << " wrote a meta page";
    EXPECT_NE(op.kind, FaultOp::Kind::kSync) << "op " << i;
  }
}

}  // namespace
}  // namespace ordo
