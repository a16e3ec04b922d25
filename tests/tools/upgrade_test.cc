// `ordo upgrade FILE`: the version 2 fixture (tests/engine/data/v2_small.ordo)
// converted in place, its dump unchanged; a second run, --log-bytes, --json,
// and the failures (exit 1 with the reason on stderr, exit 2 for bad usage).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ordo_util.h"
#include "v2_fixture.h"

namespace ordo {
namespace {

using testing::ordo_tool;
using testing::parse_json;
using testing::ProcessResult;
using testing::read_file;
using testing::without_mapsize;

using ToolUpgradeTest = testing::V2FixtureTest;

TEST_F(ToolUpgradeTest, OtherCommandsNameTheUpgradeForAVersionTwoFile) {
  const ProcessResult r = ordo_tool({"info", path_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("VersionMismatch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("`ordo upgrade FILE`"), std::string::npos) << r.err;
}

TEST_F(ToolUpgradeTest, UpgradesInPlaceKeepingTheDump) {
  const ProcessResult r = ordo_tool({"upgrade", path_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, path_ +
                       ": upgraded to format version 4 at txn 9: log area of 4194304 bytes "
                       "at page 28 (page size 4096); file 4325376 bytes\n");
  EXPECT_EQ(r.err, "");
  const ProcessResult dump = ordo_tool({"dump", "--all", path_});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(without_mapsize(dump.out), without_mapsize(read_file(testing::kV2FixtureDump)));
  const ProcessResult check = ordo_tool({"check", path_});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  const ProcessResult info = ordo_tool({"info", "--json", path_});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_EQ(parse_json(info)["format_version"], 4);

  const ProcessResult again = ordo_tool({"upgrade", path_});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, path_ + ": already format version 4 (txn 9): nothing to do\n");
}

TEST_F(ToolUpgradeTest, JsonAndLogBytes) {
  const ProcessResult r = ordo_tool({"upgrade", path_, "--log-bytes", "65536", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = parse_json(r);
  EXPECT_EQ(j["path"], path_);
  EXPECT_EQ(j["upgraded"], true);
  EXPECT_EQ(j["format_version"], 4);
  EXPECT_EQ(j["txn_id"], 9);  // the version 3 to 4 step is a txn of its own
  EXPECT_EQ(j["page_size_bytes"], 4096);
  EXPECT_EQ(j["log_first_page"], 28);
  EXPECT_EQ(j["log_bytes"], 65536);
  // The log area past the version 2 pages, then 4 new branch, catalog and
  // free-tree pages past it.
  EXPECT_EQ(j["file_bytes"], 28 * 4096 + 65536 + 4 * 4096);
  EXPECT_EQ(j["file_bytes"], std::filesystem::file_size(path_));
  EXPECT_EQ(j["recovery"], "");
  const ProcessResult again = ordo_tool({"upgrade", "--json", path_});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(parse_json(again)["upgraded"], false);
  // On a version 4 file a bad --log-bytes is refused as on any other; a good
  // one is said to change nothing.
  const std::string upgraded = read_file(path_);
  const ProcessResult bad = ordo_tool({"upgrade", path_, "--log-bytes", "5"});
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  EXPECT_NE(bad.err.find("log_bytes 5"), std::string::npos) << bad.err;
  const ProcessResult other = ordo_tool({"upgrade", path_, "--log-bytes", "131072"});
  EXPECT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(other.out.find("its log area stays 65536 bytes"), std::string::npos) << other.out;
  EXPECT_EQ(read_file(path_), upgraded);
}

TEST_F(ToolUpgradeTest, FailuresSayWhyAndLeaveTheFile) {
  const std::string before = read_file(path_);
  ProcessResult r = ordo_tool({"upgrade", path_, "--log-bytes", "1000"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("InvalidArgument"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("log_bytes 1000"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(path_), before);

  r = ordo_tool({"upgrade", path_, "--log-bytes", "-1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = ordo_tool({"upgrade"});
  EXPECT_EQ(r.exit_code, 2) << r.err;

  const std::string missing = dir_.file("missing.ordo");
  r = ordo_tool({"upgrade", missing});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("ordo: " + missing + ": NotFound", 0), 0u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(missing));

  const std::string text = dir_.file("notes.txt");
  testing::write_file(text, std::string(10000, 'x'));
  r = ordo_tool({"upgrade", text});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("NotOrdoFile"), std::string::npos) << r.err;

  testing::write_file(path_, before.substr(0, 3 * 4096));
  r = ordo_tool({"upgrade", path_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Corruption"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
}

TEST(ToolUpgradeHelpTest, HelpListsTheCommand) {
  const ProcessResult r = ordo_tool({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("upgrade"), std::string::npos) << r.out;
  const ProcessResult sub = ordo_tool({"upgrade", "--help"});
  EXPECT_EQ(sub.exit_code, 0);
  EXPECT_NE(sub.out.find("--log-bytes"), std::string::npos) << sub.out;
}

}  // namespace
}  // namespace ordo
