#include "ordo/btree/tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "mem_pages.h"
#include "model.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/node.h"

namespace ordo::btree {
namespace {

using testing::be_key;
using testing::expect_matches;
using testing::MemPages;

TEST(TreeTest, RandomOpsMatchStdMap) {
  const uint64_t seed = 20261130;
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  MemPages pages(4096);
  TreeRoot tree;
  std::map<std::string, std::string> model;
  for (int round = 0; round < 40; ++round) {
    for (int op = 0; op < 1000; ++op) {
      std::string key = std::to_string(rng() % 5000);
      key.resize(1 + rng() % 40, 'k');
      int kind = rng() % 10;
      if (kind < 6) {
        std::string value(rng() % 300, static_cast<char>('a' + rng() % 26));
        ASSERT_TRUE(put(pages, tree, key, value).is_ok());
        model[key] = value;
      } else if (kind < 9) {
        bool found = false;
        ASSERT_TRUE(remove(pages, tree, key, &found).is_ok());
        EXPECT_EQ(found, model.erase(key) == 1);
      } else {
        bool found = false;
        ByteView v;
        ASSERT_TRUE(find(pages, tree, key, &found, &v).is_ok());
        auto it = model.find(key);
        ASSERT_EQ(found, it != model.end());
        if (found) {
          EXPECT_EQ(v.str(), it->second);
        }
      }
    }
    ASSERT_TRUE(finalize(pages, tree).is_ok());
    pages.commit();
    expect_matches(pages, tree, model);
  }
}

TEST(TreeTest, SequentialLoadFillsLeaves) {
  MemPages pages(4096);
  TreeRoot tree;
  std::string value(64, 'v');
  for (uint64_t i = 0; i < 100000; ++i) {
    ASSERT_TRUE(put(pages, tree, be_key(i), value).is_ok());
    if (i % 10000 == 9999) pages.commit();
  }
  TreeShape stats;
  ASSERT_TRUE(collect_stats(pages, tree, &stats).is_ok());
  EXPECT_EQ(stats.entries, 100000u);
  EXPECT_GE(stats.leaf_fill(), 0.95);
  EXPECT_GE(tree.depth, 3u);
}

TEST(TreeTest, RandomLoadSplitsInTheMiddle) {
  MemPages pages(4096);
  TreeRoot tree;
  std::mt19937_64 rng(7);
  std::string value(64, 'v');
  for (int i = 0; i < 50000; ++i) ASSERT_TRUE(put(pages, tree, be_key(rng()), value).is_ok());
  TreeShape stats;
  ASSERT_TRUE(collect_stats(pages, tree, &stats).is_ok());
  EXPECT_GT(stats.leaf_fill(), 0.5);
  EXPECT_LT(stats.leaf_fill(), 0.95);
}

TEST(TreeTest, DeletingEveryKeyEmptiesTheTree) {
  MemPages pages(4096);
  TreeRoot tree;
  for (uint64_t i = 0; i < 20000; ++i) ASSERT_TRUE(put(pages, tree, be_key(i), "x").is_ok());
  pages.commit();
  for (uint64_t i = 0; i < 20000; ++i) {
    bool found = false;
    ASSERT_TRUE(remove(pages, tree, be_key(i * 7919 % 20000), &found).is_ok());
    ASSERT_TRUE(found);
  }
  EXPECT_EQ(tree.root, kNullPage);
  EXPECT_EQ(tree.depth, 0u);
  EXPECT_EQ(tree.entries, 0u);
  pages.commit();
  EXPECT_EQ(pages.live_pages(), 0u);
}

TEST(TreeTest, KeyAndValueLimits) {
  for (uint32_t ps : {4096u, 16384u, 65536u}) {
    MemPages pages(ps);
    TreeRoot tree;
    std::map<std::string, std::string> model;
    std::mt19937_64 rng(ps);
    // Maximal keys and values mixed with empty ones force splits of big cells.
    for (int i = 0; i < 300; ++i) {
      std::string key = std::to_string(rng());
      key.resize(i % 3 == 0 ? max_key_bytes(ps) : (i % 3 == 1 ? 0 : 9), 'k');
      std::string value(i % 2 ? max_inline_value_bytes(ps) : 0, 'v');
      ASSERT_TRUE(put(pages, tree, key, value).is_ok()) << ps << " " << i;
      model[key] = value;
    }
    expect_matches(pages, tree, model);
    std::string big_key(max_key_bytes(ps) + 1, 'k');
    EXPECT_TRUE(put(pages, tree, big_key, "").is_invalid_argument());
  }
}

TEST(TreeTest, ValueOverTheLimitIsInvalidArgument) {
  MemPages pages(4096);
  TreeRoot tree;
  std::string big_value(kMaxValueBytes + 1, 'v');
  Status s = put(pages, tree, "k", big_value);
  EXPECT_TRUE(s.is_invalid_argument());
  EXPECT_NE(s.message().find("value"), std::string::npos);
  EXPECT_EQ(tree.entries, 0u);
}

TEST(TreeTest, OverflowValuesRoundTripAndTheirRunsAreFreed) {
  const uint64_t seed = 99;
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  MemPages pages(4096);
  TreeRoot tree;
  std::map<std::string, std::string> model;
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 100; ++i) {
      std::string key = std::to_string(rng() % 150);
      if (rng() % 4 == 0) {
        bool found;
        ASSERT_TRUE(remove(pages, tree, key, &found).is_ok());
        EXPECT_EQ(found, model.erase(key) == 1);
        continue;
      }
      size_t len = rng() % 3 == 0 ? rng() % 100 : 1025 + rng() % 60000;
      std::string value(len, '\0');
      for (char& c : value) c = static_cast<char>(rng());
      ASSERT_TRUE(put(pages, tree, key, value).is_ok());
      model[key] = value;
    }
    ASSERT_TRUE(finalize(pages, tree).is_ok());
    pages.commit();
    expect_matches(pages, tree, model);
    size_t overflow_values = 0;
    for (auto& [k, v] : model) overflow_values += v.size() > max_inline_value_bytes(4096);
    EXPECT_EQ(pages.live_runs(), overflow_values);
    bool found;
    ByteView v;
    auto it = model.begin();
    ASSERT_TRUE(find(pages, tree, it->first, &found, &v).is_ok());
    ASSERT_TRUE(found);
    EXPECT_EQ(v.str(), it->second);
  }
}

