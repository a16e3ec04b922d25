// `ordo load` and `ordo copy` over a disk that fails: the tool runs with an
// LD_PRELOAD library (tests/util/fail_sync_preload.cc) that makes its
// fsync/fdatasync or pwritev on the files of one path fail with EIO or
// ENOSPC, at the nth call only or from the nth call on, for every n a
// successful run reaches. A failed copy exits 1 naming the call and leaves
// no copy and no temporary file; a failed load exits 1, says what it
// committed (nothing, or with --batch exactly the first records it names)
// and leaves the database holding exactly that; the source is unchanged and
// checks clean.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ordo/base/errno_status.h"
#include "ordo/database.h"
#include "ordo_util.h"

namespace ordo {
namespace {

using testing::ordo_tool;
using testing::ProcessResult;
using testing::read_file;
using testing::TempDir;
using testing::without_mapsize;

// The calls the preload library counts: FAULT_PRELOAD_SYNC_* or _WRITE_*.
enum class Call { kSync, kWrite };

struct Fault {
  Call call = Call::kSync;
  int err = EIO;
  size_t nth = 0;
  bool from = false;  // the nth call and every later one, else only the nth
};

std::string errno_name(int err) { return err == EIO ? "EIO" : "ENOSPC"; }

std::string fault_name(const Fault& f) {
  return std::string(f.call == Call::kSync ? "sync " : "write ") + std::to_string(f.nth) +
         (f.from ? " and after" : " only") + ": " + errno_name(f.err);
}

// One counted call of a run: "sync 0 /path ok".
struct LoggedCall {
  std::string kind, path, result;
};

class FailingDisk {
 public:
  // Calls on descriptors whose path contains `path` are counted, logged to
  // `log` and failed as `fault` says (none: only counted).
  FailingDisk(std::string path, std::string log) : path_(std::move(path)), log_(std::move(log)) {}

  ProcessResult run(const std::vector<std::string>& args, const std::optional<Fault>& fault) const {
    std::filesystem::remove(log_);
    const char* asan = std::getenv("ASAN_OPTIONS");
    // ASan wants its runtime first in the library list; the preloaded
    // library comes before it in an ASan build.
    std::vector<std::string> argv = {
        "/usr/bin/env", std::string("LD_PRELOAD=") + FAIL_SYNC_PRELOAD_PATH,
        "ASAN_OPTIONS=" + (asan != nullptr ? std::string(asan) + ":" : "") +
            "verify_asan_link_order=0",
        "FAULT_PRELOAD_PATH=" + path_, "FAULT_PRELOAD_LOG=" + log_};
    if (fault) {
      const std::string var =
          fault->call == Call::kSync ? "FAULT_PRELOAD_SYNC_" : "FAULT_PRELOAD_WRITE_";
      argv.push_back(var + "ERRNO=" + errno_name(fault->err));
      argv.push_back(var + (fault->from ? "FROM=" : "AT=") + std::to_string(fault->nth));
    }
    argv.push_back(ORDO_TOOL_PATH);
    argv.insert(argv.end(), args.begin(), args.end());
    return testing::run_process(argv);
  }

  // The calls of the last run, in order, of one kind ("sync" or "write").
  std::vector<LoggedCall> calls(const std::string& kind) const {
    std::vector<LoggedCall> out;
    std::ifstream in(log_);
    LoggedCall c;
    size_t n;
    while (in >> c.kind >> n >> c.path >> c.result) {
      if (c.kind == kind) out.push_back(c);
    }
    return out;
  }

