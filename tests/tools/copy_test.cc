// `ordo copy`: copies of a database under a live writer (in this process,
// committing all the time) each check clean and hold exactly the snapshot
// they name; --compact leaves no free pages; the target rules; a full disk
// leaves nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "ordo/database.h"
#include "ordo_util.h"

namespace ordo {
namespace {

using testing::ordo_tool;
using testing::ProcessResult;
using testing::read_file;
using testing::sh_quote;
using testing::TempDir;
using testing::without_mapsize;

constexpr uint64_t kLiveKeys = 40;

std::string live_key(uint64_t i) { return "key-" + std::to_string(1'000'000 + i); }
std::string live_value(uint64_t i) {
  return std::string(i % 10 == 0 ? 5000 + i % 3000 : 20 + i % 50, static_cast<char>('a' + i % 26));
}

// Commit n (its txn id is n in a fresh file): "counter" = n, key n added,
// key n - kLiveKeys removed, and tree "side" rewritten in part.
Status live_commit(Database& db, uint64_t n) {
  auto w = db.begin_write();
  if (!w.is_ok()) return w.status();
  ORDO_RETURN_IF_ERROR(w->put(w->default_tree(), "counter", std::to_string(n)));
  auto t = w->create_tree("live");
  if (!t.is_ok()) return t.status();
  ORDO_RETURN_IF_ERROR(w->put(*t, live_key(n), live_value(n)));
  if (n > kLiveKeys) ORDO_RETURN_IF_ERROR(w->del(*t, live_key(n - kLiveKeys)));
  auto side = w->create_tree("side");
  for (uint64_t k = 0; k < 20; ++k) {
    ORDO_RETURN_IF_ERROR(w->put(*side, std::to_string((n * 20 + k) % 500), std::to_string(n)));
  }
  return w->commit();
}

// What txn `n` holds in "live" and the default tree.
std::map<std::string, std::string> live_expected(uint64_t n) {
  std::map<std::string, std::string> m;
  for (uint64_t i = n > kLiveKeys ? n - kLiveKeys + 1 : 1; i <= n; ++i)
    m[live_key(i)] = live_value(i);
  return m;
}

// The side tree after txn n: key j holds the last n' <= n with (n' * 20 + k) % 500 == j.
std::map<std::string, std::string> side_expected(uint64_t n) {
  std::map<std::string, std::string> m;
  for (uint64_t i = 1; i <= n; ++i) {
    for (uint64_t k = 0; k < 20; ++k) m[std::to_string((i * 20 + k) % 500)] = std::to_string(i);
  }
  return m;
}

std::map<std::string, std::string> read_tree(Txn& txn, const Tree& tree) {
  std::map<std::string, std::string> m;
  EXPECT_TRUE(txn.scan(tree, KeyRange::all(),
                       [&](ByteView k, ByteView v) {
                         m[k.str()] = v.str();
                         return true;
                       })
                  .is_ok());
  return m;
}

TEST(ToolCopyLiveTest, HundredCopiesUnderALiveWriterEachCheckCleanAndHoldTheirSnapshot) {
  TempDir dir;
  const std::string src = dir.file("live.ordo");
  Options options;
  options.sync_commits = false;  // a fast writer; durability is not what is tested
  auto db = Database::open(src, options);
  ASSERT_TRUE(db.is_ok());
  ASSERT_TRUE(live_commit(**db, 1).is_ok());
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> committed{1};
  Status writer_status;
  std::thread writer([&] {
    for (uint64_t n = 2; !stop.load(); ++n) {
      writer_status = live_commit(**db, n);
      if (!writer_status.is_ok()) return;
      committed.store(n);
      // Some hundred commits a second: a copy spans several of them.
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  std::map<uint64_t, int> snapshots;
  for (int i = 0; i < 100; ++i) {
    const bool compact = i % 2 == 1;
    const std::string dst = dir.file("copy-" + std::to_string(i) + ".ordo");
    std::vector<std::string> args = {"copy", "--json", src, dst};
    if (compact) args.push_back("--compact");
    ProcessResult r = ordo_tool(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const uint64_t txn = testing::parse_json(r)["txn_id"].get<uint64_t>();
    snapshots[txn]++;
    r = ordo_tool({"check", "--json", dst});
    ASSERT_EQ(r.exit_code, 0) << "copy " << i << " of txn " << txn << ":\n" << r.out << r.err;
    auto copy = Database::open(dst, Options{.read_only = true, .verify_checksums = true});
    ASSERT_TRUE(copy.is_ok()) << copy.status().to_string();
    auto rt = (*copy)->begin_read();
    ASSERT_EQ(rt->txn_id(), txn);
    EXPECT_EQ(rt->get(rt->default_tree(), "counter")->str(), std::to_string(txn));
    EXPECT_EQ(read_tree(*rt, *rt->open_tree("live")), live_expected(txn)) << "copy " << i;
    EXPECT_EQ(read_tree(*rt, *rt->open_tree("side")), side_expected(txn)) << "copy " << i;
    if (compact) {
      auto report = rt->check();
      EXPECT_EQ(report->free_pages, 0u);
    }
    rt = Status::invalid_argument("done");
    copy = Status::invalid_argument("closed");
    std::filesystem::remove(dst);
  }
  stop.store(true);
  writer.join();
  ASSERT_TRUE(writer_status.is_ok()) << writer_status.to_string();
  // The writer moved on between copies: they are of many snapshots.
  EXPECT_GT(snapshots.size(), 50u);
  std::printf("100 copies of %zu snapshots while the writer made %llu commits\n", snapshots.size(),
              static_cast<unsigned long long>(committed.load()));
}

class ToolCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = dir_.file("src.ordo");
    auto db = Database::open(src_);
    ASSERT_TRUE(db.is_ok());
    for (uint64_t n = 1; n <= 30; ++n) ASSERT_TRUE(live_commit(**db, n).is_ok());
  }
  TempDir dir_;
  std::string src_;
};

TEST_F(ToolCopyTest, CompactLeavesNoFreePagesAndTheSameData) {
  ProcessResult r = ordo_tool({"copy", src_, dir_.file("c.ordo"), "--compact", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::parse_json(r)["free_pages"], 0u);
  r = ordo_tool({"check", "--json", dir_.file("c.ordo")});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(testing::parse_json(r)["free_pages"], 0u);
  ASSERT_EQ(ordo_tool({"dump", "--all", src_, "-o", dir_.file("d1")}).exit_code, 0);
  ASSERT_EQ(ordo_tool({"dump", "--all", dir_.file("c.ordo"), "-o", dir_.file("d2")}).exit_code, 0);
  EXPECT_EQ(without_mapsize(read_file(dir_.file("d1"))),
            without_mapsize(read_file(dir_.file("d2"))));
  // To stdout, for a pipe or a backup file.
  r = testing::shell(std::string(ORDO_TOOL_PATH) + " copy --compact " + sh_quote(src_) + " - > " +
                     sh_quote(dir_.file("s.ordo")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(read_file(dir_.file("s.ordo")) == read_file(dir_.file("c.ordo")));
}

// A nodes file as ordo-bench makes it with --ids random (a record per node
// under a random 16-byte ID, a (parent, name) -> child entry, a commit every
// 2,000 nodes): random inserts leave leaves part full and pages free.
// --compact gives a file with no free page, that checks clean, holds the
// same entries and is smaller.
TEST_F(ToolCopyTest, CompactOfARandomIdNodesFile) {
  const std::string nodes_file = dir_.file("nodes.ordo");
  {
    auto db = Database::open(nodes_file);
    ASSERT_TRUE(db.is_ok());
    std::mt19937_64 rng(11);
    std::vector<std::string> ids;
    for (int batch = 0; batch < 10; ++batch) {
      auto w = (*db)->begin_write();
      auto nodes = w->create_tree("nodes");
      auto edges = w->create_tree("edges");
      for (int i = 0; i < 2000; ++i) {
        std::string id(16, '\0');
        for (char& c : id) c = static_cast<char>(rng());
        const std::string parent = ids.empty() ? std::string(16, '\0') : ids[ids.size() / 20];
        ASSERT_TRUE(w->put(*nodes, id, std::string(64, static_cast<char>('a' + i % 26))).is_ok());
        ASSERT_TRUE(w->put(*edges, parent + "child-" + std::to_string(ids.size()), id).is_ok());
        ids.push_back(id);
      }
      ASSERT_TRUE(w->commit().is_ok());
    }
  }
  auto before = testing::parse_json(ordo_tool({"check", "--json", nodes_file}));
  EXPECT_GT(before["free_pages"].get<uint64_t>(), 0u);
  ProcessResult r =
      ordo_tool({"copy", "--compact", "--json", nodes_file, dir_.file("compact.ordo")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ordo_tool({"check", "--json", dir_.file("compact.ordo")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto after = testing::parse_json(r);
  EXPECT_TRUE(after["clean"].get<bool>());
  EXPECT_EQ(after["free_pages"], 0u);
  EXPECT_EQ(after["free_tree_entries"], 0u);
  EXPECT_EQ(after["user_entries"], before["user_entries"]);
  EXPECT_EQ(after["tree_pages"].get<uint64_t>() + after["log_pages"].get<uint64_t>() + 2,
            after["high_water_pages"].get<uint64_t>());
  EXPECT_LT(std::filesystem::file_size(dir_.file("compact.ordo")) * 10,
            std::filesystem::file_size(nodes_file) * 8);  // at least 20% smaller
  ASSERT_EQ(ordo_tool({"dump", "--all", nodes_file, "-o", dir_.file("d1")}).exit_code, 0);
  ASSERT_EQ(
      ordo_tool({"dump", "--all", dir_.file("compact.ordo"), "-o", dir_.file("d2")}).exit_code, 0);
  EXPECT_TRUE(without_mapsize(read_file(dir_.file("d1"))) ==
              without_mapsize(read_file(dir_.file("d2"))));
}

TEST_F(ToolCopyTest, AnExistingTargetNeedsForce) {
  const std::string dst = dir_.file("exists");
  testing::write_file(dst, "keep me");
  ProcessResult r = ordo_tool({"copy", src_, dst});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dst), "keep me");
  r = ordo_tool({"copy", src_, dst, "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ordo_tool({"check", dst}).exit_code, 0);
}

// A directory with no room (here: a file size limit of 4 KiB, which the
// kernel reports as EFBIG, the way a full disk reports ENOSPC): an error,
// no target, no temporary file.
TEST_F(ToolCopyTest, ACopyIntoAFullDirectoryLeavesNothing) {
  const std::string out_dir = dir_.file("out");
  std::filesystem::create_directory(out_dir);
  ProcessResult r =
      testing::shell("trap '' XFSZ; ulimit -f 8; exec " + std::string(ORDO_TOOL_PATH) + " copy " +
                     sh_quote(src_) + " " + sh_quote(out_dir + "/c.ordo"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("Full"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(out_dir));
  // The same copy with room succeeds.
  r = ordo_tool({"copy", src_, out_dir + "/c.ordo"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace ordo
