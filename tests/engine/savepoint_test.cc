// WriteTxn savepoints: a seeded model test (a stack of std::map states
// beside the txn) over random writes, savepoints, rollbacks, releases and
// commits, with and without spilling; and targeted cases (cursors, trees
// created, dropped or renamed across a savepoint, stale savepoints, batch).
//
// ORDO_TEST_SEED replays a run; ORDO_SAVEPOINT_TXNS and ORDO_SAVEPOINT_OPS
// (txns per run, operations per txn) make it longer.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "temp_dir.h"

namespace ordo {
namespace {

using testing::Model;
using State = std::map<std::string, Model>;  // tree name ("" = default) -> entries

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtol(v, nullptr, 10) : fallback;
}

// Every tree of `txn` (names and entries) against `state`.
void expect_state(Txn& txn, const State& state) {
  auto names = txn.list_trees();
  ASSERT_TRUE(names.is_ok()) << names.status().to_string();
  std::vector<std::string> want;
  for (const auto& [name, m] : state) {
    if (!name.empty()) want.push_back(name);
  }
  ASSERT_EQ(*names, want);
  for (const auto& [name, m] : state) {
    auto t = name.empty() ? Result<Tree>(txn.default_tree()) : txn.open_tree(name);
    ASSERT_TRUE(t.is_ok()) << name << ": " << t.status().to_string();
    testing::expect_tree_equals(txn, *t, m);
    // The branch entry counts: a range and a rank read them off the paths.
    const std::string from = "k0001000", to = "k0003000";
    auto n = txn.count(*t, KeyRange::between(from, to));
    ASSERT_TRUE(n.is_ok()) << n.status().to_string();
    EXPECT_EQ(*n, static_cast<uint64_t>(std::distance(m.lower_bound(from), m.lower_bound(to))))
        << name;
    auto r = txn.rank(*t, to);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(*r, static_cast<uint64_t>(std::distance(m.begin(), m.lower_bound(to)))) << name;
  }
}

std::string key_of(uint64_t n) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%07llu", static_cast<unsigned long long>(n));
  return buf;
}

std::string value_of(std::mt19937_64& rng, uint32_t max_inline, uint32_t big_bytes) {
  const int shape = rng() % 100;
  size_t len = rng() % 60;
  if (shape < 4) len = max_inline + 1 + rng() % 12000;  // an overflow run
  if (shape >= 4 && shape < 20) len = big_bytes;        // fills pages fast
  std::string v(len, '\0');
  for (char& ch : v) ch = static_cast<char>('a' + rng() % 26);
  return v;
}

// Which tree a name has in the txn: bumped by each create of or rename to it
// (a cursor of the tree before reports NotFound, as a dropped tree's does).
using Born = std::map<std::string, int>;

struct Level {
  Savepoint sp;
  State state;
  Born born = {};
};

