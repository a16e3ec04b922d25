// ReadTxn::changes against a model of two snapshots, kept snapshots across
// reopen and their hold on page reuse.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"

namespace ordo {
namespace {

using testing::Model;

struct Change {
  std::optional<std::string> old_value;
  std::optional<std::string> new_value;
  bool operator==(const Change&) const = default;
};
using Changes = std::map<std::string, Change>;

// What changes() must report between two contents.
Changes model_diff(const Model& before, const Model& after) {
  Changes out;
  for (const auto& [k, v] : before) {
    auto it = after.find(k);
    if (it == after.end()) {
      out[k] = {v, std::nullopt};
    } else if (it->second != v) {
      out[k] = {v, it->second};
    }
  }
  for (const auto& [k, v] : after) {
    if (!before.count(k)) out[k] = {std::nullopt, v};
  }
  return out;
}

// What changes() reports, checking key order on the way.
Changes read_changes(ReadTxn& txn, const Tree& tree, uint64_t since, uint64_t* pages = nullptr) {
  Changes out;
  auto c = txn.changes(tree, since);
  EXPECT_TRUE(c.is_ok()) << c.status().to_string();
  if (!c.is_ok()) return out;
  std::string last;
  bool first = true;
  for (;;) {
    auto more = c->next();
    EXPECT_TRUE(more.is_ok()) << more.status().to_string();
    if (!more.is_ok() || !*more) break;
    const std::string k = c->key().str();
    EXPECT_TRUE(first || last < k) << "keys out of order";
    first = false;
    last = k;
    Change ch;
    if (auto v = c->old_value()) ch.old_value = v->str();
    if (auto v = c->new_value()) ch.new_value = v->str();
    EXPECT_TRUE(ch.old_value || ch.new_value);
    EXPECT_FALSE(ch.old_value && ch.new_value && *ch.old_value == *ch.new_value);
    out[k] = ch;
  }
  if (pages != nullptr) *pages = c->pages_read();
  return out;
}

std::string key_of(uint64_t i) {
  char buf[32];
  snprintf(buf, sizeof buf, "k%08llu", static_cast<unsigned long long>(i));
  return buf;
}

class ChangesTest : public ::testing::Test {
 protected:
  io::testing::TempDir dir_;
};

TEST_F(ChangesTest, RandomChangesMatchTwoSnapshotModel) {
  const uint64_t seed = testing::test_seed(7);
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));

  auto db = testing::open_db(dir_.file("c.ordo"));
  ASSERT_NE(db, nullptr);
  const uint32_t max_inline = db->max_inline_value_bytes();
  std::map<std::string, Model> state;  // tree name -> contents ("" default)
  auto random_value = [&] {
    const int shape = static_cast<int>(rng() % 100);
    size_t len = rng() % 60;
    if (shape < 4) len = max_inline + 1 + rng() % 9000;  // overflow run
    std::string v(len, '\0');
    for (char& ch : v) ch = static_cast<char>('a' + rng() % 26);
    return v;
  };
  const std::vector<std::string> names = {"", "a", "b"};
  for (int round = 0; round < 12; ++round) {
    auto before_txn = db->begin_read();
    ASSERT_TRUE(before_txn.is_ok());
    const std::map<std::string, Model> before = state;
    const uint64_t since = before_txn->txn_id();
    const int txns = 1 + static_cast<int>(rng() % 4);
    for (int t = 0; t < txns; ++t) {
      auto w = db->begin_write();
      ASSERT_TRUE(w.is_ok());
      const int ops = static_cast<int>(rng() % 3000);
      for (int i = 0; i < ops; ++i) {
        const std::string& name = names[rng() % names.size()];
        Tree tree = w->default_tree();
        if (!name.empty()) {
          if (!state.count(name) && rng() % 2) continue;
          auto tr = w->create_tree(name);
          ASSERT_TRUE(tr.is_ok());
          tree = *tr;
          state[name];
        } else {
          state[""];
        }
        Model& m = state[name];
        const int op = static_cast<int>(rng() % 100);
        const std::string k = key_of(rng() % 4000);
        if (op < 60) {
          const std::string v = random_value();
          ASSERT_TRUE(w->put(tree, k, v).is_ok());
          m[k] = v;
        } else if (op < 90) {
          Status s = w->del(tree, k);
          ASSERT_TRUE(s.is_ok() || s.is_not_found());
          m.erase(k);
        } else if (op < 98) {
          const std::string to = key_of(rng() % 4000);
          auto n = w->del_range(tree, k, to);
          ASSERT_TRUE(n.is_ok());
          m.erase(m.lower_bound(k), k < to ? m.lower_bound(to) : m.lower_bound(k));
        } else if (!name.empty() && state.count(name)) {
          ASSERT_TRUE(w->drop_tree(name).is_ok());
          state.erase(name);
        }
      }
      ASSERT_TRUE(w->commit().is_ok());
    }
    auto now = db->begin_read();
    ASSERT_TRUE(now.is_ok());
    for (const std::string& name : names) {
      SCOPED_TRACE("round " + std::to_string(round) + " tree '" + name + "'");
      const bool was = before.count(name) > 0 || name.empty();
      const bool is = state.count(name) > 0 || name.empty();
      if (!was && !is) continue;
      Tree tree = now->default_tree();
      if (!name.empty()) {
        auto tr = is ? now->open_tree(name) : before_txn->open_tree(name);
        ASSERT_TRUE(tr.is_ok());
        tree = *tr;
      }
      const Model empty;
      const Model& b = before.count(name) ? before.at(name) : empty;
      const Model& a = state.count(name) ? state.at(name) : empty;
      EXPECT_EQ(read_changes(*now, tree, since), model_diff(b, a));
    }
  }
}

