// The reading and inspection commands of `ordo`: trees, get, keys, scan,
// pages, page, free, readers; counts that agree across info, stat, check and
// trees; --json on every command, --version, --help, unknown commands, and
// messages that never print raw binary.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ordo/database.h"
#include "ordo_util.h"

namespace ordo {
namespace {

using testing::ordo_tool;
using testing::parse_json;
using testing::ProcessResult;
using testing::TempDir;

class ToolInspectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("db.ordo");
    auto db = Database::open(path_);
    ASSERT_TRUE(db.is_ok());
    for (int round = 0; round < 2; ++round) {
      auto w = (*db)->begin_write();
      auto nodes = w->create_tree("nodes");
      for (uint8_t i = 0; i < 200; ++i) {
        std::string uuid(16, '\0');
        uuid[0] = 0x01;
        uuid[15] = static_cast<char>(i);
        ASSERT_TRUE(w->put(*nodes, uuid, "node " + std::to_string(i + round)).is_ok());
      }
      auto edges = w->create_tree("edges");
      for (int i = 0; i < 50; ++i) {
        ASSERT_TRUE(w->put(*edges, "parent/" + std::to_string(100 + i), "child").is_ok());
      }
      ASSERT_TRUE(w->put(*w->create_tree(std::string("odd\x01\xfe", 5)), "k", "v").is_ok());
      ASSERT_TRUE(w->put(w->default_tree(), "hello", "world").is_ok());
      ASSERT_TRUE(w->put(w->default_tree(), "big", std::string(3 << 20, 'B')).is_ok());
      ASSERT_TRUE(w->commit().is_ok());
    }
  }
  TempDir dir_;
  std::string path_;
};

// A file of one-sync commits cut after its last commit: open falls back to
// the commit before, and every command says so on stderr instead of showing
// the older data silently.
TEST(ToolRecoveryTest, ACommitRolledBackAtOpenIsAWarning) {
  TempDir dir;
  const std::string path = dir.file("cut.ordo");
  {
    Options o;
    o.commit_protocol = CommitProtocol::kOneSync;
    auto db = Database::open(path, o);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    for (const char* key : {"k1", "k2"}) {
      auto w = (*db)->begin_write();
      ASSERT_TRUE(w.is_ok());
      ASSERT_TRUE(w->put(w->default_tree(), key, "v").is_ok());
      ASSERT_TRUE(w->commit().is_ok());
    }
  }
  const off_t size = static_cast<off_t>(testing::read_file(path).size());
  ASSERT_EQ(::truncate(path.c_str(), size - 4096), 0);
  ProcessResult keys = ordo_tool({"keys", path});
  EXPECT_EQ(keys.exit_code, 0) << keys.err;
  EXPECT_EQ(keys.out.find("k2"), std::string::npos) << keys.out;
  EXPECT_NE(keys.err.find("warning"), std::string::npos) << keys.err;
  EXPECT_NE(keys.err.find("not durable"), std::string::npos) << keys.err;
  ProcessResult dump = ordo_tool({"dump", path});
  EXPECT_NE(dump.err.find("not durable"), std::string::npos) << dump.err;
}