// One run: `budget` is Options::txn_memory_budget_bytes (small to force spills).
void run_model(uint64_t seed, uint64_t budget, uint32_t big_bytes, uint64_t* spilled_out) {
  std::mt19937_64 rng(seed);
  testing::TempDir dir;
  const std::string path = dir.file("sp.ordo");
  Options options;
  options.txn_memory_budget_bytes = budget;
  auto db = testing::open_db(path, options);
  ASSERT_NE(db, nullptr);
  const uint32_t max_inline = db->max_inline_value_bytes();
  const long txns = env_long("ORDO_SAVEPOINT_TXNS", 24);
  const long ops_per_txn = env_long("ORDO_SAVEPOINT_OPS", budget < (8 << 20) ? 1500 : 600);
  const std::vector<std::string> pool = {"a", "b", "c", "d"};
  {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok() && w->create_tree("a").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  State committed = {{"", {}}, {"a", {}}};
  long rollbacks = 0, releases = 0, max_depth = 0;
  for (long t = 0; t < txns; ++t) {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    State working = committed;
    std::vector<Level> stack;
    std::vector<Savepoint> ended;  // savepoints no longer open
    // A cursor kept across operations: where it should be, by key.
    std::optional<Cursor> cursor;
    std::string cursor_tree, cursor_key;
    Born born;
    int cursor_born = 0;
    bool cursor_valid = false;
    auto tree_of = [&](const std::string& name) {
      return name.empty() ? Result<Tree>(w->default_tree()) : w->open_tree(name);
    };
    auto existing_name = [&]() {
      auto it = working.begin();
      std::advance(it, rng() % working.size());
      return it->first;
    };
    for (long i = 0; i < ops_per_txn; ++i) {
      const int op = rng() % 1000;
      const std::string name = existing_name();
      auto tree = tree_of(name);
      ASSERT_TRUE(tree.is_ok()) << name << ": " << tree.status().to_string();
      Model& m = working[name];
      const std::string key = key_of(rng() % 4000);
      if (op < 380) {
        const std::string v = value_of(rng, max_inline, big_bytes);
        ASSERT_TRUE(w->put(*tree, key, v).is_ok());
        m[key] = v;
      } else if (op < 500) {
        Status s = w->del(*tree, key);
        const bool existed = m.erase(key) == 1;
        ASSERT_EQ(s.is_ok(), existed) << s.to_string();
      } else if (op < 560) {
        const std::string v = value_of(rng, max_inline, big_bytes);
        auto r = w->insert(*tree, key, v);
        ASSERT_TRUE(r.is_ok()) << r.status().to_string();
        ASSERT_EQ(*r, m.count(key) == 0);
        m.emplace(key, v);
      } else if (op < 580) {
        // A run of puts: splits, and with big values spills.
        const uint64_t from = rng() % 4000;
        const int n = 50 + rng() % 300;
        for (int j = 0; j < n; ++j) {
          const std::string k = key_of(from + j);
          const std::string v = value_of(rng, max_inline, big_bytes);
          ASSERT_TRUE(w->put(*tree, k, v).is_ok());
          m[k] = v;
        }
      } else if (op < 600) {
        // A range removed: merges.
        const std::string to = key_of(rng() % 4000 + rng() % 800);
        auto n = w->del_range(*tree, key, to);
        ASSERT_TRUE(n.is_ok()) << n.status().to_string();
        uint64_t want = 0;
        if (key < to) {
          for (auto it = m.lower_bound(key); it != m.end() && it->first < to;) {
            it = m.erase(it);
            ++want;
          }
        }
        ASSERT_EQ(*n, want);
      } else if (op < 615) {
        // Appends past the last key (a bulk load's path).
        std::string k = m.empty() ? key : m.rbegin()->first;
        if (k.size() > 40) continue;
        k += static_cast<char>('a' + rng() % 26);
        const std::string v = value_of(rng, max_inline, big_bytes);
        ASSERT_TRUE(w->append(*tree, k, v).is_ok());
        m[k] = v;
      } else if (op < 625) {
        // compare_and_set against the model's value (or a wrong one).
        auto it = m.find(key);
        std::optional<std::string> expected;
        if (it != m.end()) expected = it->second;
        const bool wrong = rng() % 4 == 0;
        if (wrong) expected = expected ? std::nullopt : std::optional<std::string>("x");
        const bool remove = rng() % 3 == 0;
        const std::string v = value_of(rng, max_inline, big_bytes);
        auto r = w->compare_and_set(*tree, key,
                                    expected ? std::optional<ByteView>(*expected) : std::nullopt,
                                    remove ? std::nullopt : std::optional<ByteView>(v));
        ASSERT_TRUE(r.is_ok()) << r.status().to_string();
        ASSERT_EQ(*r, !wrong);
        if (!wrong && remove) m.erase(key);
        if (!wrong && !remove) m[key] = v;
      } else if (op < 640) {
        auto got = w->get(*tree, key);
        auto it = m.find(key);
        ASSERT_EQ(got.is_ok(), it != m.end());
        if (got.is_ok()) {
          ASSERT_EQ(got->str(), it->second);
        }
      } else if (op < 650) {
        // Trees: create, drop or rename a named one.
        const std::string other = pool[rng() % pool.size()];
        const int kind = rng() % 3;
        if (working.count(other) == 0) {
          if (kind == 0 || name.empty()) {
            ASSERT_TRUE(w->create_tree(other).is_ok());
            working[other];
          } else {
            ASSERT_TRUE(w->rename_tree(name, other).is_ok());
            working[other] = std::move(working[name]);
            working.erase(name);
          }
          born[other]++;
        } else if (!other.empty() && kind == 2) {
          ASSERT_TRUE(w->drop_tree(other).is_ok());
          working.erase(other);
        }
      } else if (op < 720) {
        auto sp = w->savepoint();
        ASSERT_TRUE(sp.is_ok()) << sp.status().to_string();
        stack.push_back({*sp, working, born});
        max_depth = std::max<long>(max_depth, stack.size());
      } else if (op < 780) {
        if (stack.empty()) continue;
        const size_t at = rng() % stack.size();
        Status s = w->rollback_to(stack[at].sp);
        ASSERT_TRUE(s.is_ok()) << s.to_string();
        working = stack[at].state;
        born = stack[at].born;
        for (size_t j = at + 1; j < stack.size(); ++j) ended.push_back(stack[j].sp);
        stack.resize(at + 1);
        ++rollbacks;
        if (rng() % 4 == 0) {
          ASSERT_NO_FATAL_FAILURE(expect_state(*w, working));
        }
      } else if (op < 810) {
        if (stack.empty()) continue;
        const size_t at = rng() % stack.size();
        ASSERT_TRUE(w->release(stack[at].sp).is_ok());
        for (size_t j = at; j < stack.size(); ++j) ended.push_back(stack[j].sp);
        stack.resize(at);
        ++releases;
      } else if (op < 820) {
        if (ended.empty()) continue;
        const Savepoint& sp = ended[rng() % ended.size()];
        ASSERT_TRUE(w->rollback_to(sp).is_invalid_argument());
        ASSERT_TRUE(w->release(sp).is_invalid_argument());
      } else if (op < 840) {
        // (Re)positions the kept cursor.
        auto c = w->cursor(*tree);
        ASSERT_TRUE(c.is_ok());
        ASSERT_TRUE(c->seek(key).is_ok());
        cursor.emplace(std::move(c).value());
        cursor_tree = name;
        cursor_born = born[name];
        auto it = m.lower_bound(key);
        cursor_valid = it != m.end();
        if (cursor_valid) cursor_key = it->first;
      } else if (op < 870) {
        if (!cursor) continue;
        // The cursor re-seeks the key it was on, in whatever state the txn is now.
        auto tit = working.find(cursor_tree);
        if (tit == working.end() || born[cursor_tree] != cursor_born) {
          ASSERT_FALSE(cursor->valid());
          ASSERT_TRUE(cursor->status().is_not_found()) << cursor->status().to_string();
          cursor.reset();
          continue;
        }
        if (!cursor_valid) {
          ASSERT_FALSE(cursor->valid());
          continue;
        }
        auto it = tit->second.lower_bound(cursor_key);
        ASSERT_EQ(cursor->valid(), it != tit->second.end()) << cursor->status().to_string();
        if (it == tit->second.end()) {
          cursor_valid = false;
          continue;
        }
        ASSERT_EQ(cursor->key().str(), it->first);
        ASSERT_EQ(cursor->value().str(), it->second);
        cursor_key = it->first;
      }
    }
    ASSERT_NO_FATAL_FAILURE(expect_state(*w, working));
    if (rng() % 6 == 0) {
      w->abort();
    } else {
      Status s = w->commit();
      ASSERT_TRUE(s.is_ok()) << s.to_string();
      committed = working;
      for (const Level& l : stack) ASSERT_TRUE(w->rollback_to(l.sp).is_txn_ended());
    }
    if (t % 6 == 5 || t + 1 == txns) {
      *spilled_out += db->stats().pages_spilled;  // counted per handle
      db.reset();
      db = testing::open_db(path, options);
      ASSERT_NE(db, nullptr);
    }
    auto r = db->begin_read();
    ASSERT_TRUE(r.is_ok());
    ASSERT_NO_FATAL_FAILURE(expect_state(*r, committed));
    if (t % 3 == 2 || t + 1 == txns) {
      ASSERT_NO_FATAL_FAILURE(testing::expect_check_clean(*r));
    }
  }
  std::printf("%ld txns: %ld rollbacks, %ld releases, depth up to %ld\n", txns, rollbacks, releases,
              max_depth);
  EXPECT_GT(rollbacks, 0);
}

TEST(SavepointModelTest, RandomSequencesMatchAStackOfMaps) {
  uint64_t spilled = 0;
  ASSERT_NO_FATAL_FAILURE(run_model(testing::test_seed(7), 256ull << 20, 100, &spilled));
}

TEST(SavepointModelTest, RandomSequencesWithSpilling) {
  uint64_t spilled = 0;
  // 1 MiB: about 250 dirty pages before leaves go to the file.
  ASSERT_NO_FATAL_FAILURE(run_model(testing::test_seed(11), 1 << 20, 1000, &spilled));
  std::printf("%llu pages spilled\n", static_cast<unsigned long long>(spilled));
  EXPECT_GT(spilled, 0u);
}

class SavepointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing::open_db(dir_.file("t.ordo"));
    ASSERT_NE(db_, nullptr);
  }
  testing::TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(SavepointTest, RollbackUndoesWritesAndKeepsTheSavepoint) {
  auto w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  Tree t = w->default_tree();
  ASSERT_TRUE(w->put(t, "a", "1").is_ok());
  auto sp = w->savepoint();
  ASSERT_TRUE(sp.is_ok());
  ASSERT_TRUE(w->put(t, "a", "2").is_ok());
  ASSERT_TRUE(w->put(t, "b", "2").is_ok());
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  EXPECT_EQ(w->get(t, "a")->str(), "1");
  EXPECT_TRUE(w->get(t, "b").status().is_not_found());
  // Still open: a second rollback to it works.
  ASSERT_TRUE(w->del(t, "a").is_ok());
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  EXPECT_EQ(w->get(t, "a")->str(), "1");
  ASSERT_TRUE(w->put(t, "c", "3").is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  auto r = db_->begin_read();
  ASSERT_TRUE(r.is_ok());
  ASSERT_NO_FATAL_FAILURE(expect_state(*r, State{{"", {{"a", "1"}, {"c", "3"}}}}));
  ASSERT_NO_FATAL_FAILURE(testing::expect_check_clean(*r));
}

// Puts at the right edge take the cached rightmost path, which writes the
// branches' entry counts through bytes kept from an earlier put; a savepoint
// between them must still get those branches back on a rollback.
TEST_F(SavepointTest, RightEdgePutsAcrossASavepointRollBackTheirCounts) {
  auto w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  Tree t = w->default_tree();
  uint64_t n = 0;
  for (; n < 20000; ++n) ASSERT_TRUE(w->put(t, key_of(n), "v").is_ok());  // depth >= 2
  auto sp = w->savepoint();
  ASSERT_TRUE(sp.is_ok());
  for (uint64_t i = 0; i < 500; ++i) ASSERT_TRUE(w->put(t, key_of(n + i), "v").is_ok());
  EXPECT_EQ(*w->count(t, KeyRange::starting_at(key_of(1))), n + 500 - 1);
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  EXPECT_EQ(*w->count(t, KeyRange::starting_at(key_of(1))), n - 1);
  EXPECT_EQ(*w->rank(t, key_of(n + 10)), n);
  // Again after the rollback: the path is found afresh, then cached.
  for (uint64_t i = 0; i < 500; ++i) ASSERT_TRUE(w->put(t, key_of(n + i), "v").is_ok());
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  EXPECT_EQ(*w->count(t, KeyRange::starting_at(key_of(1))), n - 1);
  ASSERT_TRUE(w->commit().is_ok());
  auto r = db_->begin_read();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(*r->count(t, KeyRange::all()), n);
  ASSERT_NO_FATAL_FAILURE(testing::expect_check_clean(*r));
}

TEST_F(SavepointTest, NestedRollbackToAnOuterOneEndsTheInnerOnes) {
  auto w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  Tree t = w->default_tree();
  std::vector<Savepoint> sps;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(w->put(t, "k", std::to_string(i)).is_ok());
    sps.push_back(*w->savepoint());
  }
  ASSERT_TRUE(w->put(t, "k", "5").is_ok());
  ASSERT_TRUE(w->rollback_to(sps[3]).is_ok());
  EXPECT_EQ(w->get(t, "k")->str(), "3");
  EXPECT_TRUE(w->rollback_to(sps[4]).is_invalid_argument());
  ASSERT_TRUE(w->rollback_to(sps[1]).is_ok());
  EXPECT_EQ(w->get(t, "k")->str(), "1");
  Status s = w->release(sps[2]);
  EXPECT_TRUE(s.is_invalid_argument());
  EXPECT_NE(s.to_string().find("no longer open"), std::string::npos) << s.to_string();
  ASSERT_TRUE(w->release(sps[0]).is_ok());  // ends sps[0] and sps[1]
  EXPECT_TRUE(w->rollback_to(sps[1]).is_invalid_argument());
  EXPECT_EQ(w->get(t, "k")->str(), "1");
}

