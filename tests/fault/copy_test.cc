// Copies under the fault-injecting backend: a crash at any point of
// ReadTxn::copy_to leaves either no file at the target or a complete,
// clean copy; a full disk or a failed sync leaves no target and no
// temporary file.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "copy_internal.h"
#include "io_test_util.h"
#include "ordo/database.h"
#include "ordo/io/testing/fault_backend.h"
#include "ordo/io/testing/fault_log.h"

namespace ordo {
namespace {

using io::testing::CrashPoint;
using io::testing::FaultLog;
using io::testing::FaultOp;
using Contents = std::map<std::string, std::map<std::string, std::string>>;

Contents read_all(Txn& txn) {
  Contents out;
  auto read_tree = [&](const Tree& t, const std::string& name) {
    auto& m = out[name];
    EXPECT_TRUE(txn.scan(t, KeyRange::all(),
                         [&](ByteView k, ByteView v) {
                           m[k.str()] = v.str();
                           return true;
                         })
                    .is_ok());
  };
  read_tree(txn.default_tree(), "");
  auto names = txn.list_trees();
  EXPECT_TRUE(names.is_ok());
  if (!names.is_ok()) return out;
  for (const auto& name : *names) read_tree(*txn.open_tree(name), name);
  return out;
}

void build(Database& db) {
  for (int round = 0; round < 3; ++round) {
    auto w = db.begin_write();
    auto t = w->create_tree("t");
    for (int i = 0; i < 1000; ++i) {
      const std::string value(i % 8 == 0 ? 6000 : 60, static_cast<char>('a' + round));
      ASSERT_TRUE(w->put(*t, "key" + std::to_string(i * 7 % 1000), value).is_ok());
    }
    ASSERT_TRUE(w->put(w->default_tree(), "round", std::to_string(round)).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
}

// Opens the bytes as a database; its contents, or nullopt when it does not
// open or does not check clean.
std::optional<Contents> open_image(const std::vector<std::byte>& image) {
  const int fd = memfd_create("copy-image", MFD_CLOEXEC);
  if (fd < 0) return std::nullopt;
  if (write(fd, image.data(), image.size()) != static_cast<ssize_t>(image.size())) {
    close(fd);
    return std::nullopt;
  }
  std::optional<Contents> out;
  {
    Options ro;
    ro.read_only = true;
    ro.verify_checksums = true;
    ro.map_reserve_bytes = 1ull << 30;
    auto db = Database::open("/proc/self/fd/" + std::to_string(fd), ro);
    if (db.is_ok()) {
      auto r = (*db)->begin_read();
      auto report = r.is_ok() ? r->check() : Result<CheckReport>(r.status());
      if (report.is_ok() && report->clean()) out = read_all(*r);
    }
  }
  close(fd);
  return out;
}

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator(dir); it != decltype(it)(); ++it) n++;
  return n;
}

class CopyCrashTest : public ::testing::TestWithParam<bool> {};

TEST_P(CopyCrashTest, ACrashLeavesNoTargetOrACompleteCopy) {
  io::testing::TempDir dir;
  auto db = Database::open(dir.file("src.ordo"));
  ASSERT_TRUE(db.is_ok());
  build(**db);
  auto r = (*db)->begin_read();
  ASSERT_TRUE(r.is_ok());
  const Contents expected = read_all(*r);

  auto log = std::make_shared<FaultLog>();
  std::vector<std::pair<std::string, size_t>> events;  // event, ops issued before it
  engine::CopyHooks hooks;
  hooks.backend_factory = io::testing::fault_backend_factory(log);
  hooks.on_event = [&](std::string_view e) {
    events.emplace_back(std::string(e), log->op_count());
  };
  const std::string target = dir.file("copy.ordo");
  auto result = engine::copy_to_path(*r, target, CopyOptions{.compact = GetParam()}, hooks);
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  ASSERT_EQ(events.size(), 2u);
  ASSERT_EQ(events[0].first, "renamed");
  ASSERT_EQ(events[1].first, "directory synced");
  const size_t renamed_at = events[0].second;

  // The name appears only with the rename: every op on the file came before
  // it, and the last of them was the sync that made the file durable.
  ASSERT_EQ(renamed_at, log->op_count());
  ASSERT_GT(renamed_at, 0u);
  EXPECT_EQ(log->op(renamed_at - 1).kind, FaultOp::Kind::kSync);
  EXPECT_EQ(log->sync_count(), 1u);

  // Crash before the rename: the target does not exist (the temporary file
  // holds whatever landed). Crash at or after it: the target holds the file
  // as the crash left it, which must be the whole copy.
  size_t before = 0, incomplete = 0, after = 0;
  for (const CrashPoint& point : log->crash_points()) {
    auto image = log->image(point);
    ASSERT_TRUE(image.is_ok()) << point.to_string();
    if (point.after_ops < renamed_at) {
      before++;
      if (!open_image(*image).has_value() || *open_image(*image) != expected) incomplete++;
      continue;
    }
    after++;
    const auto contents = open_image(*image);
    ASSERT_TRUE(contents.has_value()) << point.to_string() << ": the published copy is damaged";
    EXPECT_EQ(*contents, expected) << point.to_string();
  }
  EXPECT_GT(before, 0u);
  EXPECT_GT(incomplete, 0u);  // the states before the sync are indeed not copies yet
  EXPECT_EQ(after, 1u);
  std::printf("copy (%s): %zu crash states before the rename, %zu after, %zu I/O ops\n",
              GetParam() ? "compact" : "plain", before, after, log->op_count());
  // The finished copy as it is on disk, and no temporary file left.
  EXPECT_EQ(files_in(dir.path()), 2u);
}

INSTANTIATE_TEST_SUITE_P(PlainAndCompact, CopyCrashTest, ::testing::Bool(),
                         [](const auto& test_info) {
                           return test_info.param ? "compact" : "plain";
                         });

TEST(CopyFaultTest, NoSpaceOrAFailedSyncLeavesNoTargetAndNoTemporaryFile) {
  io::testing::TempDir dir;
  auto db = Database::open(dir.file("src.ordo"));
  ASSERT_TRUE(db.is_ok());
  build(**db);
  const std::string target = dir.file("copy.ordo");
  for (bool compact : {false, true}) {
    for (uint64_t space : {uint64_t{0}, uint64_t{4096}, uint64_t{100000}}) {
      auto log = std::make_shared<FaultLog>();
      log->enospc_after_bytes(space);
      engine::CopyHooks hooks;
      hooks.backend_factory = io::testing::fault_backend_factory(log);
      auto r = (*db)->begin_read();
      auto result = engine::copy_to_path(*r, target, CopyOptions{.compact = compact}, hooks);
      EXPECT_TRUE(result.status().is_full()) << space << ": " << result.status().to_string();
      EXPECT_FALSE(std::filesystem::exists(target));
      EXPECT_EQ(files_in(dir.path()), 1u);
    }
    auto log = std::make_shared<FaultLog>();
    log->fail_sync_at(0, EIO);
    engine::CopyHooks hooks;
    hooks.backend_factory = io::testing::fault_backend_factory(log);
    auto r = (*db)->begin_read();
    auto result = engine::copy_to_path(*r, target, CopyOptions{.compact = compact}, hooks);
    EXPECT_TRUE(result.status().is_io_error()) << result.status().to_string();
    EXPECT_FALSE(std::filesystem::exists(target));
    EXPECT_EQ(files_in(dir.path()), 1u);
  }
}

// A disk whose write or sync fails, once (the nth op) or from the nth op on,
// with EIO or ENOSPC: for every n up to the ops a copy issues, the copy
// fails with the error (Full for ENOSPC, IOError carrying EIO), names the
// call, and leaves no target and no temporary file; the same copy then
// succeeds once the disk works.
struct DiskFailure {
  FaultOp::Kind op;
  int err;
  bool persistent;  // from the nth op on, else only the nth
  bool compact;
};

std::string failure_name(const DiskFailure& f) {
  return std::string(f.compact ? "compact_" : "plain_") +
         (f.op == FaultOp::Kind::kWrite ? "write_" : "sync_") + (f.err == EIO ? "EIO" : "ENOSPC") +
         (f.persistent ? "_from_nth" : "_at_nth");
}

class CopyDiskFailureTest : public ::testing::TestWithParam<DiskFailure> {};

TEST_P(CopyDiskFailureTest, LeavesNoTargetAndNoTemporaryFile) {
  const DiskFailure f = GetParam();
  io::testing::TempDir dir;
  auto db = Database::open(dir.file("src.ordo"));
  ASSERT_TRUE(db.is_ok());
  build(**db);
  const std::string target = dir.file("copy.ordo");
  auto copy = [&](const std::shared_ptr<FaultLog>& log) {
    engine::CopyHooks hooks;
    hooks.backend_factory = io::testing::fault_backend_factory(log);
    auto r = (*db)->begin_read();
    EXPECT_TRUE(r.is_ok());
    return engine::copy_to_path(*r, target, CopyOptions{.compact = f.compact}, hooks);
  };
  // The ops of a copy that succeeds.
  size_t ops = 0;
  {
    auto log = std::make_shared<FaultLog>();
    ASSERT_TRUE(copy(log).is_ok());
    ops = f.op == FaultOp::Kind::kWrite ? log->write_count() : log->sync_count();
    std::filesystem::remove(target);
  }
  ASSERT_GT(ops, 0u);
  for (size_t n = 0; n < ops; ++n) {
    SCOPED_TRACE("op " + std::to_string(n) + " of " + std::to_string(ops));
    auto log = std::make_shared<FaultLog>();
    if (f.op == FaultOp::Kind::kWrite) {
      f.persistent ? log->fail_writes_from(n, f.err) : log->fail_write_at(n, f.err);
    } else {
      f.persistent ? log->fail_syncs_from(n, f.err) : log->fail_sync_at(n, f.err);
    }
    auto result = copy(log);
    ASSERT_FALSE(result.is_ok());
    if (f.err == ENOSPC) {
      EXPECT_TRUE(result.status().is_full()) << result.status().to_string();
    } else {
      EXPECT_TRUE(result.status().is_io_error()) << result.status().to_string();
      EXPECT_EQ(result.status().errno_value(), EIO);
    }
    const std::string call = f.op == FaultOp::Kind::kWrite ? "pwritev" : "fdatasync";
    EXPECT_NE(result.status().message().find(call), std::string::npos)
        << result.status().to_string();
    EXPECT_EQ(log->failed_count(), 1u);  // the copy stops at the first failure
    EXPECT_FALSE(std::filesystem::exists(target));
    EXPECT_EQ(files_in(dir.path()), 1u);
  }
  // The disk works again: the same copy succeeds and holds the snapshot.
  auto log = std::make_shared<FaultLog>();
  ASSERT_TRUE(copy(log).is_ok());
  auto r = (*db)->begin_read();
  EXPECT_EQ(open_image(io::testing::pread_file(target, 0, std::filesystem::file_size(target))),
            std::optional<Contents>(read_all(*r)));
}

std::vector<DiskFailure> disk_failures() {
  std::vector<DiskFailure> out;
  for (bool compact : {false, true}) {
    for (FaultOp::Kind op : {FaultOp::Kind::kWrite, FaultOp::Kind::kSync}) {
      for (int err : {EIO, ENOSPC}) {
        for (bool persistent : {false, true}) out.push_back({op, err, persistent, compact});
      }
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(WritesAndSyncs, CopyDiskFailureTest, ::testing::ValuesIn(disk_failures()),
                         [](const auto& test_info) { return failure_name(test_info.param); });

}  // namespace
}  // namespace ordo
