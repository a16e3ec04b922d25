// Txn::count, rank and at against a std::map model: in write txns (dirty
// pages) and read txns, after commits, reopen, del_range, appends, and in
// compact and plain copies.
#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/copy.h"

namespace ordo {
namespace {

using testing::be_key;
using Model = std::map<std::string, std::string>;

uint64_t model_rank(const Model& m, const std::string& key) {
  return static_cast<uint64_t>(std::distance(m.begin(), m.lower_bound(key)));
}

uint64_t model_count(const Model& m, const KeyRange& range) {
  uint64_t n = 0;
  for (auto it = m.lower_bound(range.from().str()); it != m.end(); ++it) {
    if (range.past_end(ByteView(it->first))) break;
    ++n;
  }
  return n;
}

std::string random_key(std::mt19937_64& rng) { return be_key(rng() % 50000).substr(4); }

// Probes counts, ranks and positions of `tree` in `txn` against `model`.
void expect_counts(Txn& txn, const Tree& tree, const Model& model, std::mt19937_64& rng) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : model) keys.push_back(k);
  auto all = txn.count(tree, KeyRange::all());
  ASSERT_TRUE(all.is_ok()) << all.status().to_string();
  ASSERT_EQ(*all, model.size());
  for (int p = 0; p < 100; ++p) {
    const std::string a = random_key(rng), b = random_key(rng);
    auto r = txn.rank(tree, a);
    ASSERT_TRUE(r.is_ok());
    ASSERT_EQ(*r, model_rank(model, a));
    for (const KeyRange& range :
         {KeyRange::between(a, b), KeyRange::starting_at(a), KeyRange::prefix(a.substr(0, 2))}) {
      auto c = txn.count(tree, range);
      ASSERT_TRUE(c.is_ok());
      ASSERT_EQ(*c, model_count(model, range)) << "from " << range.from().str().size();
    }
    if (!keys.empty()) {
      const uint64_t i = rng() % keys.size();
      auto cursor = txn.at(tree, i);
      ASSERT_TRUE(cursor.is_ok()) << cursor.status().to_string();
      ASSERT_TRUE(cursor->valid());
      ASSERT_EQ(cursor->key().str(), keys[i]);
      ASSERT_EQ(cursor->value().str(), model.at(keys[i]));
      // The cursor moves on from there as any cursor does.
      ASSERT_TRUE(cursor->next().is_ok());
      if (i + 1 < keys.size()) {
        ASSERT_TRUE(cursor->valid());
        ASSERT_EQ(cursor->key().str(), keys[i + 1]);
      } else {
        ASSERT_FALSE(cursor->valid());
      }
    }
  }
  auto past = txn.at(tree, model.size());
  ASSERT_TRUE(past.status().is_not_found()) << past.status().to_string();
}

// expect_counts() on tree "t" in a new read txn of `db`; with `check`, the
// txn's check() finds nothing either.
void expect_committed_counts(Database& db, const Model& model, std::mt19937_64& rng, bool check) {
  auto r = db.begin_read();
  ASSERT_TRUE(r.is_ok());
  auto t = r->open_tree("t");
  ASSERT_TRUE(t.is_ok());
  expect_counts(*r, *t, model, rng);
  if (check) testing::expect_check_clean(*r);
}

class CountTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("count.ordo"); }
  io::testing::TempDir dir_;
};