TEST_F(SavepointTest, ForeignAndDefaultSavepointsAreRefused) {
  Savepoint other;
  {
    auto w = db_->begin_write();
    ASSERT_TRUE(w.is_ok());
    other = *w->savepoint();
    w->abort();
  }
  auto w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  Status s = w->rollback_to(other);
  EXPECT_TRUE(s.is_invalid_argument());
  EXPECT_NE(s.to_string().find("another write txn"), std::string::npos) << s.to_string();
  EXPECT_TRUE(w->rollback_to(Savepoint()).is_invalid_argument());
  EXPECT_TRUE(w->release(Savepoint()).is_invalid_argument());
  auto sp = w->savepoint();
  ASSERT_TRUE(w->commit().is_ok());
  EXPECT_TRUE(w->rollback_to(*sp).is_txn_ended());
  EXPECT_TRUE(w->savepoint().status().is_txn_ended());
}

TEST_F(SavepointTest, TreesCreatedDroppedAndRenamedAcrossASavepoint) {
  {
    auto w = db_->begin_write();
    ASSERT_TRUE(w.is_ok());
    auto a = w->create_tree("a");
    auto b = w->create_tree("b");
    ASSERT_TRUE(w->put(*a, "x", "a").is_ok());
    ASSERT_TRUE(w->put(*b, "x", "b").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  Tree a = *w->open_tree("a");
  Tree b = *w->open_tree("b");
  auto sp = w->savepoint();
  ASSERT_TRUE(sp.is_ok());
  Tree c = *w->create_tree("c");
  ASSERT_TRUE(w->put(c, "x", "c").is_ok());
  ASSERT_TRUE(w->drop_tree("a").is_ok());
  ASSERT_TRUE(w->rename_tree("b", "b2").is_ok());
  EXPECT_TRUE(w->get(a, "x").status().is_not_found());
  EXPECT_TRUE(w->get(b, "x").status().is_not_found());
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  // The handles of the dropped and renamed trees reach them again; the new tree is gone.
  EXPECT_EQ(w->get(a, "x")->str(), "a");
  EXPECT_EQ(w->get(b, "x")->str(), "b");
  EXPECT_TRUE(w->get(c, "x").status().is_not_found());
  EXPECT_TRUE(w->put(c, "y", "1").is_not_found());
  EXPECT_TRUE(w->open_tree("b2").status().is_not_found());
  auto names = w->list_trees();
  ASSERT_TRUE(names.is_ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(w->put(a, "y", "a").is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  auto r = db_->begin_read();
  ASSERT_TRUE(r.is_ok());
  ASSERT_NO_FATAL_FAILURE(
      expect_state(*r, State{{"", {}}, {"a", {{"x", "a"}, {"y", "a"}}}, {"b", {{"x", "b"}}}}));
  ASSERT_NO_FATAL_FAILURE(testing::expect_check_clean(*r));
}

TEST_F(SavepointTest, CursorsReSeekTheirKeyAfterARollback) {
  auto w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  Tree t = w->default_tree();
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(w->put(t, key_of(i), std::string(100, 'v')).is_ok());
  auto sp = w->savepoint();
  auto c = w->cursor(t);
  ASSERT_TRUE(c.is_ok());
  ASSERT_TRUE(c->seek(key_of(1000)).is_ok());
  ASSERT_TRUE(w->del_range(t, key_of(500), key_of(1500)).is_ok());
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key().str(), key_of(1500));  // its key was deleted: the entry after it
  ASSERT_TRUE(c->prev().is_ok());
  EXPECT_EQ(c->key().str(), key_of(499));
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key().str(), key_of(499));
  ASSERT_TRUE(c->next().is_ok());
  EXPECT_EQ(c->key().str(), key_of(500));  // back after the rollback

  // A cursor of a tree the rollback removes reports NotFound.
  auto sp2 = w->savepoint();
  Tree n = *w->create_tree("n");
  ASSERT_TRUE(w->put(n, "k", "v").is_ok());
  auto cn = w->cursor(n);
  ASSERT_TRUE(cn.is_ok());
  ASSERT_TRUE(cn->first().is_ok());
  ASSERT_TRUE(cn->valid());
  ASSERT_TRUE(w->rollback_to(*sp2).is_ok());
  EXPECT_FALSE(cn->valid());
  EXPECT_TRUE(cn->status().is_not_found()) << cn->status().to_string();
  EXPECT_TRUE(cn->first().is_not_found());

  // A cursor whose tree was dropped, then brought back by a rollback: the
  // NotFound it met meanwhile no longer describes it.
  Tree m = *w->create_tree("m");
  ASSERT_TRUE(w->put(m, "a", "1").is_ok());
  auto cm = w->cursor(m);
  ASSERT_TRUE(cm.is_ok());
  ASSERT_TRUE(cm->seek("a").is_ok());
  auto sp3 = w->savepoint();
  ASSERT_TRUE(w->drop_tree("m").is_ok());
  EXPECT_FALSE(cm->valid());
  EXPECT_TRUE(cm->status().is_not_found()) << cm->status().to_string();
  ASSERT_TRUE(w->rollback_to(*sp3).is_ok());
  ASSERT_TRUE(cm->valid());
  EXPECT_TRUE(cm->status().is_ok()) << cm->status().to_string();
  EXPECT_EQ(cm->key().str(), "a");
}

TEST(SavepointSpillTest, SpilledPagesComeBackAsTheyWereAtTheSavepoint) {
  testing::TempDir dir;
  Options options;
  options.txn_memory_budget_bytes = 1 << 20;  // about 250 dirty pages
  auto db = testing::open_db(dir.file("spill.ordo"), options);
  ASSERT_NE(db, nullptr);
  auto w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  Tree t = w->default_tree();
  Model model;
  for (int i = 0; i < 3000; ++i) {
    const std::string v(900, static_cast<char>('a' + i % 26));
    ASSERT_TRUE(w->put(t, key_of(i), v).is_ok());
    model[key_of(i)] = v;
  }
  auto sp = w->savepoint();
  ASSERT_TRUE(sp.is_ok());
  for (int i = 0; i < 3000; i += 2) ASSERT_TRUE(w->put(t, key_of(i), "changed").is_ok());
  ASSERT_TRUE(w->del_range(t, key_of(1000), key_of(2000)).is_ok());
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  ASSERT_NO_FATAL_FAILURE(testing::expect_tree_equals(*w, t, model));
  ASSERT_TRUE(w->commit().is_ok());
  // 2.7 MB of leaves against a 1 MiB budget: most went to the file before
  // the savepoint, and again after it (counted at commit).
  EXPECT_GT(db->stats().pages_spilled, 300u);
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  ASSERT_NO_FATAL_FAILURE(testing::expect_tree_equals(*r, t, model));
  ASSERT_NO_FATAL_FAILURE(testing::expect_check_clean(*r));
}

TEST_F(SavepointTest, IdsAreNotRolledBack) {
  auto w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  auto sp = w->savepoint();
  auto id1 = w->next_id64();
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  auto id2 = w->next_id64();
  ASSERT_TRUE(id1.is_ok() && id2.is_ok());
  EXPECT_LT(id1->value, id2->value);
}

TEST_F(SavepointTest, OverflowRunFreedAfterASavepointSurvivesTheRollback) {
  auto w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  Tree t = w->default_tree();
  const std::string big(50000, 'b');
  ASSERT_TRUE(w->put(t, "big", big).is_ok());
  auto sp = w->savepoint();
  // The run is freed; new runs would reuse its pages if it were given back now.
  ASSERT_TRUE(w->put(t, "big", "small").is_ok());
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(w->put(t, "other" + std::to_string(i), std::string(50000, 'o')).is_ok());
  }
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  EXPECT_EQ(w->get(t, "big")->str(), big);
  ASSERT_TRUE(w->release(*sp).is_ok());
  ASSERT_TRUE(w->put(t, "big", "small").is_ok());  // the run is freed for good
  ASSERT_TRUE(w->commit().is_ok());
  auto r = db_->begin_read();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->get(t, "big")->str(), "small");
  ASSERT_NO_FATAL_FAILURE(testing::expect_check_clean(*r));
}

