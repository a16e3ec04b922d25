// The `ordo` tool run as a program against databases built with the engine API.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "ordo/database.h"
#include "tools_test_util.h"

namespace ordo {
namespace {

using nlohmann::json;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;

constexpr uint64_t kAlphaEntries = 10;
constexpr uint64_t kBetaEntries = 250;

std::string key(const std::string& prefix, uint64_t i) {
  return prefix + std::to_string(1'000'000 + i);  // same length: byte order = numeric order
}

ProcessResult ordo_tool(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ORDO_TOOL_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// Parses the tool's stdout; a parse failure fails the test with the output.
json parse_output(const ProcessResult& r) {
  json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON:\n" << r.out << "\nstderr:\n" << r.err;
  return j;
}

// A database held open for writing for the whole test: one default-tree entry,
// "alpha" with 10 entries, "beta" with 250, committed once.
class OrdoToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("tool.ordo");
    Result<std::unique_ptr<Database>> db = Database::open(path_);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    db_ = std::move(db).value();
    Result<WriteTxn> txn = db_->begin_write();
    ASSERT_TRUE(txn.is_ok()) << txn.status().to_string();
    ASSERT_TRUE(txn->put(txn->default_tree(), "hello", "world").is_ok());
    fill_tree(*txn, "alpha", kAlphaEntries);
    fill_tree(*txn, "beta", kBetaEntries);
    last_uuid_ = *txn->next_id();
    last_id64_ = *txn->next_id64();
    const Status s = txn->commit();
    ASSERT_TRUE(s.is_ok()) << s.to_string();
  }

  static void fill_tree(WriteTxn& txn, const std::string& name, uint64_t entries) {
    Result<Tree> tree = txn.create_tree(name);
    ASSERT_TRUE(tree.is_ok()) << tree.status().to_string();
    for (uint64_t i = 0; i < entries; ++i) {
      const Status s = txn.put(*tree, key(name, i), "value-" + std::to_string(i));
      ASSERT_TRUE(s.is_ok()) << s.to_string();
    }
  }

