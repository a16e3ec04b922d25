// WriteTxn::insert, replace and compare_and_set: their outcomes for absent and
// present keys, inline and overflow values, open cursors, misuse, durability
// through reopen (the log's replay), and a seeded model test against std::map
// mixing them with put, del, commit and abort.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"

namespace ordo {
namespace {

using testing::be_key;
using testing::Model;

class ConditionalWriteTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("db.ordo"); }
  // A value of `len` bytes that differs from others of that length by `seed`.
  static std::string big_value(size_t len, char seed) {
    std::string v(len, '\0');
    for (size_t i = 0; i < len; ++i) v[i] = static_cast<char>(seed + i * 7);
    return v;
  }
  io::testing::TempDir dir_;
};

TEST_F(ConditionalWriteTest, InsertOnlyWhenAbsent) {
  auto db = testing::open_db(path());
  const std::string big = big_value(3 * db->max_inline_value_bytes(), 'a');
  auto w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  const Tree t = w->default_tree();
  auto r = w->insert(t, "k", "v1");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_TRUE(*r);
  r = w->insert(t, "k", "v2");
  ASSERT_TRUE(r.is_ok());
  EXPECT_FALSE(*r);
  EXPECT_EQ(w->get(t, "k")->str(), "v1");
  // Overflow values: inserted whole, and a present one is left as it is.
  ASSERT_TRUE(*w->insert(t, "big", big));
  EXPECT_FALSE(*w->insert(t, "big", "small"));
  EXPECT_FALSE(*w->insert(t, "k", big));
  EXPECT_EQ(w->get(t, "big")->str(), big);
  EXPECT_EQ(w->get(t, "k")->str(), "v1");
  ASSERT_TRUE(w->commit().is_ok());

  w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  EXPECT_FALSE(*w->insert(t, "k", "v3"));
  EXPECT_FALSE(*w->insert(t, "big", big_value(5000, 'z')));
  ASSERT_TRUE(w->commit().is_ok());

  db.reset();
  db = testing::open_db(path());
  auto rd = db->begin_read();
  testing::expect_tree_equals(*rd, rd->default_tree(), Model{{"big", big}, {"k", "v1"}});
  testing::expect_check_clean(*rd);
}

TEST_F(ConditionalWriteTest, ReplaceReturnsThePreviousValue) {
  auto db = testing::open_db(path());
  const std::string big1 = big_value(2 * db->max_inline_value_bytes() + 5, 'b');
  const std::string big2 = big_value(20000, 'c');
  auto w = db->begin_write();
  const Tree t = *w->create_tree("t");
  auto old = w->replace(t, "k", "v1");
  ASSERT_TRUE(old.is_ok()) << old.status().to_string();
  EXPECT_FALSE(old->has_value());
  old = w->replace(t, "k", big1);  // inline to overflow
  ASSERT_TRUE(old.is_ok());
  EXPECT_EQ(old->value_or("<absent>"), "v1");
  old = w->replace(t, "k", big2);  // overflow to overflow: read from the old run
  ASSERT_TRUE(old.is_ok());
  EXPECT_EQ(old->value_or("<absent>"), big1);
  ASSERT_TRUE(w->commit().is_ok());

  // The old run is a committed one now.
  w = db->begin_write();
  old = w->replace(t, "k", "");  // overflow to an empty inline value
  ASSERT_TRUE(old.is_ok());
  EXPECT_EQ(old->value_or("<absent>"), big2);
  old = w->replace(t, "k", "v2");
  ASSERT_TRUE(old.is_ok());
  ASSERT_TRUE(old->has_value());
  EXPECT_EQ(**old, "");
  ASSERT_TRUE(w->commit().is_ok());

  db.reset();
  db = testing::open_db(path());
  auto rd = db->begin_read();
  testing::expect_tree_equals(*rd, *rd->open_tree("t"), Model{{"k", "v2"}});
  // Every run replaced was freed once: no leak, no double use.
  testing::expect_check_clean(*rd);
}

