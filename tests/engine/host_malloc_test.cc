// A program that links ordo keeps its own allocator: after ordo opened a database and
// committed (so it allocated pages), the process's malloc and operator new still resolve
// into libc and libstdc++, and no mimalloc symbol is in the global scope; ordo's own
// page buffers come from mimalloc where it is installed.
// Its own binary: it inspects process-wide symbol binding.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <string>

#include "engine_test_util.h"
#include "page_memory.h"
#include "sanitizer_share.h"
#include "temp_dir.h"

namespace ordo {
namespace {

// The file name of the object that defines `address`, or "" when dladdr knows none.
std::string object_of(const void* address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

std::string object_of_global(const char* symbol) {
  void* address = dlsym(RTLD_DEFAULT, symbol);
  return address == nullptr ? "(undefined)" : object_of(address);
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

class HostMallocTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Make ordo allocate pages: a create, a put and a commit.
    db_ = testing::open_db(dir_.file("host.ordo"));
    ASSERT_NE(db_, nullptr);
    auto w = db_->begin_write();
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    auto tree = w->create_tree("t");
    ASSERT_TRUE(tree.is_ok()) << tree.status().to_string();
    ASSERT_TRUE(w->put(*tree, "key", "value").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }

  void TearDown() override { db_.reset(); }

  testing::TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(HostMallocTest, MallocAndOperatorNewAreNotMimallocs) {
  void* (*malloc_fn)(size_t) = &std::malloc;
  void* (*new_fn)(size_t) = &::operator new;
  const std::string malloc_object = object_of(reinterpret_cast<void*>(malloc_fn));
  const std::string new_object = object_of(reinterpret_cast<void*>(new_fn));
  std::printf("malloc from %s, operator new from %s\n", malloc_object.c_str(), new_object.c_str());
  EXPECT_FALSE(contains(malloc_object, "mimalloc")) << malloc_object;
  EXPECT_FALSE(contains(new_object, "mimalloc")) << new_object;
  EXPECT_FALSE(contains(object_of_global("malloc"), "mimalloc"));
  EXPECT_FALSE(contains(object_of_global("free"), "mimalloc"));
  EXPECT_FALSE(contains(object_of_global("_Znwm"), "mimalloc"));
  // ordo may load mimalloc for its pages, but not into the global scope.
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "mi_malloc"), nullptr);
}

TEST_F(HostMallocTest, MallocIsLibcsAndOperatorNewLibstdcxxs) {
  // The sanitizer runtime owns malloc and operator new.
  if (testing::under_sanitizer()) {
    GTEST_SKIP() << "the sanitizer runtime defines malloc and operator new";
  }
  EXPECT_TRUE(contains(object_of_global("malloc"), "libc.so.6")) << object_of_global("malloc");
  EXPECT_TRUE(contains(object_of_global("free"), "libc.so.6")) << object_of_global("free");
  EXPECT_TRUE(contains(object_of_global("_Znwm"), "libstdc++.so.6")) << object_of_global("_Znwm");
}

// ORDO_MIMALLOC_SONAME: the mimalloc this build found (tests/engine/CMakeLists.txt).
TEST_F(HostMallocTest, PagesComeFromMimallocWhenInstalled) {
#ifdef ORDO_MIMALLOC_SONAME
  EXPECT_STREQ(engine::page_allocator_name(), "mimalloc");
  EXPECT_NE(dlopen(ORDO_MIMALLOC_SONAME, RTLD_NOW | RTLD_NOLOAD), nullptr);
#else
  EXPECT_STREQ(engine::page_allocator_name(), "libc");
#endif
}

TEST_F(HostMallocTest, PageBlocksAreAlignedAndZeroed) {
  for (size_t bytes : {size_t{4096}, size_t{16384}, size_t{65536}}) {
    void* p = engine::page_alloc(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % engine::kPageAlignment, 0u);
    std::memset(p, 0xab, bytes);
    engine::page_free(p);
    auto* z = static_cast<unsigned char*>(engine::page_zalloc(bytes));
    ASSERT_NE(z, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(z) % engine::kPageAlignment, 0u);
    EXPECT_EQ(z[0], 0);
    EXPECT_EQ(z[bytes - 1], 0);
    engine::page_free(z);
  }
}

}  // namespace
}  // namespace ordo
