// Where the tool writes: a dump never lands on the database it reads, a
// failed dump leaves whatever was at its output path as it was, a reader
// that goes away (`| head`) ends a command with exit 1 and one message, and
// a dump warns of what LMDB's mdb_load cannot load.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "ordo/database.h"
#include "ordo_util.h"

namespace ordo {
namespace {

using testing::ordo_tool;
using testing::ProcessResult;
using testing::read_file;
using testing::sh_quote;
using testing::shell;
using testing::TempDir;
using testing::write_file;

const std::string kTool = sh_quote(ORDO_TOOL_PATH);

// `entries` keys in the default tree, 100-byte values. 100000 make some
// 3000 pages: every listing is well over a pipe's 64 KiB.
void build(const std::string& path, int entries) {
  auto db = Database::open(path);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  auto w = (*db)->begin_write();
  for (int i = 0; i < entries; ++i) {
    ASSERT_TRUE(
        w->put(w->default_tree(), "key" + std::to_string(1000000 + i), std::string(100, 'v'))
            .is_ok());
  }
  ASSERT_TRUE(w->commit().is_ok());
}

// Names in `dir` that start with '.' (temporary files).
std::vector<std::string> hidden_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name[0] == '.') out.push_back(name);
  }
  return out;
}

class ToolOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.file("db.ordo");
    build(db_, 100000);
    bytes_ = read_file(db_);
  }
  // The database is byte for byte as built, and checks clean.
  void expect_database_intact() {
    EXPECT_TRUE(read_file(db_) == bytes_) << "the database changed";
    const ProcessResult r = ordo_tool({"check", db_});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  TempDir dir_;
  std::string db_;
  std::string bytes_;
};

TEST_F(ToolOutputTest, DumpRefusesTheDatabaseItReads) {
  ASSERT_EQ(::symlink(db_.c_str(), dir_.file("link").c_str()), 0);
  ASSERT_EQ(::link(db_.c_str(), dir_.file("hard").c_str()), 0);
  for (const std::string& out :
       {db_, dir_.file("link"), dir_.file("hard"), dir_.path() + "/./db.ordo"}) {
    SCOPED_TRACE(out);
    const ProcessResult r = ordo_tool({"dump", db_, "--all", "-o", out});
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("is the database being dumped"), std::string::npos) << r.err;
    expect_database_intact();
  }
  EXPECT_TRUE(std::filesystem::is_symlink(dir_.file("link")));
  // stdout appended to the database itself.
  ProcessResult r = shell(kTool + " dump " + sh_quote(db_) + " >> " + sh_quote(db_));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("is the database being dumped"), std::string::npos) << r.err;
  r = shell(kTool + " copy " + sh_quote(db_) + " - >> " + sh_quote(dir_.file("hard")));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("is the database being copied"), std::string::npos) << r.err;
  // copy refuses it too, also with --force.
  r = ordo_tool({"copy", db_, dir_.file("link"), "--force"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("is the database being copied"), std::string::npos) << r.err;
  expect_database_intact();
}