TEST_F(ConditionalWriteTest, CompareAndSetEveryCase) {
  auto db = testing::open_db(path());
  const std::string big = big_value(3000, 'd');
  std::string big_other = big;
  big_other.back() = static_cast<char>(big_other.back() + 1);  // differs in the last byte only
  auto w = db->begin_write();
  const Tree t = w->default_tree();
  auto cas = [&](std::string_view key, std::optional<std::string_view> expected,
                 std::optional<std::string_view> desired) {
    std::optional<ByteView> e, d;
    if (expected) e = ByteView(*expected);
    if (desired) d = ByteView(*desired);
    auto r = w->compare_and_set(t, key, e, d);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return r.is_ok() && *r;
  };
  // Absent key: only an "absent" expectation matches.
  EXPECT_FALSE(cas("k", "x", "y"));
  EXPECT_FALSE(cas("k", "", "y"));  // the empty value is not "absent"
  EXPECT_TRUE(w->get(t, "k").status().is_not_found());
  EXPECT_TRUE(cas("k", std::nullopt, std::nullopt));  // absent stays absent
  EXPECT_TRUE(w->get(t, "k").status().is_not_found());
  EXPECT_TRUE(cas("k", std::nullopt, "v1"));
  EXPECT_EQ(w->get(t, "k")->str(), "v1");
  // Present key.
  EXPECT_FALSE(cas("k", std::nullopt, "v2"));
  EXPECT_FALSE(cas("k", "v", "v2"));  // a prefix is not equal
  EXPECT_FALSE(cas("k", "v1x", "v2"));
  EXPECT_EQ(w->get(t, "k")->str(), "v1");
  EXPECT_TRUE(cas("k", "v1", "v1"));  // same value: applies
  EXPECT_TRUE(cas("k", "v1", big));
  EXPECT_EQ(w->get(t, "k")->str(), big);
  // An overflow value compares whole, to the last byte.
  EXPECT_FALSE(cas("k", big_other, "v3"));
  EXPECT_FALSE(cas("k", std::string_view(big).substr(0, 1024), "v3"));
  EXPECT_EQ(w->get(t, "k")->str(), big);
  ASSERT_TRUE(w->commit().is_ok());

  w = db->begin_write();
  EXPECT_FALSE(cas("k", big_other, std::nullopt));
  EXPECT_TRUE(cas("k", big, std::nullopt));  // removes the key and frees its run
  EXPECT_TRUE(w->get(t, "k").status().is_not_found());
  EXPECT_FALSE(cas("k", big, std::nullopt));
  EXPECT_TRUE(cas("e", std::nullopt, ""));
  EXPECT_TRUE(cas("e", "", "now set"));
  ASSERT_TRUE(w->commit().is_ok());

  db.reset();
  db = testing::open_db(path());
  auto rd = db->begin_read();
  testing::expect_tree_equals(*rd, rd->default_tree(), Model{{"e", "now set"}});
  testing::expect_check_clean(*rd);
}

TEST_F(ConditionalWriteTest, CursorsSeeThemAsTheySeePutAndDel) {
  auto db = testing::open_db(path());
  auto w = db->begin_write();
  const Tree t = w->default_tree();
  for (const char* k : {"b", "d", "f"}) ASSERT_TRUE(w->put(t, k, std::string("v") + k).is_ok());
  auto c = w->cursor(t);
  ASSERT_TRUE(c.is_ok());
  ASSERT_TRUE(c->seek("d").is_ok());
  // Writes to other keys: the cursor stays on its entry.
  EXPECT_TRUE(*w->insert(t, "a", "va"));
  EXPECT_FALSE(*w->insert(t, "b", "x"));
  ASSERT_TRUE(w->replace(t, "e", "ve").is_ok());
  EXPECT_TRUE(*w->compare_and_set(t, "f", ByteView("vf"), std::nullopt));
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key().str(), "d");
  // Its own entry replaced: it stays and sees the new value.
  ASSERT_TRUE(w->replace(t, "d", "new d").is_ok());
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->value().str(), "new d");
  EXPECT_TRUE(*w->compare_and_set(t, "d", ByteView("new d"), ByteView("cas d")));
  EXPECT_EQ(c->value().str(), "cas d");
  // Its own entry removed: it moves to the entry after it, as after del().
  EXPECT_TRUE(*w->compare_and_set(t, "d", ByteView("cas d"), std::nullopt));
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key().str(), "e");
  ASSERT_TRUE(c->next().is_ok());
  EXPECT_FALSE(c->valid());
  ASSERT_TRUE(c->first().is_ok());
  EXPECT_EQ(c->key().str(), "a");
}