// update(): the leaf decides; a write that does not apply copies no page
// (the committed root stays), one that applies frees the run it replaces or
// removes, and the old value read out is the whole run.
TEST(TreeTest, UpdateDecidesAtTheLeafAndCopiesNothingWhenNotApplied) {
  MemPages pages(4096);
  TreeRoot tree;
  std::map<std::string, std::string> model;
  const std::string big(5000, 'B');
  for (int i = 0; i < 3000; ++i) {
    const std::string v = i % 100 == 0 ? big + std::to_string(i) : "v" + std::to_string(i);
    ASSERT_TRUE(put(pages, tree, be_key(i), v).is_ok());
    model[be_key(i)] = v;
  }
  ASSERT_TRUE(finalize(pages, tree).is_ok());
  pages.commit();
  ASSERT_GE(tree.depth, 2u);
  const TreeRoot before = tree;
  const size_t runs = pages.live_runs();

  Update insert;
  insert.when = Update::When::kAbsent;
  insert.value = ByteView("x");
  Update cas;
  cas.when = Update::When::kEquals;
  cas.expected = ByteView("not it");
  for (int i : {0, 100, 1500, 2999}) {
    auto out = update(pages, tree, be_key(i), insert);
    ASSERT_TRUE(out.is_ok()) << out.status().to_string();
    EXPECT_TRUE(out->found && !out->applied && !out->changed);
    out = update(pages, tree, be_key(i), cas);  // removal that does not apply
    ASSERT_TRUE(out.is_ok());
    EXPECT_TRUE(out->found && !out->applied && !out->changed);
  }
  cas.value = ByteView("y");
  auto out = update(pages, tree, "absent", cas);
  ASSERT_TRUE(out.is_ok());
  EXPECT_TRUE(!out->found && !out->applied);
  EXPECT_EQ(tree, before);  // not one page copied

  // Replace an overflow value: the old one comes back whole, its run is freed.
  std::string old_value;
  Update replace;
  replace.value = ByteView("small");
  replace.old_value = &old_value;
  out = update(pages, tree, be_key(1500), replace);
  ASSERT_TRUE(out.is_ok());
  EXPECT_TRUE(out->found && out->applied && out->changed);
  EXPECT_EQ(old_value, model[be_key(1500)]);
  model[be_key(1500)] = "small";
  // Remove one by a matching compare.
  Update remove_it;
  remove_it.when = Update::When::kEquals;
  remove_it.expected = ByteView(model[be_key(200)]);
  out = update(pages, tree, be_key(200), remove_it);
  ASSERT_TRUE(out.is_ok());
  EXPECT_TRUE(out->found && out->applied && out->changed);
  model.erase(be_key(200));
  ASSERT_TRUE(finalize(pages, tree).is_ok());
  pages.commit();
  EXPECT_EQ(pages.live_runs(), runs - 2);
  EXPECT_EQ(tree.entries, model.size());
  expect_matches(pages, tree, model);
}