// A dump that fails (a file size limit, SIGXFSZ ignored: writes fail with
// EFBIG) leaves an existing file and a symlink's target as they were, and
// no temporary file.
TEST_F(ToolOutputTest, AFailedDumpLeavesTheOutputPathAsItWas) {
  const std::string old_file = dir_.file("old.dump");
  const std::string target = dir_.file("target.dump");
  const std::string link = dir_.file("link.dump");
  write_file(old_file, "old contents\n");
  write_file(target, "target contents\n");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  for (const std::string& out : {old_file, link, dir_.file("new.dump")}) {
    SCOPED_TRACE(out);
    const ProcessResult r = shell("trap '' XFSZ; ulimit -f 16; " + kTool + " dump " +
                                  sh_quote(db_) + " -o " + sh_quote(out));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
    EXPECT_TRUE(hidden_files(dir_.path()).empty());
  }
  EXPECT_EQ(read_file(old_file), "old contents\n");
  EXPECT_EQ(read_file(target), "target contents\n");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_FALSE(std::filesystem::exists(dir_.file("new.dump")));
  // Without the limit the dump replaces the file.
  const ProcessResult r = ordo_tool({"dump", db_, "-o", old_file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(old_file).rfind("VERSION=3\n", 0), 0u);
  EXPECT_TRUE(hidden_files(dir_.path()).empty());
}

// A FIFO (like a device) is written in place; a failed dump into it (the
// reader leaves) does not remove it.
TEST_F(ToolOutputTest, ADumpIntoAFifoNeverRemovesIt) {
  const std::string fifo = dir_.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ProcessResult r = shell("head -c 10 " + sh_quote(fifo) + " > /dev/null & " + kTool + " dump " +
                          sh_quote(db_) + " -o " + sh_quote(fifo) + "; rc=$?; wait; exit $rc");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("Broken pipe"), std::string::npos) << r.err;
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0) << "the FIFO was removed";
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  r = shell("cat " + sh_quote(fifo) + " > " + sh_quote(dir_.file("got")) + " & " + kTool +
            " dump " + sh_quote(db_) + " -o " + sh_quote(fifo) + "; rc=$?; wait; exit $rc");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir_.file("got")), ordo_tool({"dump", db_}).out);
  // `copy --force` streams into it too, and leaves it a FIFO.
  r = shell("cat " + sh_quote(fifo) + " > " + sh_quote(dir_.file("copy")) + " & " + kTool +
            " copy --force " + sh_quote(db_) + " " + sh_quote(fifo) + "; rc=$?; wait; exit $rc");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ordo_tool({"check", dir_.file("copy")}).exit_code, 0);
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_TRUE(hidden_files(dir_.path()).empty());
  // "-o -" is stdout, not a file named "-".
  r = shell("cd " + sh_quote(dir_.path()) + " && " + kTool + " dump " + sh_quote(db_) + " -o -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ordo_tool({"dump", db_}).out);
  EXPECT_FALSE(std::filesystem::exists(dir_.file("-")));
}

// `| head`: exit 1 (not SIGPIPE's 141) and one short message on stderr.
TEST_F(ToolOutputTest, AReaderThatGoesAwayEndsTheCommand) {
  for (const std::string& command :
       {"pages " + sh_quote(db_), "keys " + sh_quote(db_), "scan " + sh_quote(db_),
        "dump " + sh_quote(db_), "copy " + sh_quote(db_) + " -"}) {
    SCOPED_TRACE(command);
    const ProcessResult r =
        shell("(" + kTool + " " + command + "; echo \"exit $?\" >&2) | head -c 10 > /dev/null");
    EXPECT_NE(r.err.find("exit 1\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Broken pipe"), std::string::npos) << r.err;
    EXPECT_LT(r.err.size(), 200u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << "one message: " << r.err;
  }
}

// A load that fails removes the file it created and nothing else: through
// a symlink whose target does not exist yet, the target goes, the link stays.
TEST_F(ToolOutputTest, AFailedLoadRemovesOnlyAFileItCreated) {
  const std::string link = dir_.file("link.ordo");
  ASSERT_EQ(::symlink(dir_.file("target.ordo").c_str(), link.c_str()), 0);
  write_file(dir_.file("bad"), "VERSION=3\nformat=bytevalue\nHEADER=END\n 6x\n 62\nDATA=END\n");
  ProcessResult r = ordo_tool({"load", link, "-i", dir_.file("bad")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_FALSE(std::filesystem::exists(dir_.file("target.ordo")));
  // A file the load created is removed.
  r = ordo_tool({"load", dir_.file("new.ordo"), "-i", dir_.file("bad")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("new.ordo")));
}

TEST_F(ToolOutputTest, DumpWarnsOfWhatMdbLoadCannotLoad) {
  ProcessResult r = ordo_tool({"dump", db_, "--all", "-o", dir_.file("d")});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  {
    auto db = Database::open(db_);
    ASSERT_TRUE(db.is_ok());
    auto w = (*db)->begin_write();
    ASSERT_TRUE(w->put(*w->create_tree("with empty"), "", "v").is_ok());
    ASSERT_TRUE(w->put(*w->create_tree("line\nbreak"), "k", "v").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  r = ordo_tool({"dump", db_, "--all", "-o", dir_.file("d")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: tree 'with empty': an empty key"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("warning: tree 'line\\0abreak': a name with control characters"),
            std::string::npos)
      << r.err;
  r = ordo_tool({"dump", db_, "--tree", "with empty"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("mdb_load refuses"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ordo