TEST_F(SavepointTest, RollbackReturnsPagesToTheAllocator) {
  // A rollback of a large change leaves the file as if it had never been made.
  auto high_water = [&]() {
    auto r = db_->begin_read();
    EXPECT_TRUE(r.is_ok());
    auto report = r->check();
    EXPECT_TRUE(report.is_ok() && report->clean());
    return report->high_water_pages;
  };
  auto w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  Tree t = w->default_tree();
  ASSERT_TRUE(w->put(t, "a", "1").is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  const uint64_t before = high_water();
  w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  auto sp = w->savepoint();
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(w->put(t, key_of(i), std::string(200, 'v')).is_ok());
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  ASSERT_TRUE(w->put(t, "b", "2").is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  // A one-leaf txn's few pages: none of the rolled-back puts' hundreds.
  EXPECT_LE(high_water(), before + 4);
}

TEST_F(SavepointTest, BatchFunctionsUseTheirOwnSavepoints) {
  Savepoint leaked;
  Status s = db_->batch([&](WriteTxn& txn) {
    ORDO_RETURN_IF_ERROR(txn.put(txn.default_tree(), "a", "1"));
    ORDO_ASSIGN_OR_RETURN(Savepoint sp, txn.savepoint());
    ORDO_RETURN_IF_ERROR(txn.put(txn.default_tree(), "b", "1"));
    ORDO_RETURN_IF_ERROR(txn.rollback_to(sp));
    ORDO_ASSIGN_OR_RETURN(leaked, txn.savepoint());  // left open
    return txn.put(txn.default_tree(), "c", "1");
  });
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  auto r = db_->begin_read();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->get(r->default_tree(), "a")->str(), "1");
  EXPECT_TRUE(r->get(r->default_tree(), "b").status().is_not_found());
  EXPECT_EQ(r->get(r->default_tree(), "c")->str(), "1");
  // Ended with its txn.
  auto w = db_->begin_write();
  ASSERT_TRUE(w.is_ok());
  EXPECT_TRUE(w->rollback_to(leaked).is_invalid_argument());
}

// A logged commit after rollbacks carries only the operations kept: replayed
// after a crash (the file as the checkpoint left it, the log as the records
// left it), it gives the committed state.
TEST(SavepointReplayTest, LogRecordOfATxnWithRollbacksReplays) {
  std::mt19937_64 rng(testing::test_seed(3));
  testing::TempDir dir;
  Options options;
  options.log_bytes = 1 << 20;
  auto db = testing::open_db(dir.file("live.ordo"), options);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->checkpoint().is_ok());
  const DatabaseInfo at_checkpoint = db->info();
  const std::vector<std::byte> checkpoint_image = io::testing::read_file(dir.file("live.ordo"));
  State committed = {{"", {}}};
  const int kTxns = 12;
  for (int t = 0; t < kTxns; ++t) {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    State working = committed;
    std::vector<Level> stack;
    for (int i = 0; i < 60; ++i) {
      const int op = rng() % 10;
      const std::string key = key_of(rng() % 300);
      Tree tree = w->default_tree();
      if (op < 4) {
        const std::string v = std::to_string(rng());
        ASSERT_TRUE(w->put(tree, key, v).is_ok());
        working[""][key] = v;
      } else if (op < 5) {
        auto n = w->del_range(tree, key, key_of(rng() % 300));
        ASSERT_TRUE(n.is_ok());
        Model& m = working[""];
        for (auto it = m.lower_bound(key); n.value() > 0 && it != m.end(); --n.value()) {
          it = m.erase(it);
        }
      } else if (op < 6) {
        const std::string name = "t" + std::to_string(rng() % 3);
        if (working.count(name) == 0) {
          ASSERT_TRUE(w->create_tree(name).is_ok());
          ASSERT_TRUE(w->put(*w->open_tree(name), key, "x").is_ok());
          working[name][key] = "x";
        } else {
          ASSERT_TRUE(w->drop_tree(name).is_ok());
          working.erase(name);
        }
      } else if (op < 8) {
        stack.push_back({*w->savepoint(), working});
      } else if (!stack.empty()) {
        const size_t at = rng() % stack.size();
        ASSERT_TRUE(w->rollback_to(stack[at].sp).is_ok());
        working = stack[at].state;
        stack.resize(at + 1);
      }
    }
    ASSERT_TRUE(w->commit().is_ok());
    committed = working;
  }
  const DatabaseInfo last = db->info();
  ASSERT_EQ(last.log.epoch, at_checkpoint.log.epoch) << "a checkpoint came between the commits";
  ASSERT_EQ(last.log.records, static_cast<uint64_t>(kTxns));
  const std::vector<std::byte> live = io::testing::read_file(dir.file("live.ordo"));
  const uint64_t log_at = last.log.first_page * last.page_size_bytes;
  std::vector<std::byte> image = checkpoint_image;
  ASSERT_LE(log_at + last.log.area_bytes, image.size());
  std::memcpy(image.data() + log_at, live.data() + log_at, last.log.area_bytes);
  ASSERT_TRUE(io::testing::write_file(dir.file("crash.ordo"), image));
  auto replayed = testing::open_db(dir.file("crash.ordo"), options);
  ASSERT_NE(replayed, nullptr);
  EXPECT_EQ(replayed->info().log.replayed_records, static_cast<uint64_t>(kTxns));
  auto r = replayed->begin_read();
  ASSERT_TRUE(r.is_ok());
  ASSERT_NO_FATAL_FAILURE(expect_state(*r, committed));
  ASSERT_NO_FATAL_FAILURE(testing::expect_check_clean(*r));
}

}  // namespace
}  // namespace ordo
