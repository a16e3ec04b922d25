// Cursors of a write txn see the txn's writes; Cursor::put/del; cursors and
// calls after the txn ended; range delete and scans.
#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>
#include <string>

#include "engine_test_util.h"
#include "io_test_util.h"

namespace ordo {
namespace {

using testing::be_key;
using testing::Model;

// The number a be_key() encodes.
uint64_t key_number(ByteView key) {
  uint64_t n = 0;
  for (size_t i = 0; i < key.size(); ++i) n = n << 8 | static_cast<uint8_t>(key[i]);
  return n;
}

class CursorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing::open_db(dir_.file("db.ordo"));
    ASSERT_NE(db_, nullptr);
  }
  // Commits `keys` (value = key) into a fresh tree "t".
  void commit_keys(std::initializer_list<const char*> keys) {
    auto w = db_->begin_write();
    ASSERT_TRUE(w.is_ok());
    auto t = w->create_tree("t");
    ASSERT_TRUE(t.is_ok());
    for (const char* k : keys) ASSERT_TRUE(w->put(*t, k, k).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  // `t` in `w` equals `model`, and so does the committed snapshot, which checks clean.
  void commit_and_verify(WriteTxn& w, const Tree& t, const Model& model) {
    testing::expect_tree_equals(w, t, model);
    ASSERT_TRUE(w.commit().is_ok());
    auto r = db_->begin_read();
    ASSERT_TRUE(r.is_ok());
    testing::expect_tree_equals(*r, t, model);
    testing::expect_check_clean(*r);
  }
  // Every key from the cursor's current entry to the end.
  static std::vector<std::string> rest(Cursor& c) {
    std::vector<std::string> keys;
    while (c.valid()) {
      keys.push_back(c.key().str());
      EXPECT_TRUE(c.next().is_ok()) << c.status().to_string();
    }
    EXPECT_TRUE(c.status().is_ok()) << c.status().to_string();
    return keys;
  }

  io::testing::TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(CursorTest, SeesADeleteMadeAfterItWasCreated) {
  commit_keys({"a", "b"});
  auto w = db_->begin_write();
  auto t = w->open_tree("t");
  auto c = w->cursor(*t);
  ASSERT_TRUE(c.is_ok());
  ASSERT_TRUE(w->del(*t, "a").is_ok());
  ASSERT_TRUE(c->first().is_ok());
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key().str(), "b");
}

TEST_F(CursorTest, SeesAPutIntoAnEmptyTree) {
  auto w = db_->begin_write();
  auto c = w->cursor(w->default_tree());
  ASSERT_TRUE(c.is_ok());
  ASSERT_TRUE(w->put(w->default_tree(), "a", "1").is_ok());
  ASSERT_TRUE(c->first().is_ok());
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key().str(), "a");
  EXPECT_EQ(c->value().str(), "1");
}

TEST_F(CursorTest, SeesEveryKeyAfterTheRootSplits) {
  auto w = db_->begin_write();
  const Tree t = w->default_tree();
  ASSERT_TRUE(w->put(t, be_key(0), std::string(100, 'v')).is_ok());
  auto c = w->cursor(t);
  ASSERT_TRUE(c.is_ok());
  for (uint64_t i = 1; i <= 500; ++i) {
    ASSERT_TRUE(w->put(t, be_key(i), std::string(100, 'v')).is_ok());
  }
  ASSERT_TRUE(c->first().is_ok());
  const std::vector<std::string> keys = rest(*c);
  ASSERT_EQ(keys.size(), 501u);
  for (uint64_t i = 0; i <= 500; ++i) EXPECT_EQ(keys[i], be_key(i));
}

TEST_F(CursorTest, SeekAfterTheOnlyKeyWasDeletedIsAtTheEnd) {
  auto w = db_->begin_write();
  const Tree t = w->default_tree();
  ASSERT_TRUE(w->put(t, "a", "1").is_ok());
  auto c = w->cursor(t);
  ASSERT_TRUE(w->del(t, "a").is_ok());
  const Status s = c->seek("a");
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_FALSE(c->valid());
}

TEST_F(CursorTest, StaysOnItsEntryWhileOtherKeysChange) {
  commit_keys({"b", "d", "f"});
  auto w = db_->begin_write();
  auto t = w->open_tree("t");
  auto c = w->cursor(*t);
  ASSERT_TRUE(c->seek("d").is_ok());
  ASSERT_TRUE(w->put(*t, "c", "c").is_ok());
  ASSERT_TRUE(w->put(*t, "e", "e").is_ok());
  ASSERT_TRUE(w->del(*t, "b").is_ok());
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key().str(), "d");
  ASSERT_TRUE(c->prev().is_ok());
  EXPECT_EQ(c->key().str(), "c");
  ASSERT_TRUE(c->next().is_ok());
  ASSERT_TRUE(c->next().is_ok());
  EXPECT_EQ(c->key().str(), "e");
}