TEST_F(ChangesTest, SkipsSharedSubtrees) {
  auto db = testing::open_db(dir_.file("big.ordo"));
  ASSERT_NE(db, nullptr);
  {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    for (uint64_t i = 0; i < 200000; ++i) {
      ASSERT_TRUE(w->append(w->default_tree(), key_of(i), "value").is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto old = db->begin_read();
  ASSERT_TRUE(old.is_ok());
  {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), key_of(100000), "changed").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto now = db->begin_read();
  ASSERT_TRUE(now.is_ok());
  uint64_t pages = 0;
  Changes got = read_changes(*now, now->default_tree(), old->txn_id(), &pages);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.begin()->first, key_of(100000));
  EXPECT_EQ(got.begin()->second, (Change{"value", "changed"}));
  // One path in each version, not the ~1000 leaves of the tree.
  EXPECT_LE(pages, 20u);
}

TEST_F(ChangesTest, SnapshotNotHeldIsAnError) {
  auto db = testing::open_db(dir_.file("n.ordo"));
  ASSERT_NE(db, nullptr);
  for (int i = 0; i < 3; ++i) {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), key_of(i), "v").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto now = db->begin_read();
  ASSERT_TRUE(now.is_ok());
  auto c = now->changes(now->default_tree(), now->txn_id() - 1);
  ASSERT_TRUE(c.status().is_not_found());
  EXPECT_NE(
      c.status().message().find("snapshot " + std::to_string(now->txn_id() - 1) + " is not held"),
      std::string::npos)
      << c.status().to_string();
  EXPECT_TRUE(now->changes(now->default_tree(), now->txn_id() + 1).status().is_invalid_argument());
  // Its own snapshot is held (by itself): no change.
  EXPECT_TRUE(read_changes(*now, now->default_tree(), now->txn_id()).empty());
}

// Fills `n` keys, then overwrites them all in one txn (freeing every leaf of
// the old version).
void rewrite_all(Database& db, int n, const std::string& value) {
  auto w = db.begin_write();
  ASSERT_TRUE(w.is_ok());
  for (int i = 0; i < n; ++i) ASSERT_TRUE(w->put(w->default_tree(), key_of(i), value).is_ok());
  ASSERT_TRUE(w->commit().is_ok());
}