  TempDir dir_;
  std::string path_;
  std::unique_ptr<Database> db_;
  Uuid last_uuid_;
  Id64 last_id64_;
};

TEST_F(OrdoToolTest, InfoJsonWhileWriterHoldsTheFile) {
  const DatabaseInfo expected = db_->info();
  const ProcessResult r = ordo_tool({"info", "--json", path_});
  ASSERT_EQ(r.signal, 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = parse_output(r);
  EXPECT_EQ(j["page_size_bytes"], db_->page_size_bytes());
  EXPECT_EQ(j["page_size_bytes"], 4096u);
  EXPECT_EQ(j["txn_id"], expected.txn_id);
  EXPECT_EQ(j["format_version"], expected.format_version);
  EXPECT_GE(j["file_bytes"].get<uint64_t>(), 2u * 4096u);
  EXPECT_GT(j["used_pages"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["uuid_high_water"], last_uuid_.to_string());
  EXPECT_EQ(j["id64_high_water"], last_id64_.value);
  ASSERT_EQ(j["metas"].size(), 2u);
  const int current = j["current_meta"].get<int>();
  ASSERT_TRUE(current == 0 || current == 1);
  // The current meta page holds the last checkpoint; the last commit's state
  // (from the log past it) is "current".
  const json& meta = j["metas"][current];
  EXPECT_TRUE(meta["valid"].get<bool>()) << meta["problem"];
  EXPECT_TRUE(meta["current"].get<bool>());
  EXPECT_EQ(meta["txn_id"], expected.log.checkpoint_txn);
  EXPECT_FALSE(j["metas"][1 - current]["current"].get<bool>());
  EXPECT_EQ(j["current"]["txn_id"], expected.txn_id);
  EXPECT_EQ(j["current"]["named_trees"], 2u);
  EXPECT_EQ(j["log"]["last_txn"], expected.txn_id);
  EXPECT_EQ(j["log"]["checkpoint_txn"].get<uint64_t>() + j["log"]["records"].get<uint64_t>(),
            expected.txn_id);
}

TEST_F(OrdoToolTest, StatJsonCountsEveryTree) {
  const ProcessResult r = ordo_tool({"stat", "--json", path_});
  ASSERT_EQ(r.signal, 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = parse_output(r);
  EXPECT_EQ(j["page_size_bytes"], 4096u);
  EXPECT_EQ(j["txn_id"], db_->info().txn_id);
  ASSERT_EQ(j["trees"].size(), 3u);
  const json& trees = j["trees"];
  EXPECT_EQ(trees[0]["name"], "(default)");
  EXPECT_TRUE(trees[0]["default"].get<bool>());
  EXPECT_EQ(trees[0]["entries"], 1u);
  EXPECT_EQ(trees[1]["name"], "alpha");
  EXPECT_EQ(trees[1]["entries"], kAlphaEntries);
  EXPECT_EQ(trees[2]["name"], "beta");
  EXPECT_EQ(trees[2]["entries"], kBetaEntries);
  EXPECT_EQ(trees[1]["depth"], 1u);  // 10 small entries: the root is a leaf
  EXPECT_EQ(trees[1]["leaf_pages"], 1u);
  EXPECT_EQ(trees[1]["branch_pages"], 0u);
  EXPECT_GE(trees[2]["depth"], 1u);
  EXPECT_GE(trees[2]["leaf_pages"], 1u);
  for (const json& tree : trees) {
    EXPECT_GT(tree["leaf_fill"].get<double>(), 0.0) << tree.dump();
    EXPECT_LE(tree["leaf_fill"].get<double>(), 1.0) << tree.dump();
  }
  ASSERT_TRUE(j.contains("free_pages")) << j.dump();
  ASSERT_TRUE(j.contains("pending_free_pages")) << j.dump();
  EXPECT_LE(j["pending_free_pages"].get<uint64_t>(), j["free_pages"].get<uint64_t>());
}

// After rewrites, the free tree holds the replaced pages: `ordo stat` counts
// them by walking it and must agree with the count the current meta records
// (`ordo info`).
TEST_F(OrdoToolTest, StatFreePagesMatchTheCurrentMeta) {
  for (int round = 1; round <= 3; ++round) {
    Result<WriteTxn> txn = db_->begin_write();
    ASSERT_TRUE(txn.is_ok()) << txn.status().to_string();
    Result<Tree> beta = txn->open_tree("beta");
    ASSERT_TRUE(beta.is_ok()) << beta.status().to_string();
    for (uint64_t i = 0; i < kBetaEntries; ++i) {
      const Status s = txn->put(*beta, key("beta", i), std::string(40, 'a' + round));
      ASSERT_TRUE(s.is_ok()) << s.to_string();
    }
    ASSERT_TRUE(txn->commit().is_ok());
  }
  const ProcessResult info_run = ordo_tool({"info", "--json", path_});
  ASSERT_EQ(info_run.exit_code, 0) << info_run.err;
  const json info = parse_output(info_run);
  const ProcessResult stat_run = ordo_tool({"stat", "--json", path_});
  ASSERT_EQ(stat_run.exit_code, 0) << stat_run.err;
  const json stat = parse_output(stat_run);
  ASSERT_EQ(stat["txn_id"], info["txn_id"]);
  const json& meta = info["current"];
  ASSERT_TRUE(stat.contains("free_pages")) << stat.dump();
  ASSERT_TRUE(stat.contains("pending_free_pages")) << stat.dump();
  EXPECT_EQ(stat["free_pages"], meta["free_pages"]) << stat.dump() << "\n" << info.dump();
  EXPECT_GT(stat["free_pages"].get<uint64_t>(), 0u);
  EXPECT_LE(stat["pending_free_pages"].get<uint64_t>(), stat["free_pages"].get<uint64_t>());
  EXPECT_EQ(info["used_pages"].get<uint64_t>(),
            meta["high_water_pages"].get<uint64_t>() - stat["free_pages"].get<uint64_t>());
}

TEST_F(OrdoToolTest, SeesCommitsMadeBeforeItOpened) {
  Result<WriteTxn> txn = db_->begin_write();
  ASSERT_TRUE(txn.is_ok()) << txn.status().to_string();
  Result<Tree> gamma = txn->create_tree("gamma");
  ASSERT_TRUE(gamma.is_ok()) << gamma.status().to_string();
  ASSERT_TRUE(txn->put(*gamma, "k", "v").is_ok());
  ASSERT_TRUE(txn->commit().is_ok());

  const ProcessResult info = ordo_tool({"info", "--json", path_});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_EQ(parse_output(info)["txn_id"], db_->info().txn_id);
  const ProcessResult stat = ordo_tool({"stat", "--json", path_});
  ASSERT_EQ(stat.exit_code, 0) << stat.err;
  const json trees = parse_output(stat)["trees"];
  ASSERT_EQ(trees.size(), 4u);
  EXPECT_EQ(trees[3]["name"], "gamma");
  EXPECT_EQ(trees[3]["entries"], 1u);
}

TEST_F(OrdoToolTest, TextOutputNamesTheFigures) {
  const ProcessResult info = ordo_tool({"info", path_});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("page size bytes"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find(last_uuid_.to_string()), std::string::npos) << info.out;
  const ProcessResult stat = ordo_tool({"stat", path_});
  ASSERT_EQ(stat.exit_code, 0) << stat.err;
  EXPECT_NE(stat.out.find("(default)"), std::string::npos) << stat.out;
  EXPECT_NE(stat.out.find("beta"), std::string::npos) << stat.out;
  EXPECT_NE(stat.out.find("free pages"), std::string::npos) << stat.out;
  EXPECT_NE(stat.out.find("pending"), std::string::npos) << stat.out;
}

TEST(OrdoToolErrorTest, MissingFileExitsOneWithItsName) {
  TempDir dir;
  const std::string path = dir.file("absent.ordo");
  for (const char* command : {"info", "stat"}) {
    const ProcessResult r = ordo_tool({command, path});
    EXPECT_EQ(r.signal, 0) << command;
    EXPECT_EQ(r.exit_code, 1) << command;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("NotFound"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

void write_random_file(const std::string& path, size_t bytes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string data(bytes, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  std::ofstream(path, std::ios::binary) << data;
}

// A file that is not an ordo database, of a few sizes (empty, less than a page,
// several pages): exit 1 with the reason, never a crash.
TEST(OrdoToolErrorTest, NotADatabaseExitsOneNamingTheProblem) {
  TempDir dir;
  for (size_t bytes : {size_t{0}, size_t{100}, size_t{5 * 4096}, size_t{64 * 1024 + 17}}) {
    const std::string path = dir.file("random-" + std::to_string(bytes));
    write_random_file(path, bytes, /*seed=*/bytes + 1);
    for (const char* command : {"info", "stat"}) {
      const ProcessResult r = ordo_tool({command, "--json", path});
      EXPECT_EQ(r.signal, 0) << command << " " << bytes;
      EXPECT_EQ(r.exit_code, 1) << command << " " << bytes << "\n" << r.out;
      EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
      const bool named = r.err.find("NotOrdoFile") != std::string::npos ||
                         r.err.find("Corruption") != std::string::npos;
      EXPECT_TRUE(named) << r.err;
    }
  }
}

TEST(OrdoToolUsageTest, MissingArgumentsAreUsageErrors) {
  EXPECT_EQ(ordo_tool({}).exit_code, 2);
  EXPECT_EQ(ordo_tool({"info"}).exit_code, 2);
  EXPECT_EQ(ordo_tool({"stat", "--json"}).exit_code, 2);
  EXPECT_EQ(ordo_tool({"frobnicate", "x"}).exit_code, 2);
  EXPECT_EQ(ordo_tool({"--help"}).exit_code, 0);
}

}  // namespace
}  // namespace ordo

namespace ordo {
namespace {

TEST_F(OrdoToolTest, CheckIsCleanAndCountsEveryTree) {
  const ProcessResult r = ordo_tool({"check", path_, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = parse_output(r);
  EXPECT_TRUE(j["clean"].get<bool>());
  // User trees and entries; the catalog's two entries apart.
  EXPECT_EQ(j["user_trees"].get<uint64_t>(), 3u);
  EXPECT_EQ(j["user_entries"].get<uint64_t>(), 1 + kAlphaEntries + kBetaEntries);
  EXPECT_EQ(j["catalog_entries"].get<uint64_t>(), 2u);
  EXPECT_EQ(j["problems"].size(), 0u);
  const ProcessResult text = ordo_tool({"check", path_});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("clean"), std::string::npos) << text.out;
}

TEST_F(OrdoToolTest, CheckFindsADamagedPageAndExitsOne) {
  const DatabaseInfo info = db_->info();
  const long first = static_cast<long>(info.log.first_page + info.log.area_bytes / 4096);
  db_.reset();
  // Flip the last byte of the first data pages: checksums no longer match.
  std::FILE* f = std::fopen(path_.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  for (long pg = first; pg < first + 6; ++pg) {
    std::fseek(f, pg * 4096 + 4095, SEEK_SET);
    int c = std::fgetc(f);
    std::fseek(f, pg * 4096 + 4095, SEEK_SET);
    std::fputc(c ^ 0xff, f);
  }
  std::fclose(f);
  const ProcessResult r = ordo_tool({"check", path_, "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = parse_output(r);
  EXPECT_FALSE(j["clean"].get<bool>());
  ASSERT_GT(j["problems"].size(), 0u);
  // The log (the default): closing took a checkpoint, which made the pages
  // durable, so their damage is reported where the walk meets it.
  EXPECT_NE(j["problems"][0]["what"].get<std::string>().find("checksum"), std::string::npos)
      << j.dump();
  EXPECT_GE(j["problems"][0]["page"].get<uint64_t>(), static_cast<uint64_t>(first));
}

TEST(OrdoToolCheckTest, NotADatabaseExitsOneNamingTheProblem) {
  TempDir dir;
  const std::string path = dir.file("junk");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  for (int i = 0; i < 20000; ++i) std::fputc(i * 7, f);
  std::fclose(f);
  const ProcessResult r = ordo_tool({"check", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not an ordo database"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ordo
