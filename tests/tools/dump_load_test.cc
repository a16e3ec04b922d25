// `ordo dump` and `ordo load`: dump -> load -> dump is identical; the LMDB
// round trip through the real mdb_dump and mdb_load; every bad input is a
// clear error naming its line, a non-zero exit, and leaves the target as it
// was.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "ordo/database.h"
#include "ordo_util.h"

namespace ordo {
namespace {

std::string fmt_hex(unsigned char c) {
  static const char* d = "0123456789abcdef";
  return {d[c >> 4], d[c & 15]};
}

using testing::ordo_tool;
using testing::ProcessResult;
using testing::read_file;
using testing::sh_quote;
using testing::shell;
using testing::TempDir;
using testing::write_file;

// Several trees with empty keys and values, binary keys and a binary tree
// name, 1000-byte keys (the limit at 4 KiB pages) and overflow values.
void build_varied(const std::string& path) {
  auto db = Database::open(path);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  auto w = (*db)->begin_write();
  ASSERT_TRUE(w->put(w->default_tree(), "", "").is_ok());
  ASSERT_TRUE(w->put(w->default_tree(), "plain", "text with spaces\\and a backslash").is_ok());
  auto bin = w->create_tree(std::string("bin\x00\xff\n\\", 7));
  std::mt19937_64 rng(42);
  for (int i = 0; i < 300; ++i) {
    std::string k(8 + rng() % 40, '\0'), v(rng() % 80, '\0');
    for (char& c : k) c = static_cast<char>(rng());
    for (char& c : v) c = static_cast<char>(rng());
    ASSERT_TRUE(w->put(*bin, k, v).is_ok());
  }
  ASSERT_TRUE(w->put(*bin, "", "empty key in a named tree").is_ok());
  auto big = w->create_tree("big");
  for (int i = 0; i < 40; ++i) {
    std::string k(1000, static_cast<char>('a' + i % 26));
    k[0] = static_cast<char>(i);
    ASSERT_TRUE(w->put(*big, k, std::string(i % 3 == 0 ? 70000 + i : i, 'v')).is_ok());
  }
  auto empty_values = w->create_tree("empty values");
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(w->put(*empty_values, "k" + std::to_string(i), "").is_ok());
  }
  ASSERT_TRUE(w->commit().is_ok());
}

class ToolDumpLoadTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(ToolDumpLoadTest, DumpLoadDumpIsIdenticalInBothFormats) {
  const std::string src = dir_.file("src.ordo");
  build_varied(src);
  for (const bool print : {false, true}) {
    const std::string tag = print ? "print" : "bytevalue";
    std::vector<std::string> args = {"dump", "--all", src, "-o", dir_.file("d1." + tag)};
    if (print) args.push_back("-p");
    ProcessResult r = ordo_tool(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string d1 = read_file(dir_.file("d1." + tag));
    EXPECT_NE(d1.find("VERSION=3\nformat=" + tag + "\n"), std::string::npos);
    EXPECT_NE(d1.find("database=big\n"), std::string::npos);
    EXPECT_NE(d1.find("ordo_name=print\ndatabase=bin\\00\\ff\\0a\\5c\n"), std::string::npos);
    const std::string copy = dir_.file("loaded." + tag + ".ordo");
    r = ordo_tool({"load", copy, "-i", dir_.file("d1." + tag), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(testing::parse_json(r)["records"].get<uint64_t>(), 2 + 301 + 40 + 50);
    args = {"dump", "--all", copy, "-o", dir_.file("d2." + tag)};
    if (print) args.push_back("-p");
    r = ordo_tool(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(d1 == read_file(dir_.file("d2." + tag))) << tag;
    r = ordo_tool({"check", copy});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  // The same through a pipe: dump to stdout, load from stdin.
  const ProcessResult piped =
      shell(std::string(ORDO_TOOL_PATH) + " dump --all " + sh_quote(src) + " | " + ORDO_TOOL_PATH +
            " load " + sh_quote(dir_.file("piped.ordo")));
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  ASSERT_EQ(ordo_tool({"dump", "--all", dir_.file("piped.ordo"), "-o", dir_.file("d3")}).exit_code,
            0);
  EXPECT_TRUE(read_file(dir_.file("d1.bytevalue")) == read_file(dir_.file("d3")));
}

TEST_F(ToolDumpLoadTest, OneTreeIntoAnotherAndAppend) {
  const std::string src = dir_.file("src.ordo");
  build_varied(src);
  ASSERT_EQ(ordo_tool({"dump", src, "--tree", "big", "-o", dir_.file("big")}).exit_code, 0);
  const std::string dst = dir_.file("dst.ordo");
  ProcessResult r =
      ordo_tool({"load", dst, "--tree", "renamed", "--append", "-i", dir_.file("big")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ordo_tool({"trees", dst, "--json"});
  const auto j = testing::parse_json(r);
  EXPECT_EQ(j["trees"][1]["name"], "renamed");
  EXPECT_EQ(j["trees"][1]["entries"], 40u);
  // Appending the same keys again is out of order: named by line.
  r = ordo_tool({"load", dst, "--tree", "renamed", "--append", "-i", dir_.file("big")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("line 7:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--append"), std::string::npos) << r.err;
}

// --io chooses the write backend of the load; uring either loads or fails
// naming io_uring; another value is a usage error.
TEST_F(ToolDumpLoadTest, IoChoosesTheWriteBackend) {
  const std::string src = dir_.file("src.ordo");
  build_varied(src);
  ASSERT_EQ(ordo_tool({"dump", src, "--tree", "big", "-o", dir_.file("big")}).exit_code, 0);
  ProcessResult r =
      ordo_tool({"load", dir_.file("posix.ordo"), "--io", "posix", "-i", dir_.file("big")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = ordo_tool({"load", dir_.file("uring.ordo"), "--io", "uring", "-i", dir_.file("big")});
  if (r.exit_code != 0) {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("io_uring"), std::string::npos) << r.err;
  }
  r = ordo_tool({"load", dir_.file("other.ordo"), "--io", "aio", "-i", dir_.file("big")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// Bad inputs: each a clear error naming the line, exit 1, and the target
// database byte for byte as it was (and no file at all when the load would
// have created it).
TEST_F(ToolDumpLoadTest, BadInputLeavesTheTargetUnchanged) {
  const std::string target = dir_.file("target.ordo");
  {
    auto db = Database::open(target);
    auto w = (*db)->begin_write();
    ASSERT_TRUE(w->put(*w->create_tree("t"), "existing", "value").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  const std::string before = read_file(target);
  const std::string good =
      "VERSION=3\nformat=bytevalue\ndatabase=t\ntype=btree\nHEADER=END\n 6b31\n 7631\n 6b32\n "
      "7632\nDATA=END\n";
  struct Case {
    const char* name;
    std::string text;
    const char* line;
    const char* what;
  };
  const std::vector<Case> cases = {
      {"truncated", good.substr(0, good.size() - 15), "line 8:", "truncated"},
      {"odd-length hex",
       good + "VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n 616\n 62\nDATA=END\n",
       "line 15:", "odd number of hex digits"},
      {"bad hex digit", "VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n 6x\n 62\nDATA=END\n",
       "line 5:", "not a hex digit"},
      {"missing HEADER=END", "VERSION=3\nformat=bytevalue\ntype=btree\n 6b\n 76\nDATA=END\n",
       "line 4:", "HEADER=END"},
      {"VERSION=4", "VERSION=4\nformat=bytevalue\ntype=btree\nHEADER=END\nDATA=END\n",
       "line 1:", "unsupported VERSION 4"},
      {"key over the limit",
       good + "VERSION=3\nformat=print\ntype=btree\nHEADER=END\n " + std::string(1001, 'k') +
           "\n v\nDATA=END\n",
       "line 15:", "exceeds the maximum of 1000"},
      {"value line without a key", good + " 6b33\n", "line 11:", "a value line without a key"},
      {"key without a value",
       "VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n 6b\nDATA=END\n",
       "line 6:", "a key without a value"},
      {"duplicates", "VERSION=3\nformat=bytevalue\ntype=btree\ndupsort=1\nHEADER=END\nDATA=END\n",
       "line 4:", "unsupported LMDB flag dupsort"},
      {"bad print escape",
       "VERSION=3\nformat=print\ntype=btree\nHEADER=END\n a\\zz\n b\nDATA=END\n",
       "line 5:", "bad escape"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string input = dir_.file("bad");
    write_file(input, c.text);
    ProcessResult r = ordo_tool({"load", target, "-i", input});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(c.line), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.what), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was loaded"), std::string::npos) << r.err;
    EXPECT_TRUE(testing::terminal_safe(r.err)) << r.err;
    EXPECT_TRUE(read_file(target) == before) << "the target changed";
    // Into a new file: no file is left behind.
    const std::string fresh = dir_.file("fresh.ordo");
    r = ordo_tool({"load", fresh, "-i", input});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_FALSE(std::filesystem::exists(fresh));
  }
  // A read-only file is refused (even for root), unchanged.
  write_file(dir_.file("good"), good);
  ASSERT_EQ(::chmod(target.c_str(), 0444), 0);
  ProcessResult r = ordo_tool({"load", target, "-i", dir_.file("good")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
  EXPECT_TRUE(read_file(target) == before);
  ASSERT_EQ(::chmod(target.c_str(), 0644), 0);
  // --batch keeps the batches committed before an error, and says so.
  write_file(dir_.file("half"), good + " 6b33\n");
  r = ordo_tool({"load", target, "--batch", "1", "-i", dir_.file("half")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the first 2 records were committed"), std::string::npos) << r.err;
  // And a good load goes in.
  r = ordo_tool({"load", target, "-i", dir_.file("good")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = ordo_tool({"get", target, "--tree", "t", "k2"});
  EXPECT_EQ(r.out, "v2\n");
}

// LMDB -> ordo -> LMDB with the real mdb_dump and mdb_load (lmdb-utils):
// the dumps before and after are identical, in both formats.
TEST(ToolLmdbTest, RoundTripThroughOrdoIsIdentical) {
  for (const char* tool : {"/usr/bin/mdb_dump", "/usr/bin/mdb_load"}) {
    ASSERT_EQ(::access(tool, X_OK), 0)
        << tool << " is missing: install lmdb-utils (tools/dev test does)";
  }
  TempDir dir;
  // The LMDB source: three named databases made with mdb_load from a dump:
  // binary keys, empty values, 511-byte keys (LMDB's limit), values on
  // LMDB overflow pages.
  std::mt19937_64 rng(7);
  std::string d0;
  for (const char* name : {"nodes", "edges", "blobs"}) {
    d0 +=
        std::string("VERSION=3\nformat=bytevalue\ndatabase=") + name + "\ntype=btree\nHEADER=END\n";
    std::map<std::string, std::string> records;
    for (int i = 0; i < 60; ++i) {
      std::string k(1 + rng() % (i % 10 == 0 ? 511 : 24), '\0'), v;
      // No backslash: mdb_dump -p prints it bare, which no loader reads back.
      for (char& c : k) c = static_cast<char>(rng());
      for (char& c : k) c = c == 0x5c ? 0x5d : c;
      if (i % 7 != 0) v.resize(std::string(name) == "blobs" ? 3000 + rng() % 5000 : rng() % 60);
      for (char& c : v) c = static_cast<char>(rng());
      for (char& c : v) c = c == 0x5c ? 0x5d : c;
      records[k] = v;
    }
    for (const auto& [k, v] : records) {
      d0 += " ";
      for (unsigned char c : k) d0 += fmt_hex(c);
      d0 += "\n ";
      for (unsigned char c : v) d0 += fmt_hex(c);
      d0 += "\n";
    }
    d0 += "DATA=END\n";
  }
  write_file(dir.file("d0"), d0);
  const std::string env1 = dir.file("env1"), env3 = dir.file("env3");
  ProcessResult r = testing::run_process({"/usr/bin/mdb_load", "-n", "-f", dir.file("d0"), env1});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const bool print : {false, true}) {
    SCOPED_TRACE(print ? "print" : "bytevalue");
    const std::string p = print ? " -p" : "";
    const std::string tag = print ? "p" : "b";
    r = shell("/usr/bin/mdb_dump -n -a" + p + " " + sh_quote(env1) + " > " +
              sh_quote(dir.file("d1" + tag)));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string ordo_file = dir.file("o" + tag + ".ordo");
    r = ordo_tool({"load", ordo_file, "-i", dir.file("d1" + tag)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");  // LMDB's header lines are understood, not warned about
    r = ordo_tool(
        print
            ? std::vector<std::string>{"dump", "--all", "-p", ordo_file, "-o", dir.file("d2" + tag)}
            : std::vector<std::string>{"dump", "--all", ordo_file, "-o", dir.file("d2" + tag)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::filesystem::remove(env3);
    std::filesystem::remove(env3 + "-lock");
    r = testing::run_process({"/usr/bin/mdb_load", "-n", "-f", dir.file("d2" + tag), env3});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");  // nor are ordo's by mdb_load
    r = shell("/usr/bin/mdb_dump -n -a" + p + " " + sh_quote(env3) + " > " +
              sh_quote(dir.file("d3" + tag)));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string d1 = read_file(dir.file("d1" + tag)), d3 = read_file(dir.file("d3" + tag));
    EXPECT_GT(d1.size(), 10000u);
    EXPECT_TRUE(d1 == d3) << "LMDB dumps differ after the trip through ordo";
  }
}

}  // namespace
}  // namespace ordo
