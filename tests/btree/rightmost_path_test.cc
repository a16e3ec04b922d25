// RightmostPath: a put at the right edge skips the root-to-leaf search, and puts with
// the cache stay correct against std::map through splits, deletes, overwrites, large
// values, several trees and committed (copied-on-write) pages.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "mem_pages.h"
#include "model.h"
#include "ordo/btree/tree.h"

namespace ordo::btree {
namespace {

using testing::be_key;
using testing::expect_matches;
using testing::MemPages;

// Counts the pages the tree asks to write and the pages it reads.
class CountingPages : public MemPages {
 public:
  using MemPages::MemPages;
  std::byte* writable(PageNo pg) override {
    ++writable_calls;
    return MemPages::writable(pg);
  }
  std::byte* writable_if_dirty(PageNo pg) override {
    std::byte* data = MemPages::writable_if_dirty(pg);
    if (data != nullptr) ++writable_calls;
    return data;
  }
  Result<const std::byte*> read(PageNo pg) override {
    ++read_calls;
    return MemPages::read(pg);
  }
  Result<const std::byte*> read_clean(PageNo pg) override {
    ++read_calls;
    return MemPages::read_clean(pg);
  }
  uint64_t writable_calls = 0;
  uint64_t read_calls = 0;
};

// Puts keys be_key(next), be_key(next + 1), ... through `rightmost` until the
// tree is `depth` deep (depth 3: ~100 keys per leaf, ~170 leaves per branch),
// then ends the cache as a commit does, writing its deferred counts.
void grow_to_depth(MemPages& pages, TreeRoot& tree, RightmostPath& rightmost, uint64_t& next,
                   uint32_t depth) {
  while (tree.depth < depth) {
    ASSERT_TRUE(put(pages, tree, be_key(next++), "0123456789", &rightmost).is_ok());
  }
  rightmost.invalidate(pages);
}

TEST(RightmostPathTest, SequentialPutTouchesOnlyTheLastLeaf) {
  CountingPages pages(4096);
  TreeRoot tree;
  RightmostPath rightmost;
  uint64_t next = 0;
  grow_to_depth(pages, tree, rightmost, next, 3);
  pages.commit();  // the path is now shared with a committed snapshot
  // The first put of the txn copies the whole path and fills the cache.
  ASSERT_TRUE(put(pages, tree, be_key(next++), "0123456789", &rightmost).is_ok());
  ASSERT_TRUE(rightmost.valid());
  // The next one, if it does not split, asks for the last leaf alone and
  // writes the entry counts of the cached branches through the bytes kept
  // when the path was filled (already copied: no page is read or copied).
  for (int i = 0; i < 20; ++i) {
    const uint64_t entries = tree.entries;
    pages.writable_calls = 0;
    pages.read_calls = 0;
    ASSERT_TRUE(put(pages, tree, be_key(next++), "0123456789", &rightmost).is_ok());
    ASSERT_EQ(tree.entries, entries + 1);
    if (!rightmost.valid()) break;  // it split: the next put descends again
    EXPECT_EQ(pages.writable_calls, 1u) << "put " << i;
    EXPECT_EQ(pages.read_calls, 0u) << "put " << i;
  }
  // Without the cache the same put writes every page on the path (the counts
  // the cache deferred are written first, as a caller must).
  rightmost.invalidate(pages);
  pages.writable_calls = 0;
  ASSERT_TRUE(put(pages, tree, be_key(next++), "0123456789").is_ok());
  EXPECT_GE(pages.writable_calls, tree.depth);
}

// A cached put counts its key in the path's branches only at flush(): until
// then the root counts fewer entries than the tree holds; after it, all.
TEST(RightmostPathTest, CachedPutsDeferBranchCountsUntilFlush) {
  MemPages pages(4096);
  TreeRoot tree;
  RightmostPath rightmost;
  uint64_t next = 0;
  grow_to_depth(pages, tree, rightmost, next, 3);
  ASSERT_TRUE(put(pages, tree, be_key(next++), "0123456789", &rightmost).is_ok());
  ASSERT_TRUE(rightmost.valid());
  EXPECT_FALSE(rightmost.has_deferred());  // the descent counted its own key
  uint64_t deferred = 0;
  while (deferred < 5) {
    ASSERT_TRUE(put(pages, tree, be_key(next++), "0123456789", &rightmost).is_ok());
    if (!rightmost.valid()) {  // it split, which flushed: start again
      EXPECT_FALSE(rightmost.has_deferred());
      ASSERT_TRUE(put(pages, tree, be_key(next++), "0123456789", &rightmost).is_ok());
      deferred = 0;
      continue;
    }
    ++deferred;
  }
  ASSERT_TRUE(rightmost.has_deferred());
  const NodeView root(pages.writable(tree.root), pages.page_size());
  EXPECT_EQ(subtree_entries(root) + deferred, tree.entries);
  rightmost.flush(pages);
  EXPECT_FALSE(rightmost.has_deferred());
  EXPECT_TRUE(rightmost.valid());  // flush() keeps the path
  EXPECT_EQ(subtree_entries(root), tree.entries);
  std::map<std::string, std::string> model;
  for (uint64_t i = 0; i < next; ++i) model[be_key(i)] = "0123456789";
  expect_matches(pages, tree, model);
}

TEST(RightmostPathTest, KeyBelowTheLastLeafIsNotCovered) {
  MemPages pages(4096);
  TreeRoot tree;
  RightmostPath rightmost;
  for (uint64_t i = 0; i < 1000; ++i) {
    ASSERT_TRUE(put(pages, tree, be_key(i * 2), "v", &rightmost).is_ok());
  }
  ASSERT_GE(tree.depth, 2u);
  ASSERT_TRUE(put(pages, tree, be_key(5000), "v", &rightmost).is_ok());
  ASSERT_TRUE(rightmost.valid());
  EXPECT_TRUE(rightmost.covers(tree, be_key(6000)));
  EXPECT_TRUE(rightmost.covers(tree, be_key(1999)));  // inside the last leaf's range
  EXPECT_FALSE(rightmost.covers(tree, be_key(1)));
  TreeRoot other = tree;
  other.root += 1;
  EXPECT_FALSE(rightmost.covers(other, be_key(6000)));
  rightmost.invalidate(pages);
  EXPECT_FALSE(rightmost.covers(tree, be_key(6000)));
}

// Two trees in one page store, each with its own cache, under interleaved appends,
// random puts (overwrites, inserts into the last leaf and elsewhere), large values,
// deletes (of the last key too) and commits.
TEST(RightmostPathTest, RandomMixMatchesStdMap) {
  const uint64_t seed = 20261130;
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  MemPages pages(4096);
  struct Tree {
    TreeRoot root;
    RightmostPath rightmost;
    std::map<std::string, std::string> model;
    uint64_t next = 1'000'000;
  };
  Tree trees[2];
  for (int step = 0; step < 60'000; ++step) {
    Tree& t = trees[rng() % 2];
    const int op = static_cast<int>(rng() % 100);
    std::string value(rng() % 400, static_cast<char>('a' + step % 26));
    if (op < 2) value.assign(2000 + rng() % 3000, 'L');  // overflow run
    std::string key;
    if (op < 60) {
      key = be_key(t.next);
      t.next += 1 + rng() % 3;
    } else if (op < 70) {
      key = be_key(rng() % t.next);
    } else if (op < 75) {
      key = be_key(t.next - 1 - rng() % 3000);  // near the right edge, maybe below the last leaf
    } else if (op < 80 && !t.model.empty()) {
      key = t.model.rbegin()->first;  // overwrite the last key
    } else if (!t.model.empty()) {
      const bool last = op < 85;
      auto it = last ? std::prev(t.model.end()) : t.model.lower_bound(be_key(rng() % t.next));
      if (it == t.model.end()) continue;
      bool found = false;
      t.rightmost.invalidate(pages);
      ASSERT_TRUE(remove(pages, t.root, it->first, &found).is_ok());
      ASSERT_TRUE(found);
      t.model.erase(it);
      continue;
    } else {
      continue;
    }
    ASSERT_TRUE(put(pages, t.root, key, value, &t.rightmost).is_ok()) << "step " << step;
    t.model[key] = value;
    if (step % 5000 == 4999) {
      for (Tree& each : trees) {
        each.rightmost.invalidate(pages);  // a new txn: a new cache
        ASSERT_TRUE(finalize(pages, each.root).is_ok());
      }
      pages.commit();
      for (Tree& each : trees) expect_matches(pages, each.root, each.model);
    }
  }
  for (Tree& t : trees) {
    t.rightmost.flush(pages);
    EXPECT_GE(t.root.depth, 3u);  // deep enough for paths that leave the right edge low
    expect_matches(pages, t.root, t.model);
  }
}

}  // namespace
}  // namespace ordo::btree