TEST_F(CursorTest, DeletingTheEntryUnderTheCursorMovesItToTheNext) {
  commit_keys({"a", "b", "c"});
  auto w = db_->begin_write();
  auto t = w->open_tree("t");
  auto c = w->cursor(*t);
  ASSERT_TRUE(c->seek("b").is_ok());
  ASSERT_TRUE(w->del(*t, "b").is_ok());
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key().str(), "c");
  ASSERT_TRUE(w->del(*t, "c").is_ok());
  EXPECT_FALSE(c->valid());
  EXPECT_TRUE(c->status().is_ok()) << c->status().to_string();
}

TEST_F(CursorTest, CursorDelEmptiesATree) {
  auto w = db_->begin_write();
  auto t = w->create_tree("t");
  for (uint64_t i = 0; i < 3000; ++i) ASSERT_TRUE(w->put(*t, be_key(i), "v").is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  w = db_->begin_write();
  t = w->open_tree("t");
  auto c = w->cursor(*t);
  uint64_t deleted = 0;
  ASSERT_TRUE(c->first().is_ok());
  while (c->valid()) {
    ASSERT_EQ(c->key().str(), be_key(deleted));
    ASSERT_TRUE(c->del().is_ok()) << c->status().to_string();
    deleted++;
  }
  EXPECT_EQ(deleted, 3000u);
  EXPECT_TRUE(c->status().is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  auto r = db_->begin_read();
  auto stats = r->tree_stats(*r->open_tree("t"));
  ASSERT_TRUE(stats.is_ok());
  EXPECT_EQ(stats->entries, 0u);
  testing::expect_check_clean(*r);
}

TEST_F(CursorTest, DeleteWhileIteratingKeepsTheOthers) {
  auto w = db_->begin_write();
  const Tree t = w->default_tree();
  for (uint64_t i = 0; i < 2000; ++i) ASSERT_TRUE(w->put(t, be_key(i), "v").is_ok());
  auto c = w->cursor(t);
  // Delete every key divisible by 3 while walking forwards.
  ASSERT_TRUE(c->first().is_ok());
  while (c->valid()) {
    if (key_number(c->key()) % 3 == 0) {
      ASSERT_TRUE(c->del().is_ok());
    } else {
      ASSERT_TRUE(c->next().is_ok());
    }
  }
  Model model;
  for (uint64_t i = 0; i < 2000; ++i) {
    if (i % 3 != 0) model[be_key(i)] = "v";
  }
  testing::expect_tree_equals(*w, t, model);
}

TEST_F(CursorTest, CursorPutLeavesTheCursorOnTheKey) {
  commit_keys({"a", "c"});
  auto w = db_->begin_write();
  auto t = w->open_tree("t");
  auto c = w->cursor(*t);
  ASSERT_TRUE(c->put("b", "new").is_ok());
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key().str(), "b");
  EXPECT_EQ(c->value().str(), "new");
  ASSERT_TRUE(c->next().is_ok());
  EXPECT_EQ(c->key().str(), "c");
}

TEST_F(CursorTest, ReadTxnCursorCannotWrite) {
  commit_keys({"a"});
  auto r = db_->begin_read();
  auto c = r->cursor(*r->open_tree("t"));
  ASSERT_TRUE(c->first().is_ok());
  EXPECT_TRUE(c->put("b", "x").is_invalid_argument());
  EXPECT_TRUE(c->del().is_invalid_argument());
  EXPECT_EQ(c->key().str(), "a");
}

TEST_F(CursorTest, CursorDelOffAnEntryIsInvalidArgument) {
  auto w = db_->begin_write();
  auto c = w->cursor(w->default_tree());
  EXPECT_TRUE(c->del().is_invalid_argument());
  EXPECT_TRUE(c->first().is_ok());
  EXPECT_FALSE(c->valid());
  EXPECT_TRUE(c->del().is_invalid_argument());
  EXPECT_TRUE(c->key().empty());
  EXPECT_TRUE(c->value().empty());
}

TEST_F(CursorTest, CursorOfAnEndedTxnReportsTxnEnded) {
  commit_keys({"a", "b"});
  for (int how = 0; how < 4; ++how) {
    SCOPED_TRACE(how);
    auto w = db_->begin_write();
    ASSERT_TRUE(w.is_ok());
    auto t = w->open_tree("t");
    auto c = w->cursor(*t);
    ASSERT_TRUE(c->first().is_ok());
    ASSERT_TRUE(c->valid());
    switch (how) {
      case 0:
        ASSERT_TRUE(w->commit().is_ok());
        break;
      case 1:
        w->abort();
        break;
      case 2: {
        WriteTxn moved = std::move(*w);
      } break;  // moved, then destroyed
      case 3:
        w = Status::busy("replaced");
        break;  // the Result drops the txn
    }
    // More commits reuse the pages the cursor pointed into.
    for (int i = 0; i < 3; ++i) {
      auto w2 = db_->begin_write();
      ASSERT_TRUE(w2.is_ok());
      ASSERT_TRUE(w2->put(*w2->open_tree("t"), "a", std::string(i + 1, 'z')).is_ok());
      ASSERT_TRUE(w2->commit().is_ok());
    }
    EXPECT_FALSE(c->valid());
    EXPECT_TRUE(c->key().empty());
    EXPECT_TRUE(c->value().empty());
    EXPECT_TRUE(c->next().is_txn_ended()) << c->next().to_string();
    EXPECT_TRUE(c->prev().is_txn_ended());
    EXPECT_TRUE(c->first().is_txn_ended());
    EXPECT_TRUE(c->seek("a").is_txn_ended());
    EXPECT_TRUE(c->del().is_txn_ended());
    EXPECT_TRUE(c->put("x", "y").is_txn_ended());
    EXPECT_TRUE(c->status().is_txn_ended());
  }
}

TEST_F(CursorTest, ReadCursorOfAnEndedReadTxnReportsTxnEnded) {
  commit_keys({"a", "b"});
  auto r = db_->begin_read();
  auto c = r->cursor(*r->open_tree("t"));
  ASSERT_TRUE(c->first().is_ok());
  r->abort();
  EXPECT_FALSE(c->valid());
  EXPECT_TRUE(c->next().is_txn_ended());
  EXPECT_TRUE(r->get(r->default_tree(), "a").status().is_txn_ended());
  EXPECT_TRUE(r->cursor(r->default_tree()).status().is_txn_ended());
  EXPECT_FALSE(r->live());
}

TEST_F(CursorTest, CallsOnAnEndedWriteTxnReportTxnEnded) {
  auto w = db_->begin_write();
  auto t = w->create_tree("t");
  ASSERT_TRUE(w->commit().is_ok());
  EXPECT_TRUE(w->put(*t, "k", "v").is_txn_ended());
  EXPECT_TRUE(w->del(*t, "k").is_txn_ended());
  EXPECT_TRUE(w->del_range(*t, "a", "z").status().is_txn_ended());
  EXPECT_TRUE(w->append(*t, "k", "v").is_txn_ended());
  EXPECT_TRUE(w->create_tree("u").status().is_txn_ended());
  EXPECT_TRUE(w->drop_tree("t").is_txn_ended());
  EXPECT_TRUE(w->rename_tree("t", "u").is_txn_ended());
  EXPECT_TRUE(w->next_id().status().is_txn_ended());
  EXPECT_TRUE(w->next_id64().status().is_txn_ended());
  EXPECT_TRUE(w->open_tree("t").status().is_txn_ended());
  EXPECT_TRUE(w->list_trees().status().is_txn_ended());
  EXPECT_TRUE(w->scan(*t, KeyRange::all(), [](ByteView, ByteView) { return true; }).is_txn_ended());
  EXPECT_TRUE(w->check().status().is_txn_ended());
  EXPECT_TRUE(w->commit().is_txn_ended());
  EXPECT_EQ(w->txn_id(), 0u);
}

TEST_F(CursorTest, DroppedTreeMakesItsCursorNotFound) {
  commit_keys({"a"});
  auto w = db_->begin_write();
  auto t = w->open_tree("t");
  auto c = w->cursor(*t);
  ASSERT_TRUE(c->first().is_ok());
  ASSERT_TRUE(w->drop_tree("t").is_ok());
  EXPECT_FALSE(c->valid());
  EXPECT_TRUE(c->status().is_not_found()) << c->status().to_string();
  EXPECT_TRUE(c->first().is_not_found());
  // A new tree of the same name is another tree: the cursor stays NotFound.
  auto again = w->create_tree("t");
  ASSERT_TRUE(again.is_ok());
  ASSERT_TRUE(w->put(*again, "z", "new").is_ok());
  EXPECT_FALSE(c->valid());
  EXPECT_TRUE(c->first().is_not_found());
  ASSERT_TRUE(w->rename_tree("t", "u").is_ok());
  ASSERT_TRUE(w->rename_tree("u", "t").is_ok());
  EXPECT_TRUE(c->first().is_not_found());
  // A cursor made now reads the new tree.
  auto c2 = w->cursor(*t);
  ASSERT_TRUE(c2.is_ok());
  ASSERT_TRUE(c2->first().is_ok());
  EXPECT_EQ(c2->key().str(), "z");
}

// Steps of seek, next, prev, first, last, put and del through one cursor, plus
// puts and deletes through the txn, against std::map and a model position.
TEST_F(CursorTest, RandomStepsMatchAModel) {
  std::mt19937_64 rng(testing::test_seed(20261130));
  auto w = db_->begin_write();
  const Tree t = w->default_tree();
  Model model;
  auto random_key = [&] { return be_key(rng() % 600); };
  for (int i = 0; i < 300; ++i) {
    const std::string k = random_key();
    model[k] = "seed" + std::to_string(i);
    ASSERT_TRUE(w->put(t, k, model[k]).is_ok());
  }
  auto c = w->cursor(t);
  ASSERT_TRUE(c.is_ok());
  // The model cursor: the key it is on, or none (past either end).
  std::optional<std::string> at;
  auto model_seek = [&](const std::string& k) {
    auto it = model.lower_bound(k);
    at = it == model.end() ? std::nullopt : std::optional<std::string>(it->first);
  };
  for (int step = 0; step < 10000; ++step) {
    SCOPED_TRACE(step);
    const int op = static_cast<int>(rng() % 100);
    std::string big(static_cast<size_t>(rng() % 3 == 0 ? 1500 : 20), 'v');
    big += std::to_string(step);
    if (op < 15) {
      const std::string k = random_key();
      ASSERT_TRUE(c->seek(k).is_ok());
      model_seek(k);
    } else if (op < 35) {
      ASSERT_TRUE(c->next().is_ok());
      if (at) {
        auto it = model.upper_bound(*at);
        at = it == model.end() ? std::nullopt : std::optional<std::string>(it->first);
      }
    } else if (op < 50) {
      ASSERT_TRUE(c->prev().is_ok());
      if (at) {
        auto it = model.lower_bound(*at);
        at = it == model.begin() ? std::nullopt : std::optional<std::string>(std::prev(it)->first);
      }
    } else if (op < 53) {
      ASSERT_TRUE(c->first().is_ok());
      at = model.empty() ? std::nullopt : std::optional<std::string>(model.begin()->first);
    } else if (op < 56) {
      ASSERT_TRUE(c->last().is_ok());
      at = model.empty() ? std::nullopt : std::optional<std::string>(model.rbegin()->first);
    } else if (op < 70) {
      const std::string k = random_key();
      ASSERT_TRUE(c->put(k, big).is_ok());
      model[k] = big;
      at = k;
    } else if (op < 82) {
      if (at) {
        ASSERT_TRUE(c->del().is_ok()) << c->status().to_string();
        const std::string gone = *at;
        model.erase(gone);
        model_seek(gone);
      } else {
        ASSERT_TRUE(c->del().is_invalid_argument());
        ASSERT_TRUE(c->status().is_invalid_argument());  // the last call's outcome
        ASSERT_TRUE(c->next().is_ok());                  // a no-op that succeeds
      }
    } else if (op < 92) {
      // A put through the txn: the cursor stays where it is.
      const std::string k = random_key();
      ASSERT_TRUE(w->put(t, k, big).is_ok());
      model[k] = big;
    } else {
      // A delete through the txn: a cursor on that key moves to the next.
      const std::string k = random_key();
      const Status s = w->del(t, k);
      ASSERT_EQ(s.is_ok(), model.count(k) == 1) << s.to_string();
      model.erase(k);
      if (at && *at == k) model_seek(k);
    }
    ASSERT_EQ(c->valid(), at.has_value());
    if (at) {
      ASSERT_EQ(c->key().str(), *at);
      ASSERT_EQ(c->value().str(), model[*at]);
    }
    ASSERT_TRUE(c->status().is_ok()) << c->status().to_string();
  }
  commit_and_verify(*w, t, model);
}

TEST_F(CursorTest, DelRangeIsHalfOpen) {
  auto w = db_->begin_write();
  const Tree t = w->default_tree();
  Model model;
  for (uint64_t i = 0; i < 5000; ++i) {
    model[be_key(i)] = std::string(i % 7 == 0 ? 2000 : 30, 'v');
    ASSERT_TRUE(w->put(t, be_key(i), model[be_key(i)]).is_ok());
  }
  ASSERT_TRUE(w->commit().is_ok());
  w = db_->begin_write();
  auto removed = w->del_range(t, be_key(1000), be_key(4000));
  ASSERT_TRUE(removed.is_ok()) << removed.status().to_string();
  EXPECT_EQ(*removed, 3000u);
  model.erase(model.find(be_key(1000)), model.find(be_key(4000)));
  // from >= to removes nothing.
  EXPECT_EQ(*w->del_range(t, be_key(4500), be_key(4500)), 0u);
  EXPECT_EQ(*w->del_range(t, be_key(4600), be_key(4500)), 0u);
  // Bounds between keys.
  EXPECT_EQ(*w->del_range(t, be_key(10) + "x", be_key(20)), 9u);
  for (uint64_t i = 11; i < 20; ++i) model.erase(be_key(i));
  commit_and_verify(*w, t, model);
}

TEST_F(CursorTest, DelRangeOfAPrefixAndToTheEnd) {
  auto w = db_->begin_write();
  const Tree t = w->default_tree();
  for (const char* k : {"a", "ab", "abc", "abd", "ac", "b", "\xff", "\xff\xff"}) {
    ASSERT_TRUE(w->put(t, k, "v").is_ok());
  }
  EXPECT_EQ(*w->del_range(t, KeyRange::prefix("ab")), 3u);
  EXPECT_EQ(*w->del_range(t, KeyRange::prefix("\xff")), 2u);
  EXPECT_EQ(*w->del_range(t, KeyRange::starting_at("ac")), 2u);
  testing::expect_tree_equals(*w, t, Model{{"a", "v"}});
}

TEST_F(CursorTest, ScanVisitsTheRangeInOrderAndStops) {
  auto w = db_->begin_write();
  const Tree t = w->default_tree();
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(w->put(t, be_key(i), be_key(i * 2)).is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  auto r = db_->begin_read();
  std::vector<std::string> seen;
  ASSERT_TRUE(r->scan(t, KeyRange::between(be_key(100), be_key(200)), [&](ByteView k, ByteView v) {
                 EXPECT_EQ(v.str(), be_key(100 + seen.size()) == k.str()
                                        ? be_key((100 + seen.size()) * 2)
                                        : "wrong key");
                 seen.push_back(k.str());
                 return true;
               }).is_ok());
  ASSERT_EQ(seen.size(), 100u);
  EXPECT_EQ(seen.front(), be_key(100));
  EXPECT_EQ(seen.back(), be_key(199));
  seen.clear();
  ASSERT_TRUE(r->scan(t, KeyRange::starting_at(be_key(990)), [&](ByteView k, ByteView) {
                 seen.push_back(k.str());
                 return seen.size() < 3;
               }).is_ok());
  EXPECT_EQ(seen, (std::vector<std::string>{be_key(990), be_key(991), be_key(992)}));
  // A prefix: keys 0x..0300..0x..03ff are 256 keys sharing the first 7 bytes.
  size_t n = 0;
  ASSERT_TRUE(r->scan(t, KeyRange::prefix(be_key(0x300).substr(0, 7)), [&](ByteView k, ByteView) {
                 EXPECT_EQ(k.str().substr(0, 7), be_key(0x300).substr(0, 7));
                 ++n;
                 return true;
               }).is_ok());
  EXPECT_EQ(n, 1000u - 0x300);
}

TEST_F(CursorTest, ScanOfAWriteTxnMayDeleteWhatItVisits) {
  auto w = db_->begin_write();
  const Tree t = w->default_tree();
  for (uint64_t i = 0; i < 1500; ++i) ASSERT_TRUE(w->put(t, be_key(i), "v").is_ok());
  uint64_t visited = 0;
  ASSERT_TRUE(w->scan(t, KeyRange::all(), [&](ByteView k, ByteView) {
                 EXPECT_EQ(k.str(), be_key(visited));
                 // Delete the key visited and the one after it: the scan goes on
                 // with the entry after those.
                 EXPECT_TRUE(w->del(t, k.str()).is_ok());
                 (void)w->del(t, be_key(visited + 1));
                 visited += 2;
                 return true;
               }).is_ok());
  EXPECT_EQ(visited, 1500u);
  testing::expect_tree_equals(*w, t, Model{});
}

// Views returned by get() point into the txn's pages; writing one back (into
// the same page) must store the bytes it showed before the write.
TEST_F(CursorTest, PutOfAViewIntoTheTxnsOwnPages) {
  auto w = db_->begin_write();
  const Tree t = w->default_tree();
  for (uint64_t i = 0; i < 20; ++i) {
    ASSERT_TRUE(w->put(t, be_key(i), std::string(40 + i, static_cast<char>('a' + i))).is_ok());
  }
  Model model;
  for (uint64_t i = 0; i < 20; ++i)
    model[be_key(i)] = std::string(40 + i, static_cast<char>('a' + i));
  // Values and keys taken from the same leaf the puts edit.
  for (uint64_t i = 0; i < 20; ++i) {
    auto v = w->get(t, be_key(19 - i));
    ASSERT_TRUE(v.is_ok());
    ASSERT_TRUE(w->put(t, be_key(i), *v).is_ok());
    model[be_key(i)] = model[be_key(19 - i)];
    auto c = w->cursor(t);
    ASSERT_TRUE(c->seek(be_key(i / 2)).is_ok());
    ASSERT_TRUE(w->put(t, c->key(), c->value()).is_ok());  // the same entry, rewritten
    std::string longer = c->key().str() + "z";
    ASSERT_TRUE(w->put(t, longer, c->key()).is_ok());
    model[longer] = be_key(i / 2);
  }
  testing::expect_tree_equals(*w, t, model);
}

// A cursor keeps its place while the txn spills dirty pages to stay within
// its memory budget.
TEST_F(CursorTest, CursorSurvivesSpills) {
  Options small;
  small.txn_memory_budget_bytes = 1 << 20;
  db_.reset();
  db_ = testing::open_db(dir_.file("spill.ordo"), small);
  ASSERT_NE(db_, nullptr);
  auto w = db_->begin_write();
  const Tree t = w->default_tree();
  for (uint64_t i = 0; i < 1000; i += 2) ASSERT_TRUE(w->put(t, be_key(i), "early").is_ok());
  auto c = w->cursor(t);
  ASSERT_TRUE(c->seek(be_key(500)).is_ok());
  const uint64_t spilled_before = db_->stats().pages_spilled;
  for (uint64_t i = 1000; i < 40000; ++i) {
    ASSERT_TRUE(w->put(t, be_key(i), std::string(200, 'x')).is_ok());
    if (i % 5000 == 0) {
      ASSERT_TRUE(c->valid());
      ASSERT_EQ(c->key().str(), be_key(500));
    }
  }
  ASSERT_TRUE(w->put(t, be_key(501), "odd").is_ok());
  ASSERT_TRUE(c->next().is_ok());
  EXPECT_EQ(c->key().str(), be_key(501));
  EXPECT_EQ(c->value().str(), "odd");
  ASSERT_TRUE(w->commit().is_ok());
  // The spills happened in this txn (counted at commit).
  EXPECT_GT(db_->stats().pages_spilled, spilled_before);
}

TEST_F(CursorTest, ScanWhoseCallbackEndsTheTxnStopsWithTxnEnded) {
  commit_keys({"a", "b", "c"});
  auto r = db_->begin_read();
  const Tree t = *r->open_tree("t");
  int calls = 0;
  Status s = r->scan(t, KeyRange::all(), [&](ByteView, ByteView) {
    ++calls;
    r->abort();
    return true;
  });
  EXPECT_TRUE(s.is_txn_ended()) << s.to_string();
  EXPECT_EQ(calls, 1);
  auto w = db_->begin_write();
  calls = 0;
  s = w->scan(t, KeyRange::all(), [&](ByteView, ByteView) {
    ++calls;
    w->abort();
    return true;
  });
  EXPECT_TRUE(s.is_txn_ended()) << s.to_string();
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace ordo
