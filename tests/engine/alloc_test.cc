// Heap allocations on the put hot path: sequential puts in a write txn allocate
// (through operator new) only when a page splits or a new page is taken, never per put.
// Its own binary: it replaces the global operator new and delete to count calls.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "engine_test_util.h"
#include "io_test_util.h"

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// The replaced operator new allocates with malloc, so free is the matching call; GCC
// (with the sanitizer's inlining) takes free after `new` for a mismatch.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace ordo {
namespace {

TEST(AllocTest, SequentialPutsDoNotAllocatePerPut) {
  io::testing::TempDir dir;
  auto db = testing::open_db(dir.file("alloc.ordo"));
  ASSERT_NE(db, nullptr);
  auto w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  auto tree = w->create_tree("t");
  ASSERT_TRUE(tree.is_ok());
  const std::string value(40, 'v');
  std::string key = testing::be_key(0);  // reused: the test itself allocates nothing per put
  uint64_t i = 0;
  for (; i < 20'000; ++i) {  // warm up: scratch buffers, hash tables, a deep tree
    key = testing::be_key(i);
    ASSERT_TRUE(w->put(*tree, key, value).is_ok());
  }
  constexpr uint64_t kPuts = 10'000;
  const uint64_t before = g_allocations.load();
  for (uint64_t end = i + kPuts; i < end; ++i) {
    for (int b = 7, v = 0; b >= 0; --b, ++v) key[b] = static_cast<char>((i >> (8 * v)) & 0xff);
    ASSERT_TRUE(w->put(*tree, key, value).is_ok());
  }
  const uint64_t allocations = g_allocations.load() - before;
  std::printf("%llu allocations in %llu sequential puts\n",
              static_cast<unsigned long long>(allocations), static_cast<unsigned long long>(kPuts));
  // ~70 entries of 56 bytes per 4 KiB leaf: about 150 new leaves (and their bookkeeping)
  // in 10,000 puts. One allocation per put would be 10,000.
  EXPECT_LT(allocations, kPuts / 10);
  ASSERT_TRUE(w->commit().is_ok());
}

}  // namespace
}  // namespace ordo
