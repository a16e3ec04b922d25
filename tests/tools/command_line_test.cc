// The tool's command line as a whole: every command, and for each its
// arguments and flags as its --help lists them, exactly. A command or flag
// lost (or one added without this table) fails here.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "ordo_util.h"

namespace ordo {
namespace {

using testing::ordo_tool;
using testing::ProcessResult;

// What a --help text lists: positionals, options (as "-s,--long"), and
// subcommands, each by its first word, in order.
struct HelpListing {
  std::vector<std::string> positionals;
  std::vector<std::string> options;
  std::vector<std::string> subcommands;
};

HelpListing listing(const std::string& help) {
  HelpListing out;
  std::vector<std::string>* section = nullptr;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    if (line == "Positionals:") {
      section = &out.positionals;
    } else if (line == "Options:") {
      section = &out.options;
    } else if (line == "Subcommands:") {
      section = &out.subcommands;
    } else if (line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      // An entry; a line indented further continues the one before.
      if (section != nullptr) section->push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (!line.empty() && line[0] != ' ') {
      section = nullptr;  // "Exit codes:", the usage line
    }
  }
  return out;
}

using Words = std::vector<std::string>;

const Words kCommands = {"info", "stat",    "check",   "trees", "get",     "keys",
                         "scan", "dump",    "load",    "copy",  "pages",   "page",
                         "free", "readers", "upgrade", "diff",  "restore", "snapshot"};

TEST(ToolCommandLineTest, TheToolListsEveryCommand) {
  const ProcessResult r = ordo_tool({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const HelpListing help = listing(r.out);
  EXPECT_EQ(help.subcommands, kCommands);
  EXPECT_EQ(help.options, (Words{"-h,--help", "--version"}));
  // An unknown command lists the same commands in the same order.
  const ProcessResult unknown = ordo_tool({"nosuchcommand"});
  EXPECT_EQ(unknown.exit_code, 2);
  std::string names;
  for (const auto& c : kCommands) names += (names.empty() ? "" : ", ") + c;
  EXPECT_NE(unknown.err.find("commands: " + names + " (ordo --help)"), std::string::npos)
      << unknown.err;
}

TEST(ToolCommandLineTest, EveryCommandTakesItsArgumentsAndFlags) {
  struct Case {
    Words command;
    Words positionals;
    Words options;
  };
  const Words json = {"-h,--help", "--json"};
  auto with_json = [&](const Words& more) {
    Words all = json;
    all.insert(all.end(), more.begin(), more.end());
    return all;
  };
  const std::vector<Case> cases = {
      {{"info"}, {"FILE"}, json},
      {{"stat"}, {"FILE"}, json},
      {{"check"}, {"FILE"}, json},
      {{"trees"}, {"FILE"}, json},
      {{"get"}, {"FILE", "KEY"}, with_json({"-t,--tree", "--key-format", "--value-format"})},
      {{"keys"},
       {"FILE"},
       with_json({"-t,--tree", "--from", "--to", "--prefix", "--limit", "--key-format"})},
      {{"scan"},
       {"FILE"},
       with_json({"-t,--tree", "--from", "--to", "--prefix", "--limit", "--key-format",
                  "--value-format"})},
      {{"dump"}, {"FILE"}, with_json({"-t,--tree", "-a,--all", "-o,--output", "-p,--print"})},
      {{"load"}, {"FILE"}, with_json({"-t,--tree", "-i,--input", "--append", "--batch", "--io"})},
      {{"copy"},
       {"SRC", "DST"},
       {"-h,--help", "-c,--compact", "-f,--force", "--json", "--since", "--at"}},
      {{"pages"}, {"FILE"}, json},
      {{"page"}, {"FILE", "N"}, with_json({"--hex", "--key-format"})},
      {{"free"}, {"FILE"}, json},
      {{"readers"}, {"FILE"}, json},
      {{"upgrade"}, {"FILE"}, with_json({"--log-bytes"})},
      {{"diff"}, {"FILE"}, with_json({"--since", "-t,--tree", "--key-format", "--value-format"})},
      {{"restore"}, {"FILE", "DELTA"}, json},
      {{"snapshot"}, {}, {"-h,--help"}},
      {{"snapshot", "keep"}, {"FILE"}, json},
      {{"snapshot", "release"}, {"FILE", "TXN"}, json},
      {{"snapshot", "list"}, {"FILE"}, json},
  };
  for (const Case& c : cases) {
    Words args = c.command;
    args.push_back("--help");
    SCOPED_TRACE(c.command.back());
    const ProcessResult r = ordo_tool(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const HelpListing help = listing(r.out);
    EXPECT_EQ(help.positionals, c.positionals) << r.out;
    EXPECT_EQ(help.options, c.options) << r.out;
    // Every command's help ends with the exit codes.
    EXPECT_NE(r.out.find("Exit codes:\n  0  success"), std::string::npos) << r.out;
  }
  const HelpListing snapshot = listing(ordo_tool({"snapshot", "--help"}).out);
  EXPECT_EQ(snapshot.subcommands, (Words{"keep", "release", "list"}));
}

}  // namespace
}  // namespace ordo
