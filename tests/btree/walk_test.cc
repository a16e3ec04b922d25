// walk_tree: every page of a tree exactly once, in the order and with the
// place (level, parent, bounds) the visitor is told; problems and the
// visitor's own decisions (skip, stop, error) end or prune the walk.
#include "ordo/btree/walk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "mem_pages.h"
#include "model.h"
#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"

namespace ordo::btree {
namespace {

using testing::be_key;
using testing::MemPages;

constexpr uint32_t kPage = 4096;

// Records everything the walk reports.
class Recorder : public PageVisitor {
 public:
  struct Seen {
    PageRef ref;
    bool leaf = false;
    uint32_t count = 0;
  };
  bool enter(const PageRef& ref) override {
    entered.push_back(ref.page);
    return true;
  }
  Result<WalkStep> page(const PageRef& ref, const NodeView& node) override {
    EXPECT_EQ(node.is_leaf(), ref.leaf()) << "page " << ref.page;
    pages.push_back({ref, node.is_leaf(), node.count()});
    order.push_back(ref.page);
    return WalkStep::kDescend;
  }
  Status overflow(const PageRef& leaf, const NodeView& node, uint32_t i,
                  const OverflowRun& run) override {
    EXPECT_TRUE(node.is_overflow(i));
    runs.push_back(run);
    run_leaves.push_back(leaf.page);
    return Status::ok();
  }
  Status leave(const PageRef& ref, const NodeView&) override {
    left.push_back(ref.page);
    return Status::ok();
  }
  std::vector<PageNo> entered;
  std::vector<Seen> pages;
  std::vector<PageNo> order;
  std::vector<OverflowRun> runs;
  std::vector<PageNo> run_leaves;
  std::vector<PageNo> left;
};

// A tree of `n` entries; every `overflow_every`-th value (0: none) is large
// enough for a 3-page overflow run.
TreeRoot build(MemPages& pages, uint64_t n, uint64_t overflow_every) {
  TreeRoot tree;
  for (uint64_t i = 0; i < n; ++i) {
    const bool big = overflow_every != 0 && i % overflow_every == 0;
    std::string value(big ? 2 * kPage + 100 : 40, static_cast<char>('a' + i % 26));
    EXPECT_TRUE(put(pages, tree, be_key(i * 7919 % 1000003) + std::string(60, 'k'), value).is_ok());
  }
  EXPECT_TRUE(finalize(pages, tree).is_ok());
  pages.commit();
  return tree;
}

struct Shape {
  const char* name;
  uint64_t entries;
  uint64_t overflow_every;
  uint32_t depth;
};

TEST(WalkTest, VisitsEveryPageAndRunOnceInEveryShape) {
  const Shape shapes[] = {
      {"empty", 0, 0, 0},
      {"one leaf", 10, 0, 1},
      {"one leaf with runs", 10, 3, 1},
      {"two levels", 300, 0, 2},
      {"three levels with runs", 6000, 50, 3},
  };
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(shape.name);
    MemPages pages(kPage);
    const TreeRoot tree = build(pages, shape.entries, shape.overflow_every);
    ASSERT_EQ(tree.depth, shape.depth);
    Recorder r;
    ASSERT_TRUE(walk_tree(pages, tree, r).is_ok());

    // Every page of the store is the tree's: each visited once, entered once,
    // left once; every run once.
    EXPECT_EQ(r.pages.size(), pages.live_pages());
    EXPECT_EQ(std::set<PageNo>(r.order.begin(), r.order.end()).size(), r.order.size());
    EXPECT_EQ(r.entered, r.order);
    EXPECT_EQ(std::multiset<PageNo>(r.left.begin(), r.left.end()),
              std::multiset<PageNo>(r.order.begin(), r.order.end()));
    std::set<PageNo> run_firsts;
    uint64_t run_pages = 0;
    for (const OverflowRun& run : r.runs) {
      run_firsts.insert(run.ref.first);
      run_pages += run.pages;
      EXPECT_EQ(run.pages, 3u);
    }
    EXPECT_EQ(run_firsts.size(), r.runs.size());
    EXPECT_EQ(r.runs.size(), pages.live_runs());

    // The counts agree with collect_stats, which walks the same tree.
    TreeShape stats;
    ASSERT_TRUE(collect_stats(pages, tree, &stats).is_ok());
    uint64_t leaves = 0, branches = 0, entries = 0;
    for (const auto& seen : r.pages) {
      (seen.leaf ? leaves : branches)++;
      if (seen.leaf) entries += seen.count;
    }
    EXPECT_EQ(leaves, stats.leaf_pages);
    EXPECT_EQ(branches, stats.branch_pages);
    EXPECT_EQ(entries, shape.entries);
    EXPECT_EQ(run_pages, stats.overflow_pages);

    // Place: the root first, with no parent; each other page after its
    // parent, one level below it, at the parent's entry that names it.
    std::map<PageNo, size_t> at;
    for (size_t k = 0; k < r.pages.size(); ++k) at[r.pages[k].ref.page] = k;
    for (size_t k = 0; k < r.pages.size(); ++k) {
      const PageRef& ref = r.pages[k].ref;
      EXPECT_EQ(ref.depth, tree.depth);
      if (k == 0) {
        EXPECT_EQ(ref.page, tree.root);
        EXPECT_EQ(ref.parent, kNullPage);
        EXPECT_EQ(ref.level, 0u);
        EXPECT_FALSE(ref.lower.has_value());
        EXPECT_FALSE(ref.upper.has_value());
        continue;
      }
      ASSERT_TRUE(at.count(ref.parent)) << "page " << ref.page;
      const Recorder::Seen& parent = r.pages[at[ref.parent]];
      EXPECT_LT(at[ref.parent], k);
      EXPECT_FALSE(parent.leaf);
      EXPECT_EQ(ref.level, parent.ref.level + 1);
      auto bytes = pages.read(ref.parent);
      ASSERT_TRUE(bytes.is_ok());
      const NodeView pv(*bytes, kPage);
      EXPECT_EQ(pv.child(ref.index), ref.page);
      EXPECT_EQ(pv.child_checksum(ref.index), ref.expected_checksum);
      EXPECT_EQ(ref.lower.has_value(), ref.index > 0 || parent.ref.lower.has_value());
      EXPECT_EQ(ref.upper.has_value(),
                ref.index + 1 < parent.count || parent.ref.upper.has_value());
    }
    // Each leaf's runs are reported right after it is visited, before the
    // next page.
    for (PageNo leaf : r.run_leaves) {
      ASSERT_TRUE(at.count(leaf));
      EXPECT_TRUE(r.pages[at[leaf]].leaf);
    }
    // Post-order: a page is left after every page below it.
    std::map<PageNo, size_t> left_at;
    for (size_t k = 0; k < r.left.size(); ++k) left_at[r.left[k]] = k;
    for (const auto& seen : r.pages) {
      if (seen.ref.parent != kNullPage) {
        EXPECT_LT(left_at[seen.ref.page], left_at[seen.ref.parent]);
      }
    }
  }
}

// Ends the walk at the n-th page with its own error.
class FailAt : public Recorder {
 public:
  explicit FailAt(size_t n) : n_(n) {}
  Result<WalkStep> page(const PageRef& ref, const NodeView& node) override {
    ORDO_ASSIGN_OR_RETURN(WalkStep step, Recorder::page(ref, node));
    if (order.size() == n_)
      return Status::busy("visitor stops at page " + std::to_string(ref.page));
    return step;
  }

