// PageAllocator: reusable pages before new ones, the newest given back first,
// reclaimed pages lowest first; runs always at the end; a locked pool.
#include "page_allocator.h"

#include <gtest/gtest.h>

namespace ordo::engine {
namespace {

TEST(PageAllocatorTest, NewPagesStartAtTheHighWaterMark) {
  PageAllocator a(10);
  EXPECT_TRUE(a.wants_reclaim());
  EXPECT_EQ(a.take(), 10u);
  EXPECT_EQ(a.take(), 11u);
  EXPECT_EQ(a.next_page(), 12u);
}

TEST(PageAllocatorTest, GivenBackPagesAreTakenNewestFirstBeforeNewOnes) {
  PageAllocator a(10);
  const btree::PageNo p = a.take(), q = a.take();
  a.give_back(p);
  a.give_back(q);
  EXPECT_FALSE(a.wants_reclaim());
  EXPECT_EQ(a.take(), q);
  EXPECT_EQ(a.take(), p);
  EXPECT_EQ(a.take(), 12u);
}

TEST(PageAllocatorTest, ReclaimedPagesComeLowestFirstAfterGivenBackOnes) {
  PageAllocator a(100);
  a.give_back(a.take());  // page 100
  a.add_reclaimed({7, 3, 5});
  EXPECT_EQ(a.take(), 100u);
  EXPECT_EQ(a.take(), 3u);
  EXPECT_EQ(a.take(), 5u);
  EXPECT_EQ(a.take(), 7u);
  EXPECT_EQ(a.take(), 101u);
}

TEST(PageAllocatorTest, RunsAreNewPagesAndOnlyOwnRunsComeBack) {
  PageAllocator a(20);
  a.add_reclaimed({4, 5, 6});
  const btree::PageNo first = a.take_run(3);
  EXPECT_EQ(first, 20u);  // never from the pool: a run needs adjacent pages
  EXPECT_EQ(a.next_page(), 23u);
  EXPECT_FALSE(a.give_back_run(4, 2));  // not a run of this txn
  EXPECT_EQ(a.pool().size(), 3u);
  EXPECT_TRUE(a.give_back_run(first, 3));
  EXPECT_FALSE(a.give_back_run(first, 3));  // only once
  EXPECT_EQ(a.pool().size(), 6u);
  EXPECT_EQ(a.take(), 22u);
}

TEST(PageAllocatorTest, LockedPoolHandsOutNewPagesOnly) {
  PageAllocator a(30);
  a.add_reclaimed({2});
  a.lock_pool();
  EXPECT_FALSE(a.wants_reclaim());
  EXPECT_EQ(a.take(), 30u);
  EXPECT_EQ(a.pool().size(), 1u);
}

TEST(PageAllocatorTest, PoolChangesCountEveryChange) {
  PageAllocator a(30);
  uint64_t before = a.pool_changes();
  (void)a.take();  // a new page: the pool is unchanged
  EXPECT_EQ(a.pool_changes(), before);
  a.give_back(30);
  EXPECT_NE(a.pool_changes(), before);
  before = a.pool_changes();
  (void)a.take();
  EXPECT_NE(a.pool_changes(), before);
  before = a.pool_changes();
  a.add_reclaimed({3});
  EXPECT_NE(a.pool_changes(), before);
}

}  // namespace
}  // namespace ordo::engine