TEST_F(ConditionalWriteTest, MisuseReportsAsPutDoes) {
  auto db = testing::open_db(path());
  auto other = testing::open_db(dir_.file("other.ordo"));
  const std::string long_key(db->max_key_bytes() + 1, 'k');
  const std::string too_big(db->max_value_bytes() + 1, 'v');
  Tree foreign;
  {
    auto ow = other->begin_write();
    foreign = *ow->create_tree("foreign");
    ASSERT_TRUE(ow->commit().is_ok());
  }
  auto w = db->begin_write();
  const Tree t = w->default_tree();
  EXPECT_TRUE(w->insert(t, long_key, "v").status().is_invalid_argument());
  EXPECT_TRUE(w->replace(t, long_key, "v").status().is_invalid_argument());
  EXPECT_TRUE(
      w->compare_and_set(t, long_key, std::nullopt, ByteView("v")).status().is_invalid_argument());
  EXPECT_TRUE(
      w->compare_and_set(t, long_key, std::nullopt, std::nullopt).status().is_invalid_argument());
  EXPECT_TRUE(w->insert(t, "k", too_big).status().is_invalid_argument());
  EXPECT_TRUE(w->replace(t, "k", too_big).status().is_invalid_argument());
  EXPECT_TRUE(
      w->compare_and_set(t, "k", std::nullopt, ByteView(too_big)).status().is_invalid_argument());
  EXPECT_TRUE(w->insert(foreign, "k", "v").status().is_invalid_argument());
  // A tree dropped in this txn.
  const Tree gone = *w->create_tree("gone");
  ASSERT_TRUE(w->drop_tree("gone").is_ok());
  EXPECT_TRUE(w->insert(gone, "k", "v").status().is_not_found());
  EXPECT_TRUE(w->replace(gone, "k", "v").status().is_not_found());
  EXPECT_TRUE(w->compare_and_set(gone, "k", std::nullopt, ByteView("v")).status().is_not_found());
  // None of those spoiled the txn.
  EXPECT_TRUE(*w->insert(t, "k", "v"));
  ASSERT_TRUE(w->commit().is_ok());
  // An ended txn.
  EXPECT_TRUE(w->insert(t, "k", "v").status().is_txn_ended());
  EXPECT_TRUE(w->replace(t, "k", "v").status().is_txn_ended());
  EXPECT_TRUE(w->compare_and_set(t, "k", std::nullopt, std::nullopt).status().is_txn_ended());
  // A write txn moved from.
  auto w2 = db->begin_write();
  WriteTxn moved = std::move(*w2);
  EXPECT_TRUE(w2->insert(t, "k", "v").status().is_txn_ended());  // NOLINT(bugprone-use-after-move)
  EXPECT_FALSE(*moved.insert(t, "k", "v"));
}

// Keys at the right edge reach their leaf through the write txn's cached
// rightmost path; insert and remove there, splits included.
TEST_F(ConditionalWriteTest, AscendingKeysAtTheRightEdge) {
  auto db = testing::open_db(path());
  auto w = db->begin_write();
  const Tree t = w->default_tree();
  const int kKeys = 6000;
  for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(*w->insert(t, be_key(i), "v" + std::to_string(i)));
  for (int i = kKeys - 100; i < kKeys; ++i) ASSERT_FALSE(*w->insert(t, be_key(i), "again"));
  // Remove the last keys from the right edge, then put them back by CAS.
  for (int i = kKeys - 1; i >= kKeys - 500; --i) {
    const std::string v = "v" + std::to_string(i);
    ASSERT_TRUE(*w->compare_and_set(t, be_key(i), ByteView(v), std::nullopt)) << i;
  }
  for (int i = kKeys - 500; i < kKeys; ++i) {
    ASSERT_TRUE(*w->compare_and_set(t, be_key(i), std::nullopt, ByteView("w"))) << i;
  }
  ASSERT_TRUE(w->commit().is_ok());
  auto rd = db->begin_read();
  Model expected;
  for (int i = 0; i < kKeys; ++i) {
    expected[be_key(i)] = i >= kKeys - 500 ? "w" : "v" + std::to_string(i);
  }
  testing::expect_tree_equals(*rd, t, expected);
  testing::expect_check_clean(*rd);
}

std::string model_key(std::mt19937_64& rng, uint64_t keys) {
  // Few keys, so that conditions often find them; a long common prefix makes
  // long separators, so that the tree grows three levels deep.
  return std::string(200, 'p') + std::to_string(rng() % keys);
}

std::string model_value(std::mt19937_64& rng, uint32_t max_inline) {
  const int shape = static_cast<int>(rng() % 100);
  size_t len = rng() % 40;
  if (shape < 3) len = 0;
  if (shape >= 90) len = max_inline + 1 + rng() % 9000;  // an overflow run
  std::string v(len, '\0');
  // Few distinct short values, so that a guessed `expected` often matches.
  for (char& ch : v) ch = static_cast<char>('a' + rng() % 3);
  return v;
}

