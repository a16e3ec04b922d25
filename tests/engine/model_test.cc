// Randomized model test: the engine against std::map over many txns with
// commits, aborts, reopens and held read snapshots. Runs under both I/O
// backends (ctest runs this binary with ORDO_TEST_IO=posix and ORDO_TEST_IO=uring).
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "sanitizer_share.h"

namespace ordo {
namespace {

using testing::Model;

struct HeldSnapshot {
  ReadTxn txn;
  std::map<std::string, Model> model;
  std::vector<std::string> names;
  int commits_left;
};

class ModelTest : public ::testing::Test {
 protected:
  io::testing::TempDir dir_;
};

std::string random_key(std::mt19937_64& rng, uint32_t max_key) {
  uint64_t n = rng() % 20000;
  int shape = rng() % 100;
  if (shape == 0) return "";
  std::string k = std::to_string(n);
  if (shape == 1) {
    k.resize(max_key, static_cast<char>('a' + n % 26));  // maximal keys
  } else {
    k.resize(k.size() + rng() % 24, static_cast<char>('a' + n % 26));
  }
  return k;
}

std::string random_value(std::mt19937_64& rng, uint32_t max_inline) {
  int shape = rng() % 1000;
  if (shape < 10) return "";
  if (shape < 20) return std::string(max_inline, static_cast<char>(rng()));
  size_t len = rng() % 120;
  if (shape < 30) len = max_inline + 1 + rng() % 20000;  // overflow run
  if (shape == 30) len = 1 + (rng() % (1 << 20));
  std::string v(len, '\0');
  for (char& ch : v) ch = static_cast<char>(rng());
  return v;
}

TEST_F(ModelTest, RandomTxnsMatchStdMap) {
  const uint64_t seed = testing::test_seed(42);
  std::mt19937_64 rng(seed);
  const std::string path = dir_.file("model.ordo");
  auto db = testing::open_db(path);
  ASSERT_NE(db, nullptr);
  std::printf("io backend: %s\n", db->info().io_backend.c_str());
  const uint32_t max_key = db->max_key_bytes(), max_value = db->max_inline_value_bytes();
  std::vector<std::string> names = {"", "alpha", "beta"};
  std::map<std::string, Model> committed;
  std::vector<std::string> committed_names = names;
  std::vector<HeldSnapshot> held;
  long ops = 0;
  const long kOps = testing::sanitizer_share(200000);
  int txns = 0;
  while (ops < kOps) {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    std::map<std::string, Model> working = committed;
    std::vector<Tree> trees;
    for (const auto& name : names) {
      if (name.empty()) {
        trees.push_back(w->default_tree());
      } else {
        auto t = w->create_tree(name);
        ASSERT_TRUE(t.is_ok()) << t.status().to_string();
        trees.push_back(*t);
      }
    }
    int n = 1 + rng() % 2000;
    for (int i = 0; i < n; ++i, ++ops) {
      size_t ti = rng() % trees.size();
      Model& m = working[names[ti]];
      std::string key = random_key(rng, max_key);
      int kind = rng() % 100;
      if (kind < 55) {
        std::string value = random_value(rng, max_value);
        ASSERT_TRUE(w->put(trees[ti], key, value).is_ok());
        m[key] = value;
      } else if (kind < 80) {
        Status s = w->del(trees[ti], key);
        bool existed = m.erase(key) == 1;
        ASSERT_EQ(s.is_ok(), existed) << s.to_string();
        if (!existed) {
          ASSERT_TRUE(s.is_not_found());
        }
      } else if (kind < 97) {
        auto got = w->get(trees[ti], key);
        auto it = m.find(key);
        ASSERT_EQ(got.is_ok(), it != m.end());
        if (got.is_ok()) {
          ASSERT_EQ(got->str(), it->second);
        }
      } else {
        // A short scan from a random point, forwards or backwards.
        auto c = w->cursor(trees[ti]);
        ASSERT_TRUE(c.is_ok());
        ASSERT_TRUE(c->seek(key).is_ok());
        auto it = m.lower_bound(key);
        bool forward = rng() % 2;
        for (int step = 0; step < 50; ++step) {
          ASSERT_EQ(c->valid(), it != m.end());
          if (!c->valid()) break;
          ASSERT_EQ(c->key().str(), it->first);
          if (forward) {
            ASSERT_TRUE(c->next().is_ok());
            ++it;
          } else {
            ASSERT_TRUE(c->prev().is_ok());
            if (it == m.begin()) {
              ASSERT_FALSE(c->valid());
              break;
            }
            --it;
          }
        }
      }
    }
    // Now and then a named tree is dropped (and recreated empty next txn) or
    // renamed (and back under its old name next time it is dropped).
    if (rng() % 10 == 0) {
      size_t ti = 1 + rng() % (names.size() - 1);
      if (rng() % 2 == 0) {
        ASSERT_TRUE(w->drop_tree(names[ti]).is_ok());
        working.erase(names[ti]);
        ASSERT_TRUE(w->get(trees[ti], "x").status().is_not_found());
      } else {
        std::string to = names[ti] + "'";
        ASSERT_TRUE(w->rename_tree(names[ti], to).is_ok());
        ASSERT_TRUE(w->get(trees[ti], "x").status().is_not_found());
        working[to] = working[names[ti]];
        working.erase(names[ti]);
        names[ti] = to;
      }
    }
    if (rng() % 5 == 0) {
      w->abort();
    } else {
      Status s = w->commit();
      ASSERT_TRUE(s.is_ok()) << s.to_string();
      committed = working;
      committed_names = names;
      for (auto& h : held) h.commits_left--;
    }
    names = committed_names;
    ++txns;
    // Snapshots held across later commits must not change (free-page reuse
    // must respect them).
    for (auto it = held.begin(); it != held.end();) {
      if (it->commits_left > 0) {
        ++it;
        continue;
      }
      for (const auto& name : it->names) {
        Tree t = name.empty() ? it->txn.default_tree() : *it->txn.open_tree(name);
        testing::expect_tree_equals(it->txn, t, it->model[name]);
      }
      it = held.erase(it);
    }
    if (rng() % 8 == 0) {
      auto r = db->begin_read();
      ASSERT_TRUE(r.is_ok());
      held.push_back(
          {std::move(r).value(), committed, committed_names, 1 + static_cast<int>(rng() % 6)});
    }
    if (txns % 25 == 0) {
      held.clear();
      db.reset();
      db = testing::open_db(path);
      ASSERT_NE(db, nullptr);
      auto r = db->begin_read();
      ASSERT_TRUE(r.is_ok());
      for (const auto& name : names) {
        auto t = name.empty() ? Result<Tree>(r->default_tree()) : r->open_tree(name);
        ASSERT_TRUE(t.is_ok()) << t.status().to_string();
        testing::expect_tree_equals(*r, *t, committed[name]);
        auto stats = r->tree_stats(*t);
        ASSERT_TRUE(stats.is_ok()) << stats.status().to_string();
        ASSERT_EQ(stats->entries, committed[name].size());
      }
    }
  }
  std::printf("%ld operations in %d txns\n", ops, txns);
  held.clear();
  db.reset();
  db = testing::open_db(path);
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  for (const auto& name : names) {
    Tree t = name.empty() ? r->default_tree() : *r->open_tree(name);
    testing::expect_tree_equals(*r, t, committed[name]);
  }
}

}  // namespace
}  // namespace ordo
