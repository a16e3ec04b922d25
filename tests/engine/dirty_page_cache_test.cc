// DirtyPageCache: in-memory dirty pages, spilling the chosen leaves to their
// page numbers, reading them back when touched, and dropping freed pages.
#include "dirty_page_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "ordo/btree/page_format.h"
#include "page_file_fixture.h"

namespace ordo::engine {
namespace {

constexpr uint32_t kPageSize = 4096;
constexpr uint64_t kHighWater = 10;

class DirtyPageCacheTest : public testing::PageFileTest {
 protected:
  void SetUp() override {
    testing::PageFileTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(file_->grow_to(kHighWater * kPageSize).is_ok());
  }

  // A new dirty page of `type`, filled with `fill` past its type byte.
  void add(DirtyPageCache& cache, btree::PageNo pg, btree::PageType type, uint8_t fill) {
    std::byte* p = cache.add(pg);
    std::memset(p, fill, kPageSize);
    p[btree::kOffType] = static_cast<std::byte>(type);
  }

  PageBuffers buffers_{kPageSize};
};

TEST_F(DirtyPageCacheTest, AddFindDrop) {
  DirtyPageCache cache(*file_, buffers_, kPageSize, kHighWater);
  EXPECT_EQ(cache.find(12), nullptr);
  EXPECT_FALSE(cache.contains(12));
  add(cache, 12, btree::PageType::kLeaf, 0xab);
  ASSERT_NE(cache.find(12), nullptr);
  EXPECT_EQ(cache.find(12)[1], std::byte{0xab});
  EXPECT_TRUE(cache.contains(12));
  EXPECT_EQ(cache.size(), 1u);
  auto spans = cache.write_spans();
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].offset_bytes, 12u * kPageSize);
  EXPECT_EQ(spans[0].size_bytes, kPageSize);
  EXPECT_TRUE(cache.drop(12));
  EXPECT_FALSE(cache.contains(12));
  EXPECT_FALSE(cache.drop(12));
  EXPECT_FALSE(cache.drop(3));  // a committed page is not the cache's
}

// Pages a stride apart, added, found, half dropped, the rest found again:
// each keeps its own bytes while the table grows and closes the gaps drops
// leave.
TEST_F(DirtyPageCacheTest, StridedPagesKeepTheirBytesThroughGrowthAndDrops) {
  DirtyPageCache cache(*file_, buffers_, kPageSize, kHighWater);
  constexpr uint64_t kStride = 1024;
  constexpr uint64_t kPages = 3000;
  const auto page = [](uint64_t i) { return kHighWater + i * kStride; };
  for (uint64_t i = 0; i < kPages; ++i) {
    add(cache, page(i), btree::PageType::kLeaf, static_cast<uint8_t>(i));
  }
  ASSERT_EQ(cache.size(), kPages);
  for (uint64_t i = 0; i < kPages; i += 2) ASSERT_TRUE(cache.drop(page(i))) << i;
  EXPECT_EQ(cache.size(), kPages / 2);
  for (uint64_t i = 0; i < kPages; ++i) {
    const std::byte* p = cache.find(page(i));
    if (i % 2 == 0) {
      EXPECT_EQ(p, nullptr) << i;
      EXPECT_FALSE(cache.contains(page(i))) << i;
    } else {
      ASSERT_NE(p, nullptr) << i;
      EXPECT_EQ(p[1], static_cast<std::byte>(i)) << i;
      EXPECT_EQ(cache.writable(page(i)), p) << i;  // in place: no copy
    }
  }
  EXPECT_EQ(cache.write_spans().size(), kPages / 2);
}

// The hash spreads page numbers a stride apart over its low bits (the table's
// slot): 4096 pages of one stride take most of the 4096 values of 12 bits,
// where page numbers as their own hash would take 4096 / stride of them.
TEST(DirtyPageHashTest, StridedPagesSpreadOverTheLowBits) {
  constexpr uint64_t kPages = 4096;
  for (const uint64_t stride : {uint64_t{1}, uint64_t{2}, uint64_t{1024}, uint64_t{65536}}) {
    std::vector<bool> taken(kPages);
    uint64_t distinct = 0;
    for (uint64_t i = 0; i < kPages; ++i) {
      const size_t slot = DirtyPageHash{}(kHighWater + i * stride) & (kPages - 1);
      if (!taken[slot]) ++distinct;
      taken[slot] = true;
    }
    EXPECT_GE(distinct, kPages * 55 / 100) << "stride " << stride;
  }
}

TEST_F(DirtyPageCacheTest, SpillWritesOldLeavesAndReadsThemBack) {
  const SpillPolicy policy(kPageSize, 1u << 20);
  const uint64_t n = policy.budget_pages() + 1;
  DirtyPageCache cache(*file_, buffers_, kPageSize, kHighWater);
  // One reused page below the high-water mark, one branch, the rest leaves,
  // added oldest first.
  add(cache, 5, btree::PageType::kLeaf, 5);
  add(cache, kHighWater, btree::PageType::kBranch, 1);
  for (uint64_t i = 1; i + 1 < n; ++i) {
    add(cache, kHighWater + i, btree::PageType::kLeaf, static_cast<uint8_t>(i));
  }
  ASSERT_TRUE(policy.over_budget(cache.size()));
  ASSERT_TRUE(cache.spill(policy, kHighWater + n).is_ok());
  const uint64_t spilled = n - policy.budget_pages() / 2;
  EXPECT_EQ(cache.pages_spilled(), spilled);
  EXPECT_EQ(cache.size(), n - spilled);
  EXPECT_EQ(cache.write_spans().size(), n - spilled);
  // The oldest leaves went, the branch stayed, the newest leaf stayed.
  EXPECT_TRUE(cache.is_spilled(5));
  EXPECT_EQ(cache.find(5), nullptr);
  EXPECT_TRUE(cache.contains(5));
  EXPECT_NE(cache.find(kHighWater), nullptr);
  EXPECT_TRUE(cache.is_spilled(kHighWater + 1));
  EXPECT_FALSE(cache.is_spilled(kHighWater + n - 2));
  EXPECT_NE(cache.find(kHighWater + n - 2), nullptr);
  // On disk at their page numbers, and back in memory when touched.
  const std::byte* on_disk = file_->data((kHighWater + 1) * kPageSize, kPageSize);
  ASSERT_NE(on_disk, nullptr);
  EXPECT_EQ(on_disk[1], std::byte{1});
  std::byte* back = cache.writable(kHighWater + 1);
  EXPECT_EQ(back[1], std::byte{1});
  EXPECT_FALSE(cache.is_spilled(kHighWater + 1));
  EXPECT_EQ(cache.find(kHighWater + 1), back);
  // A spilled page that is freed is dropped from the bookkeeping.
  EXPECT_TRUE(cache.drop(5));
  EXPECT_FALSE(cache.contains(5));
}

TEST_F(DirtyPageCacheTest, NothingToSpillUnderHalfTheBudget) {
  const SpillPolicy policy(kPageSize, 1u << 20);
  DirtyPageCache cache(*file_, buffers_, kPageSize, kHighWater);
  for (uint64_t i = 0; i < 4; ++i) add(cache, kHighWater + i, btree::PageType::kLeaf, 7);
  ASSERT_TRUE(cache.spill(policy, kHighWater + 4).is_ok());
  EXPECT_EQ(cache.pages_spilled(), 0u);
  EXPECT_EQ(cache.size(), 4u);
}

}  // namespace
}  // namespace ordo::engine