// The model test on `options`: `txns` txns of put, del, insert, replace and
// compare_and_set, a quarter of them aborted, the database reopened every 50.
// Keys are drawn from `keys` distinct ones. Adds the pages the txns spilled
// to *spilled.
void run_model(const std::string& path, const Options& options, uint64_t seed, int txns,
               uint64_t keys, uint64_t* spilled) {
  std::mt19937_64 rng(seed);
  auto db = testing::open_db(path, options);
  ASSERT_NE(db, nullptr);
  const uint32_t max_inline = db->max_inline_value_bytes();
  Model committed;
  Tree t;
  {
    auto w = db->begin_write();
    t = *w->create_tree("m");
    ASSERT_TRUE(w->commit().is_ok());
  }
  for (int txn = 0; txn < txns; ++txn) {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    t = *w->open_tree("m");  // a handle of this open of the file
    Model m = committed;
    const int ops = 1 + static_cast<int>(rng() % 600);
    for (int i = 0; i < ops; ++i) {
      const std::string key = model_key(rng, keys);
      const auto it = m.find(key);
      const std::optional<std::string> now =
          it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
      const int kind = static_cast<int>(rng() % 100);
      SCOPED_TRACE("seed " + std::to_string(seed) + " txn " + std::to_string(txn) + " op " +
                   std::to_string(i) + " kind " + std::to_string(kind));
      if (kind < 20) {
        const std::string v = model_value(rng, max_inline);
        ASSERT_TRUE(w->put(t, key, v).is_ok());
        m[key] = v;
      } else if (kind < 30) {
        const Status s = w->del(t, key);
        ASSERT_EQ(s.is_ok(), now.has_value()) << s.to_string();
        m.erase(key);
      } else if (kind < 50) {
        const std::string v = model_value(rng, max_inline);
        auto r = w->insert(t, key, v);
        ASSERT_TRUE(r.is_ok()) << r.status().to_string();
        ASSERT_EQ(*r, !now.has_value());
        if (!now) m[key] = v;
      } else if (kind < 70) {
        const std::string v = model_value(rng, max_inline);
        auto r = w->replace(t, key, v);
        ASSERT_TRUE(r.is_ok()) << r.status().to_string();
        ASSERT_EQ(*r, now);
        m[key] = v;
      } else {
        // expected: the current value (often), a guess, or absent.
        std::optional<std::string> expected;
        const int e = static_cast<int>(rng() % 3);
        if (e == 0 && now) expected = now;
        if (e == 1) expected = model_value(rng, max_inline);
        std::optional<std::string> desired;
        if (rng() % 4 != 0) desired = model_value(rng, max_inline);
        std::optional<ByteView> ev, dv;
        if (expected) ev = ByteView(*expected);
        if (desired) dv = ByteView(*desired);
        auto r = w->compare_and_set(t, key, ev, dv);
        ASSERT_TRUE(r.is_ok()) << r.status().to_string();
        const bool applies = expected == now;
        ASSERT_EQ(*r, applies);
        if (applies) {
          if (desired) {
            m[key] = *desired;
          } else {
            m.erase(key);
          }
        }
      }
    }
    testing::expect_tree_equals(*w, t, m);
    if (rng() % 4 == 0) {
      w->abort();
    } else {
      ASSERT_TRUE(w->commit().is_ok());
      committed = m;
    }
    if (txn % 50 == 49) {  // the log's records replayed at open
      *spilled += db->stats().pages_spilled;
      db.reset();
      db = testing::open_db(path, options);
      ASSERT_NE(db, nullptr);
    }
  }
  *spilled += db->stats().pages_spilled;
  auto rd = db->begin_read();
  testing::expect_tree_equals(*rd, *rd->open_tree("m"), committed);
  EXPECT_GE(rd->tree_stats(*rd->open_tree("m"))->depth, 3u);  // splits and merges on every level
  testing::expect_check_clean(*rd);
}

TEST_F(ConditionalWriteTest, RandomOpsMatchStdMap) {
  uint64_t spilled = 0;
  run_model(path(), Options{}, testing::test_seed(7), 200, 2000, &spilled);
}

// With the smallest memory budget the txns spill dirty pages: the descent
// reads spilled pages back and the writes land on them.
TEST_F(ConditionalWriteTest, RandomOpsMatchStdMapWhileSpilling) {
  Options options;
  options.txn_memory_budget_bytes = 1 << 20;
  uint64_t spilled = 0;
  run_model(path(), options, testing::test_seed(8), 60, 20000, &spilled);
  EXPECT_GT(spilled, 0u);
}

}  // namespace
}  // namespace ordo