 private:
  std::string path_, log_;
};

std::string dump_all(const std::string& path) {
  ProcessResult r = ordo_tool({"dump", "--all", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return without_mapsize(r.out);
}

uint64_t txn_id(const std::string& path) {
  ProcessResult r = ordo_tool({"info", "--json", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return testing::parse_json(r)["txn_id"].get<uint64_t>();
}

void expect_clean(const std::string& path) {
  ProcessResult r = ordo_tool({"check", path});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

size_t entries_in(const std::string& dir) {
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator(dir); it != decltype(it)(); ++it) n++;
  return n;
}

// A database of a few commits: two named trees, overflow values, free pages.
void build_source(const std::string& path) {
  auto db = Database::open(path);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  for (int round = 0; round < 4; ++round) {
    auto w = (*db)->begin_write();
    auto t = w->create_tree("t");
    auto u = w->create_tree("u");
    for (int i = 0; i < 400; ++i) {
      const std::string value(i % 9 == 0 ? 5000 : 40, static_cast<char>('a' + round));
      ASSERT_TRUE(w->put(*t, "key" + std::to_string(i * 13 % 400), value).is_ok());
      if (round % 2 == 0) {
        ASSERT_TRUE(w->put(*u, std::to_string(i), "u").is_ok());
      }
    }
    ASSERT_TRUE(w->put(w->default_tree(), "round", std::to_string(round)).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
}

class ToolDiskFailureTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    src_ = dir_.file("src.ordo");
    log_ = logs_.file("calls.log");
    build_source(src_);
    src_dump_ = dump_all(src_);
    ASSERT_FALSE(src_dump_.empty());
  }
  int err() const { return GetParam(); }
  std::string err_text() const { return base::errno_text(GetParam()); }

  TempDir dir_, logs_;  // the preload library's log apart, not among the files a test counts
  std::string src_, src_dump_, log_;
};

std::string param_name(const ::testing::TestParamInfo<int>& info) { return errno_name(info.param); }

// --- copy ---------------------------------------------------------------

class ToolCopyDiskFailureTest : public ToolDiskFailureTest {
 protected:
  // Every sync and write of a copy into out/, failing once or from then on:
  // exit 1, the failed call and error named, out/ empty, the source as it was.
  void copy_fails_cleanly(bool compact) {
    const std::string out_dir = dir_.file("out");
    std::filesystem::create_directory(out_dir);
    const std::string dst = out_dir + "/c.ordo";
    std::vector<std::string> args = {"copy", src_, dst};
    if (compact) args.push_back("--compact");
    const FailingDisk disk(std::filesystem::canonical(out_dir).string(), log_);

    // A copy that succeeds: its file's writes and sync, then the directory's
    // fsync (which proves the preload library sees the tool's calls).
    ProcessResult r = disk.run(args, std::nullopt);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<LoggedCall> syncs = disk.calls("sync"), writes = disk.calls("write");
    ASSERT_EQ(syncs.size(), 2u);
    EXPECT_NE(syncs[0].path.find(".c.ordo.ordo-copy-"), std::string::npos) << syncs[0].path;
    EXPECT_EQ(syncs[1].path, std::filesystem::canonical(out_dir).string());
    ASSERT_GT(writes.size(), 0u);
    std::filesystem::remove(dst);

    std::vector<std::pair<Fault, std::string>> faults;  // and the call the error names
    for (size_t n = 0; n < syncs.size(); ++n) {
      const std::string call = n + 1 == syncs.size() ? "fsync directory" : "fdatasync";
      for (bool from : {false, true}) faults.push_back({{Call::kSync, err(), n, from}, call});
    }
    for (size_t n : {size_t{0}, writes.size() - 1}) {
      for (bool from : {false, true}) faults.push_back({{Call::kWrite, err(), n, from}, "pwritev"});
    }
    for (const auto& [fault, call] : faults) {
      SCOPED_TRACE(fault_name(fault));
      r = disk.run(args, fault);
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_NE(r.err.find(call), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(err_text()), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(err() == ENOSPC ? "Full" : "IOError"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(dst + ": nothing was copied"), std::string::npos) << r.err;
      EXPECT_TRUE(std::filesystem::is_empty(out_dir)) << "a copy or temporary file was left";
      EXPECT_TRUE(dump_all(src_) == src_dump_) << "the source changed";
    }
    expect_clean(src_);
    // The disk works again: the copy goes through.
    r = disk.run(args, std::nullopt);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(dump_all(dst) == src_dump_) << "the copy differs from the source";
  }
};

TEST_P(ToolCopyDiskFailureTest, AFailedCopyLeavesNothing) { copy_fails_cleanly(false); }

TEST_P(ToolCopyDiskFailureTest, AFailedCompactCopyLeavesNothing) { copy_fails_cleanly(true); }

// --force: a failure before the rename leaves the old file as it was; one
// after it (the directory's fsync) leaves no file, and says so.
TEST_P(ToolCopyDiskFailureTest, WithForceTheOldFileStaysUntilTheRename) {
  const std::string out_dir = dir_.file("out");
  std::filesystem::create_directory(out_dir);
  const std::string dst = out_dir + "/old.ordo";
  testing::write_file(dst, "keep me");
  const FailingDisk disk(std::filesystem::canonical(out_dir).string(), log_);
  ProcessResult r = disk.run({"copy", "--force", src_, dst}, Fault{Call::kSync, err(), 0, false});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("fdatasync"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the file is as it was"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dst), "keep me");
  EXPECT_EQ(entries_in(out_dir), 1u);

  r = disk.run({"copy", "--force", src_, dst}, Fault{Call::kSync, err(), 1, false});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("fsync directory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("removed again"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the file that was there is gone"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(out_dir));
  EXPECT_TRUE(dump_all(src_) == src_dump_) << "the source changed";
}

INSTANTIATE_TEST_SUITE_P(EioAndEnospc, ToolCopyDiskFailureTest, ::testing::Values(EIO, ENOSPC),
                         param_name);

// --- load ---------------------------------------------------------------

// `records` records "load00000"... in mdb_dump format for tree "loaded".
std::string load_input(size_t records) {
  std::string text = "VERSION=3\nformat=print\ndatabase=loaded\ntype=btree\nHEADER=END\n";
  for (size_t i = 0; i < records; ++i) {
    char key[32];
    std::snprintf(key, sizeof key, "load%05zu", i);
    text += std::string(" ") + key + "\n " + std::string(i % 50 == 0 ? 3000 : 30, 'x') + "\n";
  }
  return text + "DATA=END\n";
}

constexpr size_t kLoadRecords = 300;

class ToolLoadDiskFailureTest : public ToolDiskFailureTest {
 protected:
  void SetUp() override {
    ToolDiskFailureTest::SetUp();
    input_ = dir_.file("input");
    testing::write_file(input_, load_input(kLoadRecords));
  }

  // A fresh copy of the source to load into.
  std::string fresh_target(const std::string& name) {
    const std::string path = dir_.file(name);
    std::filesystem::remove(path);
    std::filesystem::copy_file(src_, path);
    return path;
  }

  // The syncs of a load that succeeds into a copy of the source.
  size_t syncs_of(const std::vector<std::string>& extra) {
    const std::string target = fresh_target("probe.ordo");
    const FailingDisk disk(target, log_);
    std::vector<std::string> args = {"load", target, "-i", input_};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = disk.run(args, std::nullopt);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return disk.calls("sync").size();
  }

  std::string input_;
};

// One txn: whichever sync of its commit fails, nothing of the load is
// committed (the database holds what it held, for a reader that opens it
// afterwards) and the tool says so. A failed sync of the checkpoint after
// the commit leaves the load committed (durable in the log): the tool exits
// 3 (done, with a warning), says so, and --json still prints the result.
TEST_P(ToolLoadDiskFailureTest, AFailedCommitCommitsNothing) {
  const size_t syncs = syncs_of({});
  ASSERT_GT(syncs, 0u);
  const uint64_t txn_before = txn_id(src_);
  const std::string loaded = fresh_target("loaded.ordo");
  ASSERT_EQ(ordo_tool({"load", loaded, "-i", input_}).exit_code, 0);
  const std::string loaded_dump = dump_all(loaded);
  size_t checkpoint_failures = 0;
  for (size_t n = 0; n < syncs; ++n) {
    for (bool from : {false, true}) {
      const Fault fault{Call::kSync, err(), n, from};
      SCOPED_TRACE(fault_name(fault));
      const std::string target = fresh_target("target.ordo");
      const FailingDisk disk(target, log_);
      ProcessResult r = disk.run({"load", target, "-i", input_, "--json"}, fault);
      EXPECT_NE(r.err.find("ordo: " + target + ": "), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(err_text()), std::string::npos) << r.err;
      if (r.err.find("checkpoint (warning): ") != std::string::npos) {
        ++checkpoint_failures;
        EXPECT_EQ(r.exit_code, 3) << r.err;
        EXPECT_NE(r.err.find("were committed (txn " + std::to_string(txn_before + 1) +
                             ") and are durable in its log"),
                  std::string::npos)
            << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["txn_id"], txn_before + 1) << r.out;
        EXPECT_NE(j["checkpoint_error"].get<std::string>().find(err_text()), std::string::npos)
            << r.out;
        EXPECT_TRUE(dump_all(target) == loaded_dump) << "the committed load is not there";
        expect_clean(target);
        continue;
      }
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
      EXPECT_NE(r.err.find("commit: "), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(err_text()), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("nothing was loaded: the commit did not take effect"), std::string::npos)
          << r.err;
      EXPECT_TRUE(dump_all(target) == src_dump_) << "the failed load changed the database";
      EXPECT_EQ(txn_id(target), txn_before);
      expect_clean(target);
    }
  }
  EXPECT_GT(checkpoint_failures, 0u);
  EXPECT_LT(checkpoint_failures, 2 * syncs) << "no sync of the commit itself failed";
  // Writes failing (the disk full from the first page on) commit nothing either.
  const std::string target = fresh_target("target.ordo");
  ProcessResult r = FailingDisk(target, log_)
                        .run({"load", target, "-i", input_}, Fault{Call::kWrite, err(), 0, true});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(err_text()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was loaded"), std::string::npos) << r.err;
  EXPECT_TRUE(dump_all(target) == src_dump_) << "the failed load changed the database";
  expect_clean(target);
}

// --batch: a failed commit keeps the batches before it, the tool names them
// (the first N records), and the database holds exactly the source plus
// those N records.
TEST_P(ToolLoadDiskFailureTest, WithBatchTheCommittedRecordsAreTheOnesNamed) {
  const std::vector<std::string> batch = {"--batch", "100"};
  const size_t syncs = syncs_of(batch);
  ASSERT_GT(syncs, 2u);
  std::set<size_t> seen;
  for (size_t n = 0; n < syncs; ++n) {
    const Fault fault{Call::kSync, err(), n, false};
    SCOPED_TRACE(fault_name(fault));
    const std::string target = fresh_target("target.ordo");
    ProcessResult r =
        FailingDisk(target, log_).run({"load", target, "-i", input_, "--batch", "100"}, fault);
    EXPECT_NE(r.err.find(err_text()), std::string::npos) << r.err;
    if (r.err.find("checkpoint (warning): ") != std::string::npos) {
      // Every batch was committed; the checkpoint after them failed.
      EXPECT_EQ(r.exit_code, 3) << r.err;
      EXPECT_NE(r.err.find("all " + std::to_string(kLoadRecords) + " records were committed"),
                std::string::npos)
          << r.err;
      seen.insert(kLoadRecords);
      expect_clean(target);
      continue;
    }
    EXPECT_EQ(r.exit_code, 1) << r.err;
    size_t committed = 0;
    const size_t at = r.err.find("the first ");
    if (at != std::string::npos) {
      committed = std::stoul(r.err.substr(at + 10));
      EXPECT_NE(r.err.find("records were committed (--batch: through line"), std::string::npos)
          << r.err;
    } else {
      EXPECT_NE(r.err.find("nothing was loaded"), std::string::npos) << r.err;
    }
    EXPECT_EQ(committed % 100, 0u);
    EXPECT_LT(committed, kLoadRecords);
    seen.insert(committed);
    // What the database must hold: the source and the first `committed`
    // records (the source alone when none was: not even an empty tree).
    std::string expected_dump = src_dump_;
    if (committed > 0) {
      const std::string expected = fresh_target("expected.ordo");
      testing::write_file(dir_.file("part"), load_input(committed));
      ASSERT_EQ(ordo_tool({"load", expected, "-i", dir_.file("part")}).exit_code, 0);
      expected_dump = dump_all(expected);
    }
    EXPECT_TRUE(dump_all(target) == expected_dump)
        << "the database does not hold the source and the first " << committed << " records";
    expect_clean(target);
  }
  EXPECT_EQ(seen, (std::set<size_t>{0, 100, 200, kLoadRecords}))
      << "a failure in each of the three commits and in the checkpoint";
}

// Into a new file: a failed load leaves no file.
TEST_P(ToolLoadDiskFailureTest, AFailedLoadIntoANewFileLeavesNoFile) {
  const std::string target = dir_.file("new.ordo");
  const FailingDisk disk(target, log_);
  ProcessResult r = disk.run({"load", target, "-i", input_}, std::nullopt);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t syncs = disk.calls("sync").size();
  ASSERT_GT(syncs, 0u);
  std::filesystem::remove(target);
  const size_t files = entries_in(dir_.path());
  for (size_t n = 0; n < syncs; ++n) {
    for (bool from : {false, true}) {
      const Fault fault{Call::kSync, err(), n, from};
      SCOPED_TRACE(fault_name(fault));
      r = disk.run({"load", target, "-i", input_}, fault);
      EXPECT_NE(r.err.find(err_text()), std::string::npos) << r.err;
      if (r.err.find("checkpoint (warning): ") != std::string::npos) {
        // Committed before the checkpoint failed: the file holds the load.
        EXPECT_EQ(r.exit_code, 3) << r.err;
        EXPECT_TRUE(std::filesystem::exists(target)) << r.err;
        std::filesystem::remove(target);
        continue;
      }
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_FALSE(std::filesystem::exists(target)) << r.err;
      EXPECT_EQ(entries_in(dir_.path()), files) << "a file was left";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EioAndEnospc, ToolLoadDiskFailureTest, ::testing::Values(EIO, ENOSPC),
                         param_name);

}  // namespace
}  // namespace ordo