// A closed file cut between its log and its high-water mark: its newest
// checkpoint is unusable and the commits logged before it need a replay.
// `info` and `check` name that (NeedsRecovery, not Busy); `check` replays
// in a scratch copy, reports what the replay gives and leaves the file as
// it was.
TEST(ToolRecoveryTest, AFileThatNeedsAReplayIsCheckedInAScratchCopy) {
  TempDir dir;
  const std::string path = dir.file("cut.ordo");
  uint64_t high_water_bytes = 0, log_end_bytes = 0;
  {
    auto db = Database::open(path);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    for (int i = 0; i < 14; ++i) {
      auto w = (*db)->begin_write();
      ASSERT_TRUE(w.is_ok());
      ASSERT_TRUE(
          w->put(w->default_tree(), "k" + std::to_string(i), std::string(900, 'v')).is_ok());
      ASSERT_TRUE(w->commit().is_ok());
    }
    const DatabaseInfo info = (*db)->info();
    high_water_bytes = info.current.page_high_water * info.page_size_bytes;
    log_end_bytes = info.log.first_page * info.page_size_bytes + info.log.area_bytes;
  }
  ASSERT_LT(log_end_bytes + 4096, high_water_bytes);
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(high_water_bytes - 4096)), 0);
  const std::string before = testing::read_file(path);

  ProcessResult info = ordo_tool({"info", path});
  EXPECT_EQ(info.exit_code, 1);
  EXPECT_NE(info.err.find("NeedsRecovery"), std::string::npos) << info.err;
  EXPECT_NE(info.err.find("truncated"), std::string::npos) << info.err;
  EXPECT_EQ(info.err.find("Busy"), std::string::npos) << info.err;

  ProcessResult check = ordo_tool({"check", path});
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_NE(check.out.find("needs recovery: NeedsRecovery"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("replayed in a scratch copy"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("replayed txns 1..14"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("txn 14,"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("a writable open recovers a clean state"), std::string::npos)
      << check.out;
  ProcessResult json = ordo_tool({"check", path, "--json"});
  EXPECT_EQ(json.exit_code, 1);
  const auto j = parse_json(json);
  EXPECT_EQ(j["clean"], false);
  EXPECT_EQ(j["replayed_state_clean"], true);
  EXPECT_EQ(j["txn_id"], 14);
  EXPECT_EQ(testing::read_file(path), before) << "check wrote to the file";

  // A writable open recovers it, and then it checks clean.
  {
    auto db = Database::open(path);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  }
  ProcessResult after = ordo_tool({"check", path});
  EXPECT_EQ(after.exit_code, 0) << after.out << after.err;
}

TEST_F(ToolInspectTest, InfoStatCheckAndTreesAgreeOnTreesAndEntries) {
  const auto trees = parse_json(ordo_tool({"trees", "--json", path_}));
  const auto info = parse_json(ordo_tool({"info", "--json", path_}));
  const auto stat = parse_json(ordo_tool({"stat", "--json", path_}));
  const auto check = parse_json(ordo_tool({"check", "--json", path_}));
  const uint64_t entries = 2 + 200 + 50 + 1;
  for (const auto* j : {&trees, &info, &stat, &check}) {
    EXPECT_EQ((*j)["user_trees"], 4u) << j->dump();
    EXPECT_EQ((*j)["user_entries"], entries) << j->dump();
  }
  EXPECT_EQ(trees["trees"].size(), 4u);
  EXPECT_EQ(trees["internal_trees"].size(), 2u);
  EXPECT_EQ(trees["internal_trees"][0]["kind"], "catalog");
  EXPECT_EQ(trees["internal_trees"][0]["entries"], 3u);
  EXPECT_EQ(check["catalog_entries"], 3u);
  EXPECT_EQ(info["named_trees"], 3u);
  // stat shows the 3 MiB value: its overflow pages and its bytes.
  const auto& def = stat["trees"][0];
  EXPECT_EQ(def["overflow_pages"], (24 + (3u << 20) + 4095) / 4096);
  EXPECT_EQ(def["overflow_values"], 1u);
  EXPECT_EQ(def["value_bytes"], (3u << 20) + 5);
  const ProcessResult text = ordo_tool({"stat", path_});
  EXPECT_NE(text.out.find("overflow"), std::string::npos);
  EXPECT_NE(text.out.find("value bytes"), std::string::npos);
  EXPECT_NE(text.out.find("4 user trees, 253 entries"), std::string::npos) << text.out;
}

TEST_F(ToolInspectTest, GetKeysAndScanInEveryFormat) {
  ProcessResult r = ordo_tool({"get", path_, "hello"});
  EXPECT_EQ(r.out, "world\n");
  r = ordo_tool({"get", path_, "68656c6c6f", "--key-format", "hex", "--value-format", "hex"});
  EXPECT_EQ(r.out, "776f726c64\n");
  r = ordo_tool({"get", path_, "--tree", "nodes", "01000000-0000-0000-0000-000000000007",
                 "--key-format", "uuid"});
  EXPECT_EQ(r.out, "node 8\n") << r.err;
  r = ordo_tool({"get", path_, "--tree", "nodes",
                 "\\01\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\07"});
  EXPECT_EQ(r.out, "node 8\n") << r.err;
  r = ordo_tool({"get", path_, "absent"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not found"), std::string::npos);
  r = ordo_tool({"keys", path_, "--tree", "nodes", "--key-format", "uuid", "--limit", "2"});
  EXPECT_EQ(r.out, "01000000-0000-0000-0000-000000000000\n01000000-0000-0000-0000-000000000001\n");
  r = ordo_tool({"scan", path_, "--tree", "edges", "--prefix", "parent/14", "--json"});
  auto j = parse_json(r);
  EXPECT_EQ(j["count"], 10u);
  EXPECT_EQ(j["entries"][0]["key"], "parent/140");
  EXPECT_EQ(j["entries"][0]["value"], "child");
  r = ordo_tool({"scan", path_, "--tree", "edges", "--from", "parent/110", "--to", "parent/112"});
  EXPECT_EQ(r.out, "parent/110\tchild\nparent/111\tchild\n");
  r = ordo_tool({"keys", path_, "--tree", "odd\\01\\fe"});
  EXPECT_EQ(r.out, "k\n") << r.err;
}

TEST_F(ToolInspectTest, PagesPageAndFreeDescribeTheFile) {
  auto pages = parse_json(ordo_tool({"pages", "--json", path_}));
  auto check = parse_json(ordo_tool({"check", "--json", path_}));
  ASSERT_EQ(pages["pages"].size(), check["high_water_pages"].get<uint64_t>());
  uint64_t leaf = 0, overflow = 0, free = 0, branch_page = 0;
  for (const auto& p : pages["pages"]) {
    if (p["kind"] == "leaf") leaf++;
    if (p["kind"] == "overflow") overflow++;
    if (p["kind"] == "free") free++;
    if (p["kind"] == "branch" && p["tree"] == "nodes") branch_page = p["page"].get<uint64_t>();
  }
  EXPECT_EQ(overflow, check["overflow_pages"].get<uint64_t>());
  EXPECT_EQ(free, check["free_pages"].get<uint64_t>());
  EXPECT_GT(leaf, 3u);
  ASSERT_GT(branch_page, 0u);
  auto page = parse_json(ordo_tool({"page", "--json", path_, std::to_string(branch_page)}));
  EXPECT_EQ(page["kind"], "branch");
  EXPECT_EQ(page["owner"], "tree 'nodes'");
  EXPECT_TRUE(page["checksum_ok"].get<bool>());
  for (const auto& c : page["cells"]) {
    EXPECT_TRUE(c["child_checksum_ok"].get<bool>());
    EXPECT_GT(c["child_entries"].get<uint64_t>(), 0u);  // every child holds entries
  }
  const ProcessResult text = ordo_tool({"page", path_, std::to_string(branch_page), "--hex"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("checksum    ok"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("000000  02 00"), std::string::npos) << text.out;
  auto freej = parse_json(ordo_tool({"free", "--json", path_}));
  EXPECT_EQ(freej["free_pages"], check["free_pages"]);
  EXPECT_GT(freej["recent_pages"].get<uint64_t>(), 0u);
  EXPECT_EQ(ordo_tool({"page", path_, "999999"}).exit_code, 1);
}

// The tool checks what it reads against the checksums: a byte changed in
// an overflow run fails `get` and `dump` (naming the mismatch) where a read
// without checks would print the damaged value.
TEST_F(ToolInspectTest, ADamagedValueFailsGetAndDump) {
  const auto pages = parse_json(ordo_tool({"pages", "--json", path_}));
  uint64_t overflow = 0;
  for (const auto& p : pages["pages"]) {
    if (p["kind"] == "overflow" && overflow == 0) overflow = p["page"].get<uint64_t>();
  }
  ASSERT_GT(overflow, 0u);
  std::string bytes = testing::read_file(path_);
  const uint64_t at = overflow * 4096 + 2048;
  ASSERT_LT(at, bytes.size());
  ASSERT_EQ(bytes[at], 'B');
  bytes[at] = 'X';
  const std::string damaged = dir_.file("damaged.ordo");
  testing::write_file(damaged, bytes);

  ProcessResult good = ordo_tool({"get", path_, "big"});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"get", damaged, "big"}, {"dump", damaged}}) {
    ProcessResult r = ordo_tool(args);
    EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("checksum mismatch"), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_EQ(r.out.find("BBBBX"), std::string::npos) << args[0] << " printed the damaged value";
  }
}

TEST_F(ToolInspectTest, ReadersNameTheSnapshotAndTheProcess) {
  auto none = parse_json(ordo_tool({"readers", "--json", path_}));
  EXPECT_EQ(none["readers"].size(), 0u);
  auto ro = Database::open(path_, Options{.read_only = true});
  ASSERT_TRUE(ro.is_ok());
  auto r = (*ro)->begin_read();
  auto j = parse_json(ordo_tool({"readers", "--json", path_}));
  ASSERT_EQ(j["readers"].size(), 1u);
  EXPECT_EQ(j["readers"][0]["snapshot_txn"], r->txn_id());
  ASSERT_EQ(j["readers"][0]["processes"].size(), 1u);
  EXPECT_EQ(j["readers"][0]["processes"][0]["pid"], getpid());
  const ProcessResult text = ordo_tool({"readers", path_});
  EXPECT_NE(text.out.find(std::to_string(getpid())), std::string::npos) << text.out;
}

// A process with a read-only handle of its own that begins a read txn each
// time it is asked, keeps every one open, and answers with its snapshot.
class ReaderProcess {
 public:
  explicit ReaderProcess(const std::string& path) {
    int ask[2], answer[2];
    if (::pipe2(ask, O_CLOEXEC) != 0 || ::pipe2(answer, O_CLOEXEC) != 0) return;
    std::fflush(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) serve(path, ask[0], answer[1]);
    ::close(ask[0]);
    ::close(answer[1]);
    ask_ = ask[1];
    answer_ = answer[0];
  }
  ~ReaderProcess() {
    if (pid_ <= 0) return;
    // Other children hold copies of this pipe, so it is told, not closed.
    (void)!::write(ask_, "q", 1);
    ::close(ask_);
    ::close(answer_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  ReaderProcess(const ReaderProcess&) = delete;
  ReaderProcess& operator=(const ReaderProcess&) = delete;

  int pid() const { return pid_; }
  // The snapshot of a new read txn in the child; 0 when it failed.
  uint64_t begin_read() {
    uint64_t txn = 0;
    if (pid_ <= 0 || ::write(ask_, "r", 1) != 1) return 0;
    return ::read(answer_, &txn, sizeof(txn)) == sizeof(txn) ? txn : 0;
  }

 private:
  [[noreturn]] static void serve(const std::string& path, int ask, int answer) {
    auto db = Database::open(path, Options{.read_only = true});
    std::vector<ReadTxn> reads;
    char c;
    while (::read(ask, &c, 1) == 1 && c == 'r') {
      uint64_t txn = 0;
      if (db.is_ok()) {
        auto r = (*db)->begin_read();
        if (r.is_ok()) {
          txn = r->txn_id();
          reads.push_back(std::move(r).value());
        }
      }
      if (::write(answer, &txn, sizeof(txn)) != sizeof(txn)) break;
    }
    ::_exit(0);
  }

  int pid_ = -1;
  int ask_ = -1;
  int answer_ = -1;
};

// Three processes read snapshots in an order that keeps each one's slots
// apart from the next-higher slot in the kernel's lock list (one holds two
// side by side, two share one): `readers` lists every snapshot with its
// processes.
TEST_F(ToolInspectTest, ReadersListEverySnapshotOfSeveralProcesses) {
  std::vector<std::unique_ptr<ReaderProcess>> procs;
  for (int i = 0; i < 3; ++i) {
    procs.push_back(std::make_unique<ReaderProcess>(path_));
    ASSERT_GT(procs.back()->pid(), 0);
  }
  auto db = Database::open(path_);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  std::map<uint64_t, std::set<int>> expected;  // snapshot -> pids
  // A digit: that process begins a read; c: a commit.
  for (const char step : std::string("0c1c2c2c1c0c10c2")) {
    if (step == 'c') {
      auto w = (*db)->begin_write();
      ASSERT_TRUE(w.is_ok());
      ASSERT_TRUE(w->put(w->default_tree(), "k", std::to_string(w->txn_id())).is_ok());
      ASSERT_TRUE(w->commit().is_ok());
      continue;
    }
    ReaderProcess& proc = *procs[step - '0'];
    const uint64_t txn = proc.begin_read();
    ASSERT_NE(txn, 0u) << "process " << step;
    expected[txn].insert(proc.pid());
  }
  ASSERT_EQ(expected.size(), 8u);
  const auto j = parse_json(ordo_tool({"readers", "--json", path_}));
  std::map<uint64_t, std::set<int>> listed;
  for (const auto& r : j["readers"]) {
    std::set<int>& pids = listed[r["snapshot_txn"].get<uint64_t>()];
    for (const auto& proc : r["processes"]) pids.insert(proc["pid"].get<int>());
  }
  EXPECT_EQ(listed, expected) << j.dump();
  EXPECT_EQ(j["readers"].size(), expected.size());
  const ProcessResult text = ordo_tool({"readers", path_});
  for (const auto& [txn, pids] : expected) {
    for (const int pid : pids) {
      EXPECT_NE(text.out.find(std::to_string(pid)), std::string::npos) << text.out;
    }
  }
  procs.clear();
  EXPECT_EQ(parse_json(ordo_tool({"readers", "--json", path_}))["readers"].size(), 0u);
}

TEST_F(ToolInspectTest, EveryCommandSpeaksJson) {
  const std::vector<std::vector<std::string>> commands = {
      {"info"}, {"stat"},  {"check"},     {"trees"}, {"get", "hello"}, {"keys"},
      {"scan"}, {"pages"}, {"page", "2"}, {"free"},  {"readers"}};
  for (auto args : commands) {
    args.insert(args.begin() + 1, path_);
    args.push_back("--json");
    const ProcessResult r = ordo_tool(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    parse_json(r);
  }
  ProcessResult r = ordo_tool({"dump", path_, "--all", "-o", dir_.file("d"), "--json"});
  EXPECT_EQ(parse_json(r)["records"], 253u);
  r = ordo_tool({"load", dir_.file("l.ordo"), "-i", dir_.file("d"), "--json"});
  EXPECT_EQ(parse_json(r)["records"], 253u);
  r = ordo_tool({"copy", path_, dir_.file("c.ordo"), "--json"});
  EXPECT_EQ(parse_json(r)["user_entries"], 253u);
}

TEST(ToolUsageTest, VersionHelpAndUnknownCommands) {
  ProcessResult r = ordo_tool({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("ordo ", 0), 0u) << r.out;
  r = ordo_tool({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos) << r.out;
  for (const char* c : {"trees", "dump", "load", "copy", "pages", "readers"}) {
    EXPECT_NE(r.out.find(c), std::string::npos) << c;
  }
  r = ordo_tool({"dump", "--help"});
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
  r = ordo_tool({"frobnicate", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dump, load, copy"), std::string::npos) << r.err;
  r = ordo_tool({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("a command is required"), std::string::npos) << r.err;
}

// A tree name of control characters and invalid UTF-8, and a database whose
// catalog holds such a name: every message escapes them.
TEST(ToolMessagesTest, NoRawBinaryInErrors) {
  TempDir dir;
  const std::string path = dir.file("db.ordo");
  const std::string evil("\x1b[2J\xff\xfe\n\x07", 8);
  {
    auto db = Database::open(path);
    auto w = (*db)->begin_write();
    ASSERT_TRUE(w->put(*w->create_tree(evil), "k", "v").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"keys", path, "--tree", "\\1b[2J\\ff\\fe\\0a\\08"},
                                             {"get", path, "--tree", "\\1b[2J", "k"},
                                             {"get", path, "\x1b[31m\xff"},
                                             {"dump", path, "--tree", "\\ff"},
                                             {"trees", path},
                                             {"stat", path},
                                             {"info", dir.file("\x1b[2J\xff")}}) {
    const ProcessResult r = ordo_tool(args);
    EXPECT_TRUE(testing::terminal_safe(r.err)) << args[0] << ": " << r.err;
    EXPECT_TRUE(testing::terminal_safe(r.out)) << args[0] << ": " << r.out;
  }
}

}  // namespace
}  // namespace ordo
