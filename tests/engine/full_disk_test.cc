// A filesystem with less free space than one extent: the file grows by what
// fits, a commit that finds no room at all fails with Full and changes
// nothing, and commits succeed again once space is freed. Runs on a 16 MiB
// tmpfs the test mounts (as root; skipped where mount(2) is not permitted).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/base/errno_status.h"
#include "tmpfs_mount.h"

namespace ordo {
namespace {

// Writes `bytes` of data (not a hole) to a new file at `path`.
bool write_ballast(const std::string& path, size_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const std::string chunk(1 << 16, 'b');
  bool ok = true;
  for (size_t done = 0; ok && done < bytes; done += chunk.size()) {
    ok = ::write(fd, chunk.data(), chunk.size()) == static_cast<ssize_t>(chunk.size());
  }
  return ::close(fd) == 0 && ok;
}

// One txn of `count` keys from `first`, 400-byte values (inline, no overflow run).
Status commit_batch(Database& db, uint64_t first, int count, testing::Model* model) {
  ORDO_ASSIGN_OR_RETURN(WriteTxn w, db.begin_write());
  testing::Model added;
  for (int i = 0; i < count; ++i) {
    const std::string key = testing::be_key(first + i);
    const std::string value(400, static_cast<char>('a' + (first + i) % 26));
    ORDO_RETURN_IF_ERROR(w.put(w.default_tree(), key, value));
    added[key] = value;
  }
  ORDO_RETURN_IF_ERROR(w.commit());
  model->insert(added.begin(), added.end());
  return Status::ok();
}

void expect_data(Database& db, const testing::Model& model) {
  auto r = db.begin_read();
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  testing::expect_tree_equals(*r, r->default_tree(), model);
}

void expect_check_clean(Database& db) {
  auto r = db.begin_read();
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  auto report = r->check();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  for (const CheckProblem& p : report->problems) ADD_FAILURE() << p.page_number << ": " << p.what;
  EXPECT_TRUE(report->clean());
}

TEST(FullDiskTest, GrowsByWhatFitsFailsWithFullAndRecoversWhenSpaceReturns) {
  io::testing::TempDir dir;
  testing::TmpfsMount fs(dir.path(), "16m");
  if (!fs.mounted() && fs.error() == EPERM) {
    GTEST_SKIP() << "mount(2) of a tmpfs is not permitted here (EPERM: needs root or "
                    "CAP_SYS_ADMIN)";
  }
  ASSERT_TRUE(fs.mounted()) << "mount tmpfs on " << dir.path() << ": "
                            << base::errno_text(fs.error());
  const std::string ballast = dir.file("ballast");
  const std::string path = dir.file("db.ordo");
  ASSERT_TRUE(write_ballast(ballast, 3 << 20));

  testing::Model model;
  uint64_t next_key = 0;
  constexpr int kPerTxn = 100;
  {
    // Default Options: a 64 MiB extent, four times the whole filesystem.
    auto db = testing::open_db(path);
    ASSERT_NE(db, nullptr);
    EXPECT_LT(db->info().file_bytes, uint64_t{16} << 20);
    ASSERT_TRUE(commit_batch(*db, next_key, kPerTxn, &model).is_ok());
    next_key += kPerTxn;

    Status full;
    for (int t = 0; t < 2000 && full.is_ok(); ++t) {
      full = commit_batch(*db, next_key, kPerTxn, &model);
      next_key += kPerTxn;
    }
    ASSERT_TRUE(full.is_full()) << full.to_string();
    std::printf("%zu entries committed, then: %s\n", model.size(), full.to_string().c_str());
    EXPECT_NE(full.message().find(path), std::string::npos) << full.to_string();
    EXPECT_NE(full.message().find("No space left"), std::string::npos) << full.to_string();
    EXPECT_GT(model.size(), 1000u);  // most of the filesystem was used first
    expect_data(*db, model);
    // The handle stays usable: the next commit fits in pages freed meanwhile
    // or fails the same way, changing nothing.
    const Status again = commit_batch(*db, next_key, kPerTxn, &model);
    next_key += kPerTxn;
    EXPECT_TRUE(again.is_ok() || again.is_full()) << again.to_string();
    expect_data(*db, model);
  }
  {
    auto db = testing::open_db(path);
    ASSERT_NE(db, nullptr);
    expect_data(*db, model);
  }

  ASSERT_EQ(::unlink(ballast.c_str()), 0);
  {
    auto db = testing::open_db(path);
    ASSERT_NE(db, nullptr);
    for (int t = 0; t < 5; ++t) {
      const Status s = commit_batch(*db, next_key, kPerTxn, &model);
      ASSERT_TRUE(s.is_ok()) << s.to_string();
      next_key += kPerTxn;
    }
    expect_data(*db, model);
  }
  auto db = testing::open_db(path);
  ASSERT_NE(db, nullptr);
  expect_data(*db, model);
  expect_check_clean(*db);
}

}  // namespace
}  // namespace ordo