TEST_F(ChangesTest, KeptSnapshotSurvivesReopenAndHoldsPages) {
  const std::string path = dir_.file("k.ordo");
  uint64_t kept = 0;
  {
    auto db = testing::open_db(path);
    ASSERT_NE(db, nullptr);
    rewrite_all(*db, 3000, "first");
    auto k = db->keep_snapshot();
    ASSERT_TRUE(k.is_ok()) << k.status().to_string();
    kept = *k;
    auto list = db->kept_snapshots();
    ASSERT_TRUE(list.is_ok());
    EXPECT_EQ(*list, std::vector<uint64_t>{kept});
  }
  auto db = testing::open_db(path);
  ASSERT_NE(db, nullptr);
  auto list = db->kept_snapshots();
  ASSERT_TRUE(list.is_ok());
  ASSERT_EQ(*list, std::vector<uint64_t>{kept});
  // Many commits that would reuse the kept version's pages if they were free.
  for (int i = 0; i < 6; ++i) rewrite_all(*db, 3000, "round" + std::to_string(i));
  {
    auto at = db->begin_read_at(kept);
    ASSERT_TRUE(at.is_ok()) << at.status().to_string();
    EXPECT_EQ(at->txn_id(), kept);
    auto v = at->get(at->default_tree(), key_of(17));
    ASSERT_TRUE(v.is_ok());
    EXPECT_EQ(v->str(), "first");
    auto now = db->begin_read();
    ASSERT_TRUE(now.is_ok());
    Changes got = read_changes(*now, now->default_tree(), kept);
    EXPECT_EQ(got.size(), 3000u);
    EXPECT_EQ(got[key_of(5)], (Change{"first", "round5"}));
    testing::expect_check_clean(*now);
  }
  const uint64_t hw_kept = db->info().current.page_high_water;
  // Released: the next commits reuse those pages instead of growing.
  ASSERT_TRUE(db->release_snapshot(kept).is_ok());
  EXPECT_TRUE(db->release_snapshot(kept).is_not_found());
  auto none = db->kept_snapshots();
  ASSERT_TRUE(none.is_ok());
  EXPECT_TRUE(none->empty());
  const uint64_t reused_before = db->stats().pages_reused;
  for (int i = 0; i < 6; ++i) rewrite_all(*db, 3000, "again" + std::to_string(i));
  EXPECT_GT(db->stats().pages_reused, reused_before);
  EXPECT_LE(db->info().current.page_high_water, hw_kept + 64);
  auto now = db->begin_read();
  ASSERT_TRUE(now.is_ok());
  EXPECT_TRUE(now->changes(now->default_tree(), kept).status().is_not_found());
  EXPECT_TRUE(db->begin_read_at(kept).status().is_not_found());
  testing::expect_check_clean(*now);
}

TEST_F(ChangesTest, KeptSnapshotPagesAreNotReused) {
  // The same workload with and without a kept snapshot: kept, the file
  // grows by the versions the snapshot holds.
  auto grow = [&](bool keep) {
    auto db = testing::open_db(dir_.file(keep ? "keep.ordo" : "nokeep.ordo"));
    EXPECT_NE(db, nullptr);
    rewrite_all(*db, 3000, std::string(300, 'f'));
    if (keep) {
      EXPECT_TRUE(db->keep_snapshot().is_ok());
    }
    for (int i = 0; i < 8; ++i)
      rewrite_all(*db, 3000, std::string(300, static_cast<char>('a' + i)));
    auto r = db->begin_read();
    EXPECT_TRUE(r.is_ok());
    testing::expect_check_clean(*r);
    return db->info().current.page_high_water;
  };
  const uint64_t without = grow(false);
  const uint64_t with = grow(true);
  EXPECT_GT(with, without + 20) << "with " << with << " without " << without;
}

TEST_F(ChangesTest, CopyOfDatabaseWithKeptSnapshotsHasNone) {
  auto db = testing::open_db(dir_.file("src.ordo"));
  ASSERT_NE(db, nullptr);
  rewrite_all(*db, 500, "a");
  ASSERT_TRUE(db->keep_snapshot().is_ok());
  rewrite_all(*db, 500, "b");
  ASSERT_TRUE(db->copy_to(dir_.file("copy.ordo")).is_ok());
  auto copy = testing::open_db(dir_.file("copy.ordo"));
  ASSERT_NE(copy, nullptr);
  auto kept = copy->kept_snapshots();
  ASSERT_TRUE(kept.is_ok());
  EXPECT_TRUE(kept->empty());
  auto r = copy->begin_read();
  ASSERT_TRUE(r.is_ok());
  testing::expect_check_clean(*r);
  auto v = r->get(r->default_tree(), key_of(3));
  ASSERT_TRUE(v.is_ok());
  EXPECT_EQ(v->str(), "b");
}