TEST_F(CountTest, MatchesTheModelInWriteAndReadTxnsAcrossCommitsAndReopen) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  Model model;
  uint64_t tail = 0;
  for (int round = 0; round < 8; ++round) {
    auto db = testing::open_db(path());
    for (int commit = 0; commit < 3; ++commit) {
      auto w = db->begin_write();
      ASSERT_TRUE(w.is_ok());
      auto t = w->create_tree("t");
      ASSERT_TRUE(t.is_ok());
      for (int op = 0; op < 1500; ++op) {
        const int kind = static_cast<int>(rng() % 100);
        const std::string key = random_key(rng);
        if (kind < 60) {
          const std::string value(rng() % 5 == 0 ? 1500 : rng() % 100, 'a' + rng() % 26);
          ASSERT_TRUE(w->put(*t, key, value).is_ok());
          model[key] = value;
        } else if (kind < 85) {
          const Status s = w->del(*t, key);
          ASSERT_TRUE(s.is_ok() || s.is_not_found()) << s.to_string();
          model.erase(key);
        } else if (kind < 98) {
          const std::string k = "\xff" + be_key(tail++);
          ASSERT_TRUE(w->append(*t, k, "tail").is_ok());
          model[k] = "tail";
        } else {
          const std::string to = random_key(rng);
          auto n = w->del_range(*t, key, to);
          ASSERT_TRUE(n.is_ok());
          const KeyRange range = KeyRange::between(key, to);
          ASSERT_EQ(*n, model_count(model, range));
          model.erase(model.lower_bound(key),
                      key < to ? model.lower_bound(to) : model.lower_bound(key));
        }
      }
      expect_counts(*w, *t, model, rng);  // on the txn's dirty pages
      ASSERT_TRUE(w->commit().is_ok());
      expect_committed_counts(*db, model, rng, /*check=*/false);
    }
  }
  auto db = testing::open_db(path());
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  auto t = r->open_tree("t");
  ASSERT_TRUE(t.is_ok());
  expect_counts(*r, *t, model, rng);
  testing::expect_check_clean(*r);
  // Copies: plain (the same pages) and compact (branches built anew).
  for (bool compact : {false, true}) {
    CopyOptions options;
    options.compact = compact;
    const std::string copy = dir_.file(compact ? "compact.ordo" : "plain.ordo");
    ASSERT_TRUE(r->copy_to(copy, options).is_ok());
    expect_committed_counts(*testing::open_db(copy), model, rng, /*check=*/true);
  }
}

// Puts at the right edge go through the write txn's rightmost-path cache,
// which writes their branch counts late (RightmostPath::flush): every count
// in the txn, a savepoint and a rollback to it, a delete and the commit see
// them all.
TEST_F(CountTest, RightEdgePutsAreCountedInTheTxnAcrossSavepointsAndCommit) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  auto db = testing::open_db(path());
  auto w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  auto t = w->create_tree("t");
  ASSERT_TRUE(t.is_ok());
  Model model;
  uint64_t next = 0;
  // Ascending keys in random_key()'s space, so the probes land among them.
  auto put_run = [&](uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      const std::string key = be_key(next++).substr(4);
      ASSERT_TRUE(w->put(*t, key, "v").is_ok());
      model[key] = "v";
    }
  };
  put_run(20000);
  expect_counts(*w, *t, model, rng);
  put_run(3000);
  auto sp = w->savepoint();
  ASSERT_TRUE(sp.is_ok());
  const Model saved = model;
  put_run(5000);
  expect_counts(*w, *t, model, rng);
  ASSERT_TRUE(w->rollback_to(*sp).is_ok());
  model = saved;
  next = model.size();
  expect_counts(*w, *t, model, rng);
  put_run(4000);
  const std::string middle = be_key(rng() % next).substr(4);
  ASSERT_TRUE(w->del(*t, middle).is_ok());
  model.erase(middle);
  ASSERT_TRUE(w->put(*t, middle, "back").is_ok());  // below the last leaf: a descent
  model[middle] = "back";
  put_run(4000);
  ASSERT_TRUE(w->commit().is_ok());
  expect_committed_counts(*db, model, rng, /*check=*/true);
}

TEST_F(CountTest, EmptyAndUnknownTreesAndEndedTxns) {
  auto db = testing::open_db(path());
  auto w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  auto c = w->count(w->default_tree(), KeyRange::all());
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(*c, 0u);
  EXPECT_TRUE(w->at(w->default_tree(), 0).status().is_not_found());
  auto t = w->create_tree("t");
  ASSERT_TRUE(t.is_ok());
  for (uint64_t i = 0; i < 100000; ++i) ASSERT_TRUE(w->append(*t, be_key(i), "v").is_ok());
  auto n = w->count(*t, KeyRange::between(be_key(1000), be_key(2000)));
  ASSERT_TRUE(n.is_ok());
  EXPECT_EQ(*n, 1000u);
  auto rank = w->rank(*t, be_key(77777));
  ASSERT_TRUE(rank.is_ok());
  EXPECT_EQ(*rank, 77777u);
  auto cur = w->at(*t, 99999);
  ASSERT_TRUE(cur.is_ok());
  EXPECT_EQ(cur->key().str(), be_key(99999));
  ASSERT_TRUE(w->commit().is_ok());
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(r->count(*t, KeyRange::all()).is_ok());
  r->abort();
  EXPECT_TRUE(r->count(*t, KeyRange::all()).status().is_txn_ended());
  EXPECT_TRUE(r->rank(*t, "x").status().is_txn_ended());
  EXPECT_TRUE(r->at(*t, 0).status().is_txn_ended());
}

}  // namespace
}  // namespace ordo
