// rank(), count_range() and key_at() against a std::map model, over trees
// that splits, merges, range removals, appends and the rightmost-path cache
// shaped; both on a txn's dirty pages and after its commit.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "mem_pages.h"
#include "model.h"
#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"
#include "ordo/btree/walk.h"
#include "test_seed.h"

namespace ordo::btree {
namespace {

using testing::be_key;
using testing::MemPages;
using Model = std::map<std::string, std::string>;

uint64_t model_rank(const Model& model, const std::string& key) {
  return static_cast<uint64_t>(std::distance(model.begin(), model.lower_bound(key)));
}

// Probes `probes` random keys and positions, and every position of a small tree.
void expect_counts(MemPages& pages, const TreeRoot& tree, const Model& model, std::mt19937_64& rng,
                   const std::vector<std::string>& candidates, int probes) {
  ASSERT_EQ(tree.entries, model.size());
  std::vector<std::string> keys;
  keys.reserve(model.size());
  for (const auto& [k, v] : model) keys.push_back(k);
  for (int p = 0; p < probes; ++p) {
    const std::string& key = candidates[rng() % candidates.size()];
    auto r = rank(pages, tree, key);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    ASSERT_EQ(*r, model_rank(model, key)) << "rank of " << key;
    const std::string& other = candidates[rng() % candidates.size()];
    ByteView end(other);
    auto c = count_range(pages, tree, key, &end);
    ASSERT_TRUE(c.is_ok());
    const uint64_t expected = other > key ? model_rank(model, other) - model_rank(model, key) : 0;
    ASSERT_EQ(*c, expected) << "count [" << key << ", " << other << ")";
    auto open_end = count_range(pages, tree, key, nullptr);
    ASSERT_TRUE(open_end.is_ok());
    ASSERT_EQ(*open_end, model.size() - model_rank(model, key));
    if (!keys.empty()) {
      const uint64_t i = rng() % keys.size();
      auto k = key_at(pages, tree, i);
      ASSERT_TRUE(k.is_ok()) << k.status().to_string();
      ASSERT_EQ(k->str(), keys[i]) << "key_at " << i;
    }
  }
  if (keys.size() <= 2000) {
    for (uint64_t i = 0; i < keys.size(); ++i) {
      auto k = key_at(pages, tree, i);
      ASSERT_TRUE(k.is_ok());
      ASSERT_EQ(k->str(), keys[i]);
    }
  }
  auto past = key_at(pages, tree, model.size());
  ASSERT_FALSE(past.is_ok());
  EXPECT_EQ(past.status().code(), Status::Code::kNotFound);
  // A whole walk proves every branch count exact.
  TreeShape shape;
  ASSERT_TRUE(collect_stats(pages, tree, &shape).is_ok());
}

std::string count_test_key(std::mt19937_64& rng) {
  std::string key = std::to_string(rng() % 20000);
  key.resize(1 + rng() % 60, 'k');
  return key;
}

TEST(CountTest, RandomOpsMatchTheModel) {
  const uint64_t seed = ordo::testing::test_seed(std::random_device{}());
  std::mt19937_64 rng(seed);
  MemPages pages(4096);
  TreeRoot tree;
  RightmostPath rightmost;
  Model model;
  std::vector<std::string> candidates;
  for (int i = 0; i < 3000; ++i) candidates.push_back(count_test_key(rng));
  candidates.push_back("");
  uint64_t next_tail = 0;
  for (int round = 0; round < 12; ++round) {
    for (int op = 0; op < 2000; ++op) {
      // Of 200: 90 put, 40 remove, 50 tail, 1 range, 19 update.
      const int pick = static_cast<int>(rng() % 200);
      const int kind = pick == 0    ? 18
                       : pick < 20  ? 19
                       : pick < 110 ? 0
                       : pick < 150 ? 9
                                    : 13 + pick % 5;
      if (kind < 9) {  // put, some values in overflow runs
        std::string key = candidates[rng() % candidates.size()];
        std::string value(rng() % 8 == 0 ? 2000 : rng() % 200, static_cast<char>('a' + rng() % 26));
        ASSERT_TRUE(put(pages, tree, key, value, &rightmost).is_ok());
        model[key] = value;
      } else if (kind < 13) {  // remove
        rightmost.invalidate(pages);
        const std::string& key = candidates[rng() % candidates.size()];
        bool found = false;
        ASSERT_TRUE(remove(pages, tree, key, &found).is_ok());
        ASSERT_EQ(found, model.erase(key) == 1);
      } else if (kind < 18) {  // keys past the end: the rightmost fast path, and append()
        std::string key = "~" + be_key(next_tail++);
        if (kind == 17) {
          rightmost.invalidate(pages);
          ASSERT_TRUE(append(pages, tree, key, "tail", 0.9).is_ok());
        } else {
          ASSERT_TRUE(put(pages, tree, key, "tail", &rightmost).is_ok());
        }
        model[key] = "tail";
      } else if (kind == 18) {  // a range removal, key by key as del_range does
        rightmost.invalidate(pages);
        const std::string& from = candidates[rng() % candidates.size()];
        auto it = model.lower_bound(from);
        for (int n = static_cast<int>(rng() % 100); n > 0 && it != model.end(); --n) {
          bool found = false;
          ASSERT_TRUE(remove(pages, tree, it->first, &found).is_ok());
          ASSERT_TRUE(found);
          it = model.erase(it);
        }
      } else {  // a conditional write
        const std::string& key = candidates[rng() % candidates.size()];
        Update u;
        u.when = Update::When::kAbsent;
        u.value = ByteView("new");
        auto out = update(pages, tree, key, u, &rightmost);
        ASSERT_TRUE(out.is_ok());
        ASSERT_EQ(out->applied, model.count(key) == 0);
        if (out->applied) model[key] = "new";
      }
    }
    // On the txn's dirty pages, then on committed ones; the cache's deferred
    // counts are written first, and a commit ends it.
    rightmost.invalidate(pages);
    expect_counts(pages, tree, model, rng, candidates, 200);
    ASSERT_TRUE(finalize(pages, tree).is_ok());
    pages.commit();
    expect_counts(pages, tree, model, rng, candidates, 200);
  }
  std::printf("%llu entries, depth %u\n", static_cast<unsigned long long>(tree.entries),
              tree.depth);
  ASSERT_GE(tree.depth, 2u);
}

TEST(CountTest, SequentialAppendsAndRemovalsToEmpty) {
  MemPages pages(4096);
  TreeRoot tree;
  RightmostPath rightmost;
  Model model;
  std::mt19937_64 rng(7);
  std::vector<std::string> candidates;
  for (uint64_t i = 0; i < 30000; ++i) {
    ASSERT_TRUE(put(pages, tree, be_key(i), "v", &rightmost).is_ok());
    model[be_key(i)] = "v";
    candidates.push_back(be_key(i));
  }
  ASSERT_GE(tree.depth, 3u);
  rightmost.invalidate(pages);
  expect_counts(pages, tree, model, rng, candidates, 300);
  ASSERT_TRUE(finalize(pages, tree).is_ok());
  pages.commit();
  // Removing every other key, then the rest, merges pages level by level.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t i = pass; i < 30000; i += 2) {
      bool found = false;
      ASSERT_TRUE(remove(pages, tree, be_key(i), &found).is_ok());
      ASSERT_TRUE(found);
      model.erase(be_key(i));
      if (i % 4999 == 0) expect_counts(pages, tree, model, rng, candidates, 20);
    }
    expect_counts(pages, tree, model, rng, candidates, 300);
    ASSERT_TRUE(finalize(pages, tree).is_ok());
    pages.commit();
  }
  EXPECT_EQ(tree.root, kNullPage);
  auto r = rank(pages, tree, "x");
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(*r, 0u);
}

// A walk names the branch whose count disagrees with its child.
TEST(CountTest, WalkReportsADamagedCount) {
  MemPages pages(4096);
  TreeRoot tree;
  for (uint64_t i = 0; i < 2000; ++i) ASSERT_TRUE(put(pages, tree, be_key(i), "v").is_ok());
  ASSERT_EQ(tree.depth, 2u);
  NodeEditor(pages.writable(tree.root), 4096).add_child_entries(1, 1);
  TreeShape shape;
  const Status s = collect_stats(pages, tree, &shape);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.page_number(), tree.root) << s.to_string();
  EXPECT_NE(s.message().find("entry count mismatch"), std::string::npos) << s.to_string();
}

}  // namespace
}  // namespace ordo::btree