 private:
  size_t n_;
};

TEST(WalkTest, TheVisitorsErrorEndsTheWalkAndIsReturned) {
  MemPages pages(kPage);
  const TreeRoot tree = build(pages, 3000, 0);
  ASSERT_GE(tree.depth, 2u);
  for (size_t n : {size_t{1}, size_t{2}, size_t{17}}) {
    FailAt v(n);
    Status s = walk_tree(pages, tree, v);
    EXPECT_TRUE(s.is_busy()) << s.to_string();
    EXPECT_EQ(s.message(), "visitor stops at page " + std::to_string(v.order.back()));
    EXPECT_EQ(v.order.size(), n);
    EXPECT_EQ(v.entered.size(), n);
    // Pages finished before the error were left; the failing page and the
    // root, still open, never are.
    EXPECT_EQ(std::count(v.left.begin(), v.left.end(), v.order.back()), 0);
    EXPECT_EQ(std::count(v.left.begin(), v.left.end(), tree.root), 0);
    EXPECT_LT(v.left.size(), n);
  }
}

// Skips the subtree of the root's first child, then stops at the tenth page.
class SkipAndStop : public Recorder {
 public:
  Result<WalkStep> page(const PageRef& ref, const NodeView& node) override {
    ORDO_ASSIGN_OR_RETURN(WalkStep step, Recorder::page(ref, node));
    if (ref.level == 1 && ref.index == 0) return WalkStep::kSkip;
    if (order.size() == 10) return WalkStep::kStop;
    return step;
  }
};

TEST(WalkTest, SkipLeavesOutASubtreeAndStopEndsTheWalkWithoutAnError) {
  MemPages pages(kPage);
  const TreeRoot tree = build(pages, 6000, 0);
  ASSERT_EQ(tree.depth, 3u);
  SkipAndStop v;
  ASSERT_TRUE(walk_tree(pages, tree, v).is_ok());
  ASSERT_EQ(v.order.size(), 10u);
  // The second page visited is the root's first child, skipped: the third is
  // the root's second child, at level 1 again.
  EXPECT_EQ(v.pages[1].ref.index, 0u);
  EXPECT_EQ(v.pages[2].ref.level, 1u);
  EXPECT_EQ(v.pages[2].ref.index, 1u);
  // Pages the walk did not finish are never left.
  EXPECT_TRUE(std::find(v.left.begin(), v.left.end(), tree.root) == v.left.end());
}

// Leaves out every page but the root.
class RootOnly : public Recorder {
 public:
  bool enter(const PageRef& ref) override {
    Recorder::enter(ref);
    return ref.parent == kNullPage;
  }
};

TEST(WalkTest, EnterFalseLeavesAPageUnread) {
  MemPages pages(kPage);
  const TreeRoot tree = build(pages, 3000, 0);
  RootOnly v;
  ASSERT_TRUE(walk_tree(pages, tree, v).is_ok());
  ASSERT_EQ(v.order.size(), 1u);
  EXPECT_GT(v.entered.size(), 1u);
}

// Reports problems and goes on.
class Tolerant : public Recorder {
 public:
  Status damaged(const PageRef& ref, Status problem) override {
    problems.push_back({ref.page, problem});
    return Status::ok();
  }
  std::vector<std::pair<PageNo, Status>> problems;
};

TEST(WalkTest, ADamagedPageIsCorruptionOrSkippedByATolerantVisitor) {
  MemPages pages(kPage);
  const TreeRoot tree = build(pages, 300, 0);
  ASSERT_EQ(tree.depth, 2u);
  Recorder all;
  ASSERT_TRUE(walk_tree(pages, tree, all).is_ok());
  // Damage the third leaf's header: its slots no longer fit the page.
  const PageNo bad = all.pages[3].ref.page;
  ASSERT_TRUE(all.pages[3].leaf);
  std::byte* p = const_cast<std::byte*>(*pages.read(bad));
  store_u16(p + kOffCount, 60000);

  WalkOptions no_verify;
  no_verify.verify_checksums = false;
  Recorder strict;
  Status s = walk_tree(pages, tree, strict, no_verify);
  EXPECT_TRUE(s.is_corruption()) << s.to_string();
  EXPECT_EQ(s.page_number(), bad);
  EXPECT_EQ(strict.order.size(), 3u);

  Tolerant t;
  ASSERT_TRUE(walk_tree(pages, tree, t, no_verify).is_ok());
  ASSERT_EQ(t.problems.size(), 1u);
  EXPECT_EQ(t.problems[0].first, bad);
  EXPECT_EQ(t.order.size(), all.order.size() - 1);

  // Checksums: the damaged page no longer matches its parent's entry; a
  // tolerant visitor hears of it and is still handed the pages that decode.
  WalkOptions verify;
  verify.verify_checksums = true;
  store_u16(p + kOffCount, all.pages[3].count);
  p[kPage - 1] ^= std::byte{1};
  Tolerant v;
  ASSERT_TRUE(walk_tree(pages, tree, v, verify).is_ok());
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_EQ(v.problems[0].first, bad);
  EXPECT_NE(v.problems[0].second.message().find("checksum mismatch"), std::string::npos);
  EXPECT_EQ(v.order.size(), all.order.size());
  Recorder unchecked;
  EXPECT_TRUE(walk_tree(pages, tree, unchecked, no_verify).is_ok());
}

TEST(WalkTest, AnEntryNamingAMetaPageIsCorruptionNamingTheBranch) {
  MemPages pages(kPage);
  const TreeRoot tree = build(pages, 300, 0);
  ASSERT_EQ(tree.depth, 2u);
  std::byte* root = const_cast<std::byte*>(*pages.read(tree.root));
  for (PageNo child : {PageNo{0}, PageNo{1}}) {
    // Entry 1's cell starts with its child page number.
    store_u64(root + load_u16(root + kHeaderSize + kSlotSize), child);
    WalkOptions no_verify;
    no_verify.verify_checksums = false;
    Recorder r;
    Status s = walk_tree(pages, tree, r, no_verify);
    EXPECT_TRUE(s.is_corruption()) << s.to_string();
    EXPECT_EQ(s.page_number(), tree.root) << s.to_string();
    EXPECT_EQ(r.order.size(), 2u);  // the root and its first child
  }
}

TEST(WalkTest, ADepthOutOfRangeIsCorruptionNamingTheRoot) {
  MemPages pages(kPage);
  TreeRoot tree = build(pages, 10, 0);
  tree.depth = kMaxDepth + 1;
  Recorder r;
  Status s = walk_tree(pages, tree, r);
  EXPECT_TRUE(s.is_corruption());
  EXPECT_EQ(s.page_number(), tree.root);
  EXPECT_TRUE(r.entered.empty());
}

}  // namespace
}  // namespace ordo::btree