// A kept snapshot taken while another was kept has a kept snapshots tree of
// its own; a copy at it keeps none and leaks none of that tree's pages.
TEST_F(ChangesTest, CopyAtAKeptSnapshotThatKeptOthersLeaksNoPage) {
  auto db = testing::open_db(dir_.file("src.ordo"));
  ASSERT_NE(db, nullptr);
  rewrite_all(*db, 500, "a");
  ASSERT_TRUE(db->keep_snapshot().is_ok());
  rewrite_all(*db, 500, "b");
  auto second = db->keep_snapshot();  // its commit keeps the first one
  ASSERT_TRUE(second.is_ok());
  rewrite_all(*db, 500, "c");
  auto at = db->begin_read_at(*second);
  ASSERT_TRUE(at.is_ok()) << at.status().to_string();
  ASSERT_TRUE(at->copy_to(dir_.file("copy.ordo")).is_ok());
  auto copy = testing::open_db(dir_.file("copy.ordo"));
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->kept_snapshots()->empty());
  auto r = copy->begin_read();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->txn_id(), *second);
  testing::expect_check_clean(*r);
  EXPECT_EQ(r->get(r->default_tree(), key_of(3))->str(), "b");
}

}  // namespace
}  // namespace ordo

namespace ordo {
namespace {

// A delta copy between two kept snapshots, applied to a copy at the first,
// gives the second; chained deltas apply one after another.
TEST_F(ChangesTest, DeltaCopiesRestoreTheTargetState) {
  const uint64_t seed = testing::test_seed(11);
  std::mt19937_64 rng(seed);
  auto db = testing::open_db(dir_.file("src.ordo"));
  ASSERT_NE(db, nullptr);
  const uint32_t max_inline = db->max_inline_value_bytes();
  auto mutate = [&](int ops) {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    for (int i = 0; i < ops; ++i) {
      const std::string name = std::string(1, static_cast<char>('a' + rng() % 3));
      auto tr = w->create_tree(name);
      ASSERT_TRUE(tr.is_ok());
      const Tree tree = rng() % 4 == 0 ? w->default_tree() : *tr;
      const std::string k = key_of(rng() % 3000);
      const int op = static_cast<int>(rng() % 100);
      if (op < 65) {
        std::string v(rng() % 50 == 0 ? max_inline + 100 : rng() % 40, 'v');
        for (char& ch : v) ch = static_cast<char>('a' + rng() % 26);
        ASSERT_TRUE(w->put(tree, k, v).is_ok());
      } else if (op < 97) {
        Status s = w->del(tree, k);
        ASSERT_TRUE(s.is_ok() || s.is_not_found());
      } else if (op < 99) {
        ASSERT_TRUE(w->del_range(tree, k, key_of(rng() % 3000)).is_ok());
      } else {
        ASSERT_TRUE(w->drop_tree(name).is_ok());
      }
    }
    auto id = w->next_id();  // ID marks travel with the delta
    ASSERT_TRUE(id.is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  };
  mutate(5000);
  auto base = db->keep_snapshot();
  ASSERT_TRUE(base.is_ok());
  {
    auto at = db->begin_read_at(*base);
    ASSERT_TRUE(at.is_ok());
    ASSERT_TRUE(at->copy_to(dir_.file("copy.ordo")).is_ok());
  }
  uint64_t since = *base;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    for (int t = 0; t < 3; ++t) mutate(400);
    auto next = db->keep_snapshot();
    ASSERT_TRUE(next.is_ok());
    const std::string delta = dir_.file("d" + std::to_string(round) + ".odl");
    {
      auto now = db->begin_read_at(*next);
      ASSERT_TRUE(now.is_ok());
      auto wrote = now->copy_delta_to(delta, since);
      ASSERT_TRUE(wrote.is_ok()) << wrote.status().to_string();
      EXPECT_EQ(wrote->base_txn, since);
      EXPECT_EQ(wrote->target_txn, *next);
      EXPECT_TRUE(now->copy_delta_to(delta, since).status().is_invalid_argument());  // exists
    }
    auto copy = testing::open_db(dir_.file("copy.ordo"));
    ASSERT_NE(copy, nullptr);
    auto applied = copy->apply_delta(delta);
    ASSERT_TRUE(applied.is_ok()) << applied.status().to_string();
    // A second time: the copy is no longer at the base.
    EXPECT_TRUE(copy->apply_delta(delta).status().is_invalid_argument());
    auto want = db->begin_read_at(*next);
    ASSERT_TRUE(want.is_ok());
    auto got = copy->begin_read();
    ASSERT_TRUE(got.is_ok());
    EXPECT_EQ(got->txn_id(), *next);
    EXPECT_EQ(testing::read_state(*got), testing::read_state(*want));
    EXPECT_EQ(copy->info().id_high_water, db->info().id_high_water);
    testing::expect_check_clean(*got);
    ASSERT_TRUE(db->release_snapshot(since).is_ok());
    since = *next;
  }
}

TEST_F(ChangesTest, DamagedOrForeignDeltaIsRefusedBeforeAnyChange) {
  auto db = testing::open_db(dir_.file("src.ordo"));
  ASSERT_NE(db, nullptr);
  rewrite_all(*db, 800, "a");
  auto base = db->keep_snapshot();
  ASSERT_TRUE(base.is_ok());
  {
    auto at = db->begin_read_at(*base);
    ASSERT_TRUE(at.is_ok());
    ASSERT_TRUE(at->copy_to(dir_.file("copy.ordo")).is_ok());
  }
  rewrite_all(*db, 900, "b");
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  const std::string delta = dir_.file("d.odl");
  ASSERT_TRUE(r->copy_delta_to(delta, *base).is_ok());
  EXPECT_TRUE(r->copy_delta_to(dir_.file("x.odl"), *base - 1).status().is_not_found());
  std::string bytes;
  {
    std::FILE* f = std::fopen(delta.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    std::fclose(f);
  }
  auto write = [&](const std::string& name, const std::string& content) {
    std::FILE* f = std::fopen(dir_.file(name).c_str(), "wb");
    EXPECT_NE(f, nullptr);
    std::fwrite(content.data(), 1, content.size(), f);
    std::fclose(f);
    return dir_.file(name);
  };
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 1;
  std::string header = bytes;
  header[20] ^= 1;
  // Unknown flags, with a header checksum that matches them.
  std::string flags = bytes;
  flags[12] = 1;
  const uint64_t flags_sum = XXH3_64bits(flags.data(), 88);
  std::memcpy(flags.data() + 88, &flags_sum, 8);  // little-endian, as the format
  auto copy = testing::open_db(dir_.file("copy.ordo"));
  ASSERT_NE(copy, nullptr);
  const uint64_t txn_before = copy->info().txn_id;
  for (const auto& [name, content] : std::vector<std::pair<std::string, std::string>>{
           {"trunc.odl", bytes.substr(0, bytes.size() - 7)},
           {"short.odl", bytes.substr(0, 40)},
           {"flip.odl", flipped},
           {"head.odl", header},
           {"flags.odl", flags}}) {
    SCOPED_TRACE(name);
    Status s = copy->apply_delta(write(name, content)).status();
    EXPECT_TRUE(s.is_corruption()) << s.to_string();
    EXPECT_EQ(copy->info().txn_id, txn_before);
  }
  EXPECT_TRUE(copy->apply_delta(dir_.file("missing.odl")).status().is_not_found());
  // Not a regular file: refused before a byte is read (a device could be endless).
  EXPECT_TRUE(copy->apply_delta("/dev/zero").status().is_invalid_argument());
  // Another database at the same txn id: not the delta's lineage.
  auto other = testing::open_db(dir_.file("other.ordo"));
  ASSERT_NE(other, nullptr);
  while (other->info().txn_id < *base) rewrite_all(*other, 10, "o");
  ASSERT_EQ(other->info().txn_id, *base);
  Status s = other->apply_delta(delta).status();
  EXPECT_TRUE(s.is_invalid_argument()) << s.to_string();
  EXPECT_NE(s.message().find("not the delta's base"), std::string::npos) << s.to_string();
  // The copy at the base takes it.
  ASSERT_TRUE(copy->apply_delta(delta).is_ok());
  auto got = copy->begin_read();
  ASSERT_TRUE(got.is_ok());
  EXPECT_EQ(testing::read_state(*got), testing::read_state(*r));
}

}  // namespace
}  // namespace ordo