TEST(TreeTest, DeletesMergeUnderfullPages) {
  const uint64_t seed = 5;
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  MemPages pages(4096);
  TreeRoot tree;
  std::map<std::string, std::string> model;
  for (uint64_t i = 0; i < 50000; ++i) {
    ASSERT_TRUE(put(pages, tree, be_key(i), std::string(40, 'v')).is_ok());
    model[be_key(i)] = std::string(40, 'v');
  }
  pages.commit();
  TreeShape before;
  ASSERT_TRUE(collect_stats(pages, tree, &before).is_ok());
  // Delete 90% at random: without merging, nearly every leaf would survive.
  std::vector<uint64_t> order(50000);
  for (uint64_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t i = 0; i < 45000; ++i) {
    bool found;
    ASSERT_TRUE(remove(pages, tree, be_key(order[i]), &found).is_ok());
    ASSERT_TRUE(found);
    model.erase(be_key(order[i]));
    if (i % 5000 == 4999) pages.commit();
  }
  TreeShape after;
  ASSERT_TRUE(collect_stats(pages, tree, &after).is_ok());
  std::printf("leaves %llu -> %llu, fill %.3f\n", (unsigned long long)before.leaf_pages,
              (unsigned long long)after.leaf_pages, after.leaf_fill());
  EXPECT_GT(after.leaf_fill(), 0.25);
  EXPECT_LT(after.leaf_pages, before.leaf_pages / 3);
  expect_matches(pages, tree, model);
  // Down to one key: a single leaf.
  for (auto it = model.begin(); model.size() > 1;) {
    bool found;
    ASSERT_TRUE(remove(pages, tree, it->first, &found).is_ok());
    it = model.erase(it);
  }
  pages.commit();
  EXPECT_EQ(tree.depth, 1u);
  EXPECT_EQ(pages.live_pages(), 1u);
}

TEST(TreeTest, SeekFindsFirstKeyAtOrAfter) {
  MemPages pages(4096);
  TreeRoot tree;
  for (uint64_t i = 0; i < 10000; i += 2) ASSERT_TRUE(put(pages, tree, be_key(i), "v").is_ok());
  Cursor c(pages, tree);
  ASSERT_TRUE(c.seek(be_key(501)).is_ok());
  ASSERT_TRUE(c.valid());
  EXPECT_EQ(c.key().str(), be_key(502));
  ASSERT_TRUE(c.seek(be_key(9999)).is_ok());
  EXPECT_FALSE(c.valid());
  ASSERT_TRUE(c.seek("").is_ok());
  EXPECT_EQ(c.key().str(), be_key(0));
}

TEST(TreeTest, FinalizeSetsChecksumsThatVerify) {
  MemPages pages(4096);
  TreeRoot tree;
  for (uint64_t i = 0; i < 5000; ++i) ASSERT_TRUE(put(pages, tree, be_key(i), "v").is_ok());
  ASSERT_TRUE(finalize(pages, tree).is_ok());
  auto root = pages.read(tree.root);
  ASSERT_TRUE(root.is_ok());
  EXPECT_EQ(tree.root_checksum, page_checksum(*root, 4096));
  NodeView v(*root, 4096);
  ASSERT_TRUE(v.is_branch());
  for (uint32_t i = 0; i < v.count(); ++i) {
    auto child = pages.read(v.child(i));
    ASSERT_TRUE(child.is_ok());
    EXPECT_EQ(v.child_checksum(i), page_checksum(*child, 4096));
  }
}

}  // namespace
}  // namespace ordo::btree
