// The rightmost-path cache through the engine: sequential puts interleaved with random
// puts, deletes, appends, large values, tree drops and re-creations, aborts, and a
// memory budget small enough that the txn spills, in several trees, against std::map.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"

namespace ordo {
namespace {

using testing::be_key;
using testing::Model;

constexpr int kTrees = 3;

std::string tree_name(int t) { return "t" + std::to_string(t); }

TEST(RightmostPathEngineTest, InterleavedWritesWithAbortsAndSpillsMatchStdMap) {
  const uint64_t seed = testing::test_seed(7);
  std::mt19937_64 rng(seed);
  io::testing::TempDir dir;
  Options options;
  options.txn_memory_budget_bytes = 1 << 20;  // the least allowed budget
  auto db = testing::open_db(dir.file("rightmost.ordo"), options);
  ASSERT_NE(db, nullptr);

  std::map<std::string, Model> committed;  // tree name -> contents
  std::vector<uint64_t> next(kTrees, 1'000'000);
  for (int txn_no = 0; txn_no < 30; ++txn_no) {
    std::map<std::string, Model> models = committed;
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    std::vector<Tree> trees;
    for (int t = 0; t < kTrees; ++t) {
      auto tree = w->create_tree(tree_name(t));
      ASSERT_TRUE(tree.is_ok());
      trees.push_back(*tree);
      models[tree_name(t)];
    }
    // Every fifth txn is large enough to pass the budget and spill.
    const int ops = txn_no % 5 == 4 ? 15000 : 1000 + static_cast<int>(rng() % 3000);
    for (int i = 0; i < ops; ++i) {
      const int t = static_cast<int>(rng() % kTrees);
      Model& model = models[tree_name(t)];
      const int op = static_cast<int>(rng() % 1000);
      std::string value(rng() % 900, static_cast<char>('a' + i % 26));
      if (op < 10) value.assign(1500 + rng() % 6000, 'L');  // overflow run
      if (op < 600) {                                       // at the right edge
        const std::string key = be_key(next[t]);
        next[t] += 1 + rng() % 2;
        ASSERT_TRUE(w->put(trees[t], key, value).is_ok());
        model[key] = value;
      } else if (op < 750) {  // anywhere, often an overwrite
        const std::string key = be_key(1'000'000 + rng() % (next[t] - 999'999));
        ASSERT_TRUE(w->put(trees[t], key, value).is_ok());
        model[key] = value;
      } else if (op < 800) {  // bulk-append API at the right edge
        const std::string key = be_key(next[t]++);
        ASSERT_TRUE(w->append(trees[t], key, value).is_ok());
        model[key] = value;
      } else if (op < 990) {  // delete: the last key, or one at random
        if (model.empty()) continue;
        auto it = op < 900 ? std::prev(model.end())
                           : model.lower_bound(be_key(1'000'000 + rng() % (next[t] - 999'999)));
        if (it == model.end()) continue;
        ASSERT_TRUE(w->del(trees[t], it->first).is_ok());
        model.erase(it);
      } else if (op < 995) {  // drop the tree and start it again
        ASSERT_TRUE(w->drop_tree(tree_name(t)).is_ok());
        model.clear();
        auto tree = w->create_tree(tree_name(t));
        ASSERT_TRUE(tree.is_ok());
        trees[t] = *tree;
      } else {  // read back through the write txn mid-way
        testing::expect_tree_equals(*w, trees[t], model);
      }
    }
    for (int t = 0; t < kTrees; ++t)
      testing::expect_tree_equals(*w, trees[t], models[tree_name(t)]);
    if (rng() % 4 == 0) {
      w->abort();
      continue;
    }
    ASSERT_TRUE(w->commit().is_ok()) << "txn " << txn_no;
    committed = std::move(models);
  }
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  for (int t = 0; t < kTrees; ++t) {
    auto tree = r->open_tree(tree_name(t));
    ASSERT_TRUE(tree.is_ok());
    testing::expect_tree_equals(*r, *tree, committed[tree_name(t)]);
  }
  auto report = r->check();
  ASSERT_TRUE(report.is_ok());
  EXPECT_TRUE(report->clean()) << report->problems[0].what;
}

}  // namespace
}  // namespace ordo
