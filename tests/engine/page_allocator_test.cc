// PageAllocator: reusable pages before new ones, kept as merged extents; a run
// takes the smallest extent that holds it, a single page the smallest extent;
// own runs come back whole; a locked pool; undo to a savepoint's mark.
#include "page_allocator.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "engine_test_util.h"

namespace ordo::engine {
namespace {

using Extents = std::map<btree::PageNo, uint64_t>;

TEST(PageAllocatorTest, NewPagesStartAtTheHighWaterMark) {
  PageAllocator a(10);
  EXPECT_TRUE(a.wants_reclaim());
  EXPECT_EQ(a.take(), 10u);
  EXPECT_EQ(a.take(), 11u);
  EXPECT_EQ(a.next_page(), 12u);
}

TEST(PageAllocatorTest, GivenBackPagesAreTakenBeforeNewOnes) {
  PageAllocator a(10);
  const btree::PageNo p = a.take(), q = a.take();
  a.give_back(q);
  a.give_back(p);
  EXPECT_FALSE(a.wants_reclaim());
  EXPECT_EQ(a.take(), p);  // lowest first: pages taken in turn stay adjacent
  EXPECT_EQ(a.take(), q);
  EXPECT_EQ(a.take(), 12u);
}

TEST(PageAllocatorTest, ExtentsMergeWhenPagesComeBackOrAreReclaimed) {
  PageAllocator a(100);
  a.give_back(7);
  a.give_back(5);
  EXPECT_EQ(a.extents(), (Extents{{5, 1}, {7, 1}}));
  a.give_back(6);  // joins both neighbours
  EXPECT_EQ(a.extents(), (Extents{{5, 3}}));
  ASSERT_TRUE(a.add_reclaimed({9, 3, 4, 10}));
  EXPECT_EQ(a.extents(), (Extents{{3, 5}, {9, 2}}));
  ASSERT_TRUE(a.add_reclaimed({8}));
  EXPECT_EQ(a.extents(), (Extents{{3, 8}}));
  EXPECT_EQ(a.pool_size(), 8u);
  EXPECT_EQ(a.pool_pages(), (std::vector<btree::PageNo>{3, 4, 5, 6, 7, 8, 9, 10}));
}

TEST(PageAllocatorTest, ARunTakesTheSmallestExtentThatHoldsIt) {
  PageAllocator a(100);
  ASSERT_TRUE(a.add_reclaimed({10, 11, 20, 21, 22, 23, 24, 30, 31, 32, 40, 41, 42}));
  EXPECT_FALSE(a.wants_reclaim_run(3));
  EXPECT_EQ(a.take_run(3), 30u);  // extents 30 and 40 both hold 3: the lower first
  EXPECT_EQ(a.take_run(3), 40u);
  EXPECT_EQ(a.take_run(2), 10u);  // exact fit, not a split of the 5 at 20
  EXPECT_EQ(a.extents(), (Extents{{20, 5}}));
  EXPECT_EQ(a.next_page(), 100u);
}

TEST(PageAllocatorTest, ARunSplitsALargerExtentKeepingItsTail) {
  PageAllocator a(100);
  ASSERT_TRUE(a.add_reclaimed({20, 21, 22, 23, 24}));
  EXPECT_EQ(a.take_run(2), 20u);
  EXPECT_EQ(a.extents(), (Extents{{22, 3}}));
  EXPECT_EQ(a.pool_size(), 3u);
}

TEST(PageAllocatorTest, ARunNoExtentHoldsIsNewPages) {
  PageAllocator a(100);
  ASSERT_TRUE(a.add_reclaimed({10, 11, 20, 21, 22}));
  EXPECT_TRUE(a.wants_reclaim_run(4));
  EXPECT_FALSE(a.wants_reclaim());
  EXPECT_EQ(a.take_run(4), 100u);
  EXPECT_EQ(a.next_page(), 104u);
  EXPECT_EQ(a.pool_size(), 5u);
}

TEST(PageAllocatorTest, ARunTooBigForEveryExtentStartsInTheOneAtTheEnd) {
  PageAllocator a(100);
  ASSERT_TRUE(a.add_reclaimed({10, 97, 98, 99}));
  EXPECT_EQ(a.take_run(5), 97u);  // 97-99 free, 100-101 new
  EXPECT_EQ(a.next_page(), 102u);
  EXPECT_EQ(a.pool_size(), 1u);
  EXPECT_TRUE(a.give_back_run(97, 5));
  EXPECT_EQ(a.pool_size(), 6u);
  a.lock_pool();  // a locked pool hands out new pages only
  EXPECT_EQ(a.take_run(7), 102u);
}

TEST(PageAllocatorTest, SinglePagesComeFromTheSmallestExtentsFirst) {
  PageAllocator a(100);
  ASSERT_TRUE(a.add_reclaimed({10, 11, 12, 13, 20, 30, 31}));
  EXPECT_EQ(a.take(), 20u);
  EXPECT_EQ(a.take(), 30u);
  EXPECT_EQ(a.take(), 31u);
  EXPECT_EQ(a.extents(), (Extents{{10, 4}}));  // the big extent survived
  EXPECT_EQ(a.take(), 10u);
  EXPECT_EQ(a.take(), 11u);
}

TEST(PageAllocatorTest, OnlyOwnRunsComeBackAndReusedRunsAreOwn) {
  PageAllocator a(20);
  ASSERT_TRUE(a.add_reclaimed({4, 5, 6, 7}));
  const btree::PageNo reused = a.take_run(3);
  EXPECT_EQ(reused, 4u);
  const btree::PageNo fresh = a.take_run(2);
  EXPECT_EQ(fresh, 20u);
  EXPECT_EQ(a.next_page(), 22u);
  EXPECT_FALSE(a.give_back_run(7, 1));  // reusable, but not a run of this txn
  EXPECT_EQ(a.pool_size(), 1u);
  EXPECT_TRUE(a.give_back_run(reused, 3));
  EXPECT_FALSE(a.give_back_run(reused, 3));   // only once
  EXPECT_EQ(a.extents(), (Extents{{4, 4}}));  // merged with page 7 again
  EXPECT_TRUE(a.give_back_run(fresh, 2));
  EXPECT_EQ(a.extents(), (Extents{{4, 4}, {20, 2}}));
  EXPECT_EQ(a.take_run(4), 4u);  // the whole reused extent once more
}

TEST(PageAllocatorTest, APageListedTwiceIsRefused) {
  PageAllocator a(100);
  ASSERT_TRUE(a.add_reclaimed({10, 11, 12}));
  const uint64_t before = a.pool_changes();
  EXPECT_FALSE(a.add_reclaimed({30, 30}));
  EXPECT_FALSE(a.add_reclaimed({40, 11}));
  EXPECT_EQ(a.extents(), (Extents{{10, 3}}));
  EXPECT_EQ(a.pool_changes(), before);
}

TEST(PageAllocatorTest, LockedPoolHandsOutNewPagesOnly) {
  PageAllocator a(30);
  ASSERT_TRUE(a.add_reclaimed({2, 3}));
  a.lock_pool();
  EXPECT_FALSE(a.wants_reclaim());
  EXPECT_FALSE(a.wants_reclaim_run(5));
  EXPECT_EQ(a.take(), 30u);
  EXPECT_EQ(a.take_run(2), 31u);
  EXPECT_EQ(a.pool_size(), 2u);
}

TEST(PageAllocatorTest, PoolChangesCountEveryChange) {
  PageAllocator a(30);
  uint64_t before = a.pool_changes();
  (void)a.take();  // a new page: the pool is unchanged
  (void)a.take_run(2);
  EXPECT_EQ(a.pool_changes(), before);
  a.give_back(30);
  EXPECT_NE(a.pool_changes(), before);
  before = a.pool_changes();
  (void)a.take();
  EXPECT_NE(a.pool_changes(), before);
  before = a.pool_changes();
  ASSERT_TRUE(a.add_reclaimed({3}));
  EXPECT_NE(a.pool_changes(), before);
  before = a.pool_changes();
  EXPECT_TRUE(a.give_back_run(31, 2));
  EXPECT_NE(a.pool_changes(), before);
}

// Random takes and give-backs against a model of the free pages: no page is
// handed out twice, extents stay disjoint and merged, and take_run is a best fit.
TEST(PageAllocatorTest, RandomOperationsKeepTheExtentsExact) {
  const uint64_t seed = testing::test_seed(11);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  PageAllocator a(1000);
  std::set<btree::PageNo> free_pages, used;
  std::map<btree::PageNo, uint64_t> runs;  // own runs in use
  std::vector<btree::PageNo> singles;
  // Start from a fragmented pool.
  std::vector<btree::PageNo> reclaimed;
  for (btree::PageNo pg = 2; pg < 1000; ++pg) {
    if (rng() % 3 != 0) reclaimed.push_back(pg);
  }
  ASSERT_TRUE(a.add_reclaimed(reclaimed));
  free_pages.insert(reclaimed.begin(), reclaimed.end());
  for (int op = 0; op < 20000; ++op) {
    const uint32_t kind = rng() % 4;
    if (kind == 0) {
      const btree::PageNo pg = a.take();
      ASSERT_TRUE(used.insert(pg).second) << "page " << pg << " handed out twice";
      ASSERT_TRUE(free_pages.erase(pg) == 1 || pg == a.next_page() - 1);
      singles.push_back(pg);
    } else if (kind == 1) {
      const uint64_t n = 1 + rng() % 12;
      // The best fit the model expects: the smallest free extent holding n.
      uint64_t best = 0;
      btree::PageNo best_first = 0;
      for (const auto& [first, pages] : a.extents()) {
        if (pages >= n && (best == 0 || pages < best)) best = pages, best_first = first;
      }
      const btree::PageNo first = a.take_run(n);
      if (best != 0) {
        ASSERT_EQ(first, best_first) << "run of " << n;
      } else {
        ASSERT_EQ(first + n, a.next_page());
      }
      for (uint64_t i = 0; i < n; ++i) {
        ASSERT_TRUE(used.insert(first + i).second) << "page " << first + i << " handed out twice";
        free_pages.erase(first + i);
      }
      runs.emplace(first, n);
    } else if (kind == 2 && !singles.empty()) {
      const size_t i = rng() % singles.size();
      a.give_back(singles[i]);
      used.erase(singles[i]);
      free_pages.insert(singles[i]);
      singles[i] = singles.back();
      singles.pop_back();
    } else if (kind == 3 && !runs.empty()) {
      auto it = std::next(runs.begin(), rng() % runs.size());
      ASSERT_TRUE(a.give_back_run(it->first, it->second));
      for (uint64_t i = 0; i < it->second; ++i) {
        used.erase(it->first + i);
        free_pages.insert(it->first + i);
      }
      runs.erase(it);
    }
    ASSERT_EQ(a.pool_size(), free_pages.size());
  }
  const std::vector<btree::PageNo> pool = a.pool_pages();
  EXPECT_EQ(std::set<btree::PageNo>(pool.begin(), pool.end()), free_pages);
  btree::PageNo end = 0;
  for (const auto& [first, pages] : a.extents()) {
    EXPECT_GT(first, end) << "extents overlap or touch at " << first;
    end = first + pages;
  }
}

// Savepoints: undo_to() a mark gives back the exact pool, high-water mark and
// own runs of that moment, whatever came between (nested marks too).
TEST(PageAllocatorTest, UndoToAMarkRestoresTheExactState) {
  const uint64_t seed = testing::test_seed(5);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  PageAllocator a(500);
  std::vector<btree::PageNo> reclaimed;
  for (btree::PageNo pg = 2; pg < 500; ++pg) {
    if (rng() % 2 == 0) reclaimed.push_back(pg);
  }
  ASSERT_TRUE(a.add_reclaimed(reclaimed));
  struct Snapshot {
    size_t mark;
    Extents extents;
    uint64_t next_page;
    std::vector<btree::PageNo> singles;
    std::map<btree::PageNo, uint64_t> runs;
  };
  std::vector<btree::PageNo> singles;
  std::map<btree::PageNo, uint64_t> runs;
  std::vector<Snapshot> marks;
  a.set_recording(true);
  for (int op = 0; op < 20000; ++op) {
    const uint32_t kind = rng() % 8;
    if (kind == 0) {
      singles.push_back(a.take());
    } else if (kind == 1) {
      const uint64_t n = 1 + rng() % 12;
      runs.emplace(a.take_run(n), n);
    } else if (kind == 2 && !singles.empty()) {
      const size_t i = rng() % singles.size();
      a.give_back(singles[i]);
      singles[i] = singles.back();
      singles.pop_back();
    } else if (kind == 3 && !runs.empty()) {
      auto it = std::next(runs.begin(), rng() % runs.size());
      ASSERT_TRUE(a.give_back_run(it->first, it->second));
      runs.erase(it);
    } else if (kind == 4) {
      // Pages reclaimed from the free list: new ones past the high-water
      // mark stand in for them (reclaimed pages are never in use).
      std::vector<btree::PageNo> more;
      for (int i = 0; i < 1 + static_cast<int>(rng() % 4); ++i) more.push_back(a.take());
      for (btree::PageNo pg : more) a.give_back(pg);
    } else if (kind == 5 && marks.size() < 8) {
      marks.push_back({a.undo_mark(), a.extents(), a.next_page(), singles, runs});
    } else if (kind == 6 && !marks.empty()) {
      const size_t at = rng() % marks.size();
      a.undo_to(marks[at].mark);
      ASSERT_EQ(a.extents(), marks[at].extents) << "undo to mark " << at;
      ASSERT_EQ(a.next_page(), marks[at].next_page);
      singles = marks[at].singles;
      runs = marks[at].runs;
      for (const auto& [first, n] : runs) ASSERT_TRUE(a.owns_run(first, n));
      marks.resize(at + 1);
    } else if (kind == 7 && !marks.empty()) {
      marks.pop_back();  // a release: its changes stay, logged for the outer marks
    }
  }
  a.set_recording(false);
  for (const auto& [first, n] : runs) EXPECT_TRUE(a.give_back_run(first, n));
}

}  // namespace
}  // namespace ordo::engine
