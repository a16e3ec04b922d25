// What the tool takes from its command line and input: numbers that are not
// unsigned decimal numbers of the option's type are usage errors naming the
// option, and input quoted back in messages is bounded.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ordo/database.h"
#include "ordo_util.h"

namespace ordo {
namespace {

using testing::ordo_tool;
using testing::ProcessResult;
using testing::TempDir;
using testing::write_file;

class ToolArgumentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.file("db.ordo");
    auto db = Database::open(db_);
    ASSERT_TRUE(db.is_ok());
    auto w = (*db)->begin_write();
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), "k" + std::to_string(i), "v").is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  TempDir dir_;
  std::string db_;
};

TEST_F(ToolArgumentsTest, UnsignedOptionsTakeOnlyDigitsThatFit) {
  write_file(dir_.file("in"),
             "VERSION=3\nformat=print\ntype=btree\nHEADER=END\n a\n b\nDATA=END\n");
  struct Case {
    std::vector<std::string> args;
    const char* option;
  };
  std::vector<Case> cases;
  for (const char* bad : {"-1", "18446744073709551616", "18446744073709551617", "abc", "1x", "+5",
                          " 5", "0x10", "1e3", ""}) {
    cases.push_back({{"keys", "--limit", bad, db_}, "--limit"});
    cases.push_back(
        {{"load", dir_.file("l.ordo"), "--batch", bad, "-i", dir_.file("in")}, "--batch"});
    cases.push_back({{"page", db_, bad}, "N"});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args[0] + " " + c.args[2] + " '" + c.args[c.args[0] == "page" ? 2 : 3] + "'");
    const ProcessResult r = ordo_tool(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(c.option), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.file("l.ordo")));
  // The largest value and zero are numbers.
  ProcessResult r = ordo_tool({"keys", "--limit", "18446744073709551615", db_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "k0\nk1\nk2\nk3\nk4\n");
  r = ordo_tool({"keys", "--limit", "2", db_});
  EXPECT_EQ(r.out, "k0\nk1\n");
  r = ordo_tool({"page", db_, "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A 10 MB header line, a 5000-byte key, a long tree name, a long command:
// each message shows a bounded part and the whole length.
TEST_F(ToolArgumentsTest, MessagesQuoteABoundedPartOfTheInput) {
  const std::string long_line(10 << 20, 'x');
  write_file(dir_.file("in"), "VERSION=3\n" + long_line + "\n");
  const std::string key(5000, 'k');
  const std::string name(900, 't');
  struct Case {
    std::vector<std::string> args;
    std::string length;
  };
  const std::vector<Case> cases = {
      {{"load", dir_.file("l.ordo"), "-i", dir_.file("in")}, "(10485760 bytes)"},
      {{"get", db_, key}, "(5000 bytes)"},
      {{"get", db_, "--key-format", "hex", std::string(4000, 'a')}, "(2000 bytes)"},
      {{"keys", db_, "--tree", name}, "(900 bytes)"},
      {{"dump", db_, "--tree", name}, "(900 bytes)"},
      {{"keys", db_, "--limit", std::string(2000, '9')}, "(2000 bytes)"},
      {{std::string(4000, 'c'), db_}, "(4000 bytes)"},
      {{"keys", db_, std::string(4000, 'x')}, "bytes)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args[0].substr(0, 10));
    const ProcessResult r = ordo_tool(c.args);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_LT(r.err.size(), 600u) << r.err.substr(0, 600);
    EXPECT_NE(r.err.find(c.length), std::string::npos) << r.err.substr(0, 600);
  }
}

}  // namespace
}  // namespace ordo
