// sys/temp_dir.h: a fresh private directory, removed with its contents.
#include "ordo/sys/temp_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

namespace ordo::sys {
namespace {

namespace fs = std::filesystem;

TEST(SysTempDir, MadeFreshAndRemovedWithItsContents) {
  std::string path;
  {
    Result<TempDir> dir = TempDir::make("ordo-sys-test.");
    ASSERT_TRUE(dir.is_ok()) << dir.status().to_string();
    path = dir->path();
    EXPECT_EQ(path.rfind(temp_root() + "/ordo-sys-test.", 0), 0u) << path;
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    Result<TempDir> other = TempDir::make("ordo-sys-test.");
    ASSERT_TRUE(other.is_ok());
    EXPECT_NE(other->path(), path);
    fs::create_directories(dir->file("sub"));
    std::ofstream(dir->file("sub/f")) << "x";
    TempDir moved = std::move(*dir);
    EXPECT_EQ(dir->path(), "");
    EXPECT_TRUE(fs::exists(moved.file("sub/f")));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(SysTempDir, UnderAGivenBase) {
  Result<TempDir> base = TempDir::make("ordo-sys-test.");
  ASSERT_TRUE(base.is_ok());
  Result<std::string> inner = make_temp_dir("x-", base->path());
  ASSERT_TRUE(inner.is_ok()) << inner.status().to_string();
  EXPECT_EQ(inner->rfind(base->path() + "/x-", 0), 0u);
  EXPECT_TRUE(fs::is_directory(*inner));
  Result<std::string> missing = make_temp_dir("x-", base->file("none"));
  ASSERT_TRUE(missing.status().is_io_error());
  EXPECT_EQ(missing.status().errno_value(), ENOENT);
  EXPECT_EQ(missing.status().message().rfind("mkdtemp " + base->file("none") + "/x-XXXXXX: ", 0),
            0u)
      << missing.status().message();
}

}  // namespace
}  // namespace ordo::sys
