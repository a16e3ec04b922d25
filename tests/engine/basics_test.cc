// Engine behaviour: limits, reopen, IDs, locking, snapshots, page reuse, and
// the user scenarios (a graph store, a content repository, a catalog) it serves.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <thread>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/btree/endian.h"
#include "ordo/clock.h"

namespace ordo {
namespace {

using testing::be_key;

using testing::Model;

class EngineTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("db.ordo"); }
  io::testing::TempDir dir_;
};

TEST_F(EngineTest, ReopenFindsExactlyTheCommittedState) {
  {
    auto db = testing::open_db(path());
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    auto t = w->create_tree("t");
    ASSERT_TRUE(t.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "k", "v1").is_ok());
    ASSERT_TRUE(w->put(*t, "a", "1").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
    auto w2 = db->begin_write();
    ASSERT_TRUE(w2->put(w2->default_tree(), "k", "uncommitted").is_ok());
    ASSERT_TRUE(w2->put(*t, "b", "2").is_ok());
    w2->abort();
  }
  auto db = testing::open_db(path());
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->get(r->default_tree(), "k")->str(), "v1");
  auto t = r->open_tree("t");
  ASSERT_TRUE(t.is_ok());
  testing::expect_tree_equals(*r, *t, Model{{"a", "1"}});
  EXPECT_EQ(*r->list_trees(), std::vector<std::string>{"t"});
  EXPECT_TRUE(r->open_tree("missing").status().is_not_found());
}

TEST_F(EngineTest, EmptyAndMaximalKeysAndValues) {
  auto db = testing::open_db(path());
  const std::string max_key(db->max_key_bytes(), 'k');
  const std::string max_inline(db->max_inline_value_bytes(), 'i');
  std::string max_value(db->max_value_bytes(), '\0');
  for (size_t i = 0; i < max_value.size(); i += 4096) max_value[i] = static_cast<char>(i >> 12);
  EXPECT_EQ(db->max_key_bytes(), 1000u);
  EXPECT_EQ(db->max_inline_value_bytes(), 1024u);
  EXPECT_EQ(db->max_value_bytes(), 128u << 20);
  auto w = db->begin_write();
  Tree t = w->default_tree();
  ASSERT_TRUE(w->put(t, "", "").is_ok());
  ASSERT_TRUE(w->put(t, max_key, max_inline).is_ok());
  ASSERT_TRUE(w->put(t, "max", max_value).is_ok());
  ASSERT_TRUE(w->put(t, "one-past-inline", max_inline + "x").is_ok());
  Status too_big_key = w->put(t, max_key + "x", "v");
  EXPECT_TRUE(too_big_key.is_invalid_argument());
  EXPECT_NE(too_big_key.message().find("key"), std::string::npos) << too_big_key.to_string();
  EXPECT_TRUE(w->put(t, "k", max_value + "x").is_invalid_argument());
  // An oversized put does not spoil the txn.
  ASSERT_TRUE(w->commit().is_ok());
  db.reset();
  db = testing::open_db(path());
  auto r = db->begin_read();
  testing::expect_tree_equals(*r, r->default_tree(),
                              Model{{"", ""},
                                    {max_key, max_inline},
                                    {"max", max_value},
                                    {"one-past-inline", max_inline + "x"}});
  auto stats = r->tree_stats(r->default_tree());
  ASSERT_TRUE(stats.is_ok()) << stats.status().to_string();
}

TEST_F(EngineTest, IdsKeepRisingAcrossReopenWithTheClockSetBack) {
  ManualClock clock(1'900'000'000'000);  // 2030
  Options options;
  options.clock = &clock;
  Uuid last;
  Id64 last64;
  {
    auto db = testing::open_db(path(), options);
    auto w = db->begin_write();
    for (int i = 0; i < 1000; ++i) last = *w->next_id();
    last64 = *w->next_id64();
    ASSERT_TRUE(w->put(w->default_tree(), last.view(), "x").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
    EXPECT_EQ(db->info().id_high_water, last);
  }
  clock.set_ms(1'800'000'000'000);  // three years back
  auto db = testing::open_db(path(), options);
  EXPECT_EQ(db->info().id_high_water, last);
  EXPECT_EQ(db->info().id64_high_water, last64);
  auto w = db->begin_write();
  Uuid next = *w->next_id();
  EXPECT_GT(next, last);
  EXPECT_EQ(next.version(), 7);
  EXPECT_GT(*w->next_id64(), last64);
}

TEST_F(EngineTest, SecondWriterOpenIsBusyInProcessAndFromAnotherProcess) {
  auto db = testing::open_db(path());
  auto again = testing::open_database(path());
  EXPECT_TRUE(again.status().is_busy()) << again.status().to_string();
  int code = io::testing::run_in_child([&] {
    auto other = testing::open_database(path());
    return other.status().is_busy() ? 0 : 1;
  });
  EXPECT_EQ(code, 0);
  Options ro;
  ro.read_only = true;
  auto reader = testing::open_database(path(), ro);
  EXPECT_TRUE(reader.is_ok()) << reader.status().to_string();
  EXPECT_TRUE((*reader)->begin_write().status().is_invalid_argument());
}

TEST_F(EngineTest, ReadSnapshotIgnoresLaterCommits) {
  auto db = testing::open_db(path());
  {
    auto w = db->begin_write();
    for (int i = 0; i < 5000; ++i) ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "old").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  for (int round = 0; round < 10; ++round) {
    auto w = db->begin_write();
    for (int i = 0; i < 5000; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "new" + std::to_string(round)).is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  Model old;
  for (int i = 0; i < 5000; ++i) old[be_key(i)] = "old";
  testing::expect_tree_equals(*r, r->default_tree(), old);
}

TEST_F(EngineTest, ConcurrentReadersSeeWholeCommits) {
  auto db = testing::open_db(path());
  std::atomic<bool> stop{false};
  std::atomic<long> checks{0};
  auto reader = [&] {
    while (!stop) {
      auto r = db->begin_read();
      ASSERT_TRUE(r.is_ok());
      auto c = r->cursor(r->default_tree());
      ASSERT_TRUE(c->first().is_ok());
      // Every commit writes all keys with the same value.
      std::string first_value;
      long n = 0;
      for (; c->valid(); ++n) {
        if (n == 0) first_value = c->value().str();
        ASSERT_EQ(c->value().str(), first_value);
        ASSERT_TRUE(c->next().is_ok());
      }
      ASSERT_TRUE(n == 0 || n == 2000) << n;
      checks++;
    }
  };
  std::thread a(reader), b(reader);
  for (int round = 0; round < 200; ++round) {
    auto w = db->begin_write();
    for (int i = 0; i < 2000; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), std::to_string(round)).is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  stop = true;
  a.join();
  b.join();
  EXPECT_GT(checks.load(), 0);
}

TEST_F(EngineTest, RewritesReuseFreedPagesSoTheFileStaysBounded) {
  auto db = testing::open_db(path());
  const std::string value(100, 'v');
  auto load = [&](int round) {
    auto w = db->begin_write();
    for (int i = 0; i < 20000; ++i) {
      ASSERT_TRUE(
          w->put(w->default_tree(), be_key(i * 7919 % 20000), value + std::to_string(round % 10))
              .is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  };
  auto high_water = [&] { return db->info().current.page_high_water; };
  load(0);
  uint64_t after_load = high_water();
  for (int round = 1; round <= 10; ++round) load(round);
  uint64_t after_10 = high_water();
  for (int round = 11; round <= 20; ++round) load(round);
  uint64_t after_20 = high_water();
  std::printf(
      "high-water pages: after load %llu, after 10 rewrites %llu, after 20 %llu; "
      "reused %llu\n",
      (unsigned long long)after_load, (unsigned long long)after_10, (unsigned long long)after_20,
      (unsigned long long)db->stats().pages_reused);
  EXPECT_GT(db->stats().pages_reused, 0u);
  // Each rewrite replaces the whole tree; the reuse rule keeps the live tree,
  // the one freed by the previous commit and the one being written: about
  // three copies, and then no more growth. Without reuse it would be 21.
  EXPECT_LE(after_10, after_load * 4);
  EXPECT_LE(after_20, after_10 + after_10 / 20);
}

TEST_F(EngineTest, IterateAfterDeletesInTheSameTxn) {
  auto db = testing::open_db(path());
  auto w = db->begin_write();
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "").is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  auto w2 = db->begin_write();
  for (uint64_t i = 0; i < 600; ++i) ASSERT_TRUE(w2->del(w2->default_tree(), be_key(i)).is_ok());
  auto c = w2->cursor(w2->default_tree());
  ASSERT_TRUE(c->first().is_ok());
  uint64_t expect = 600, n = 0;
  for (; c->valid(); ++n) {
    ASSERT_EQ(c->key().str(), be_key(expect++));
    ASSERT_TRUE(c->next().is_ok());
  }
  EXPECT_EQ(n, 400u);
}

TEST_F(EngineTest, ManyTinyKeysAcrossManyTxns) {
  for (size_t key_len : {1u, 2u, 8u}) {
    std::string p = dir_.file("tiny" + std::to_string(key_len));
    // 2,730 commits: durability is not what this checks, so skip the syncs.
    Options no_sync;
    no_sync.sync_commits = false;
    auto db = testing::open_db(p, no_sync);
    Model model;
    uint64_t limit = key_len == 1 ? 256 : 65520;
    uint64_t next = 0;
    for (int txn = 0; txn < 2730 && next < limit; ++txn) {
      auto w = db->begin_write();
      for (int i = 0; i < 24 && next < limit; ++i, ++next) {
        std::string k = be_key(next).substr(8 - key_len);
        std::string v(32, static_cast<char>(next));
        ASSERT_TRUE(w->put(w->default_tree(), k, v).is_ok());
        model[k] = v;
      }
      ASSERT_TRUE(w->commit().is_ok());
    }
    auto r = db->begin_read();
    testing::expect_tree_equals(*r, r->default_tree(), model);
    EXPECT_EQ(r->tree_stats(r->default_tree())->entries, model.size());
  }
}

TEST_F(EngineTest, SequentialIdsFillLeaves) {
  auto db = testing::open_db(path());
  auto w = db->begin_write();
  auto t = w->create_tree("nodes");
  for (int i = 0; i < 50000; ++i) {
    Uuid id = *w->next_id();
    ASSERT_TRUE(w->put(*t, id.view(), std::string(64, 'n')).is_ok());
  }
  ASSERT_TRUE(w->commit().is_ok());
  auto r = db->begin_read();
  auto stats = r->tree_stats(*r->open_tree("nodes"));
  ASSERT_TRUE(stats.is_ok());
  EXPECT_EQ(stats->entries, 50000u);
  EXPECT_GE(stats->leaf_fill, 0.95);
}

TEST_F(EngineTest, EndedTxnRefusesWork) {
  auto db = testing::open_db(path());
  auto w = db->begin_write();
  ASSERT_TRUE(w->commit().is_ok());
  EXPECT_TRUE(w->put(w->default_tree(), "k", "v").is_txn_ended());
  EXPECT_TRUE(w->get(w->default_tree(), "k").status().is_txn_ended());
  EXPECT_TRUE(w->commit().is_txn_ended());
  // The writer lock was released.
  auto w2 = db->begin_write();
  EXPECT_TRUE(w2.is_ok());
}

TEST_F(EngineTest, FileGrowsInExtents) {
  Options options;
  options.extent_bytes = 1 << 20;
  options.log_bytes = 64 << 10;  // the new file's pages fit the first extent
  auto db = testing::open_db(path(), options);
  EXPECT_EQ(db->info().file_bytes, 1u << 20);
  auto w = db->begin_write();
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(w->put(w->default_tree(), be_key(i), std::string(200, 'x')).is_ok());
  }
  ASSERT_TRUE(w->commit().is_ok());
  DatabaseInfo info = db->info();
  EXPECT_EQ(info.file_bytes % (1 << 20), 0u);
  EXPECT_GE(info.file_bytes, info.current.page_high_water * 4096);
  EXPECT_GT(db->stats().file_growths, 1u);
}

}  // namespace
}  // namespace ordo

namespace ordo {
namespace {

TEST_F(EngineTest, DropRenameAndListTrees) {
  auto db = testing::open_db(path());
  {
    auto w = db->begin_write();
    for (const char* name : {"a", "b", "c"}) {
      auto t = w->create_tree(name);
      ASSERT_TRUE(t.is_ok());
      for (int i = 0; i < 3000; ++i) {
        ASSERT_TRUE(w->put(*t, be_key(i), std::string(i % 7 == 0 ? 3000 : 50, 'x')).is_ok());
      }
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  uint64_t free_before = db->info().current.free_pages;
  {
    auto w = db->begin_write();
    Tree a = *w->open_tree("a");
    ASSERT_TRUE(w->drop_tree("a").is_ok());
    EXPECT_TRUE(w->put(a, "k", "v").is_not_found());
    EXPECT_TRUE(w->drop_tree("a").is_not_found());
    EXPECT_TRUE(w->drop_tree("").is_invalid_argument());
    ASSERT_TRUE(w->rename_tree("b", "b2").is_ok());
    EXPECT_TRUE(w->rename_tree("c", "b2").is_invalid_argument());
    EXPECT_TRUE(w->rename_tree("zzz", "y").is_not_found());
    EXPECT_EQ(*w->list_trees(), (std::vector<std::string>{"b2", "c"}));
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto r = db->begin_read();
  EXPECT_EQ(*r->list_trees(), (std::vector<std::string>{"b2", "c"}));
  EXPECT_TRUE(r->open_tree("a").status().is_not_found());
  EXPECT_TRUE(r->open_tree("b").status().is_not_found());
  auto b2 = r->open_tree("b2");
  ASSERT_TRUE(b2.is_ok());
  EXPECT_EQ(r->tree_stats(*b2)->entries, 3000u);
  EXPECT_EQ(r->get(*b2, be_key(7))->size(), 3000u);
  EXPECT_EQ(db->info().current.tree_count, 2u);
  // Dropping "a" returned its pages and overflow runs to the free tree.
  uint64_t free_after = db->info().current.free_pages;
  EXPECT_GT(free_after, free_before + 3000 / 7);
  auto fs = r->free_space();
  ASSERT_TRUE(fs.is_ok());
  EXPECT_EQ(fs->free_pages, free_after);
}

TEST_F(EngineTest, OptionsOutOfRangeNameTheOptionAndCreateNoFile) {
  struct Case {
    const char* name;
    void (*set)(Options&);
  };
  const Case cases[] = {
      {"io_backend", [](Options& o) { o.io_backend = static_cast<IoBackend>(7); }},
      {"commit_protocol", [](Options& o) { o.commit_protocol = static_cast<CommitProtocol>(7); }},
      {"run_reclaim_limit_pages", [](Options& o) { o.run_reclaim_limit_pages = 0; }},
      {"extent_bytes", [](Options& o) { o.extent_bytes = 0; }},
      {"max_extent_bytes", [](Options& o) { o.max_extent_bytes = o.extent_bytes - 1; }},
  };
  for (const Case& c : cases) {
    Options o;
    c.set(o);
    const std::string path = dir_.file(std::string(c.name) + ".ordo");
    auto db = testing::open_database(path, o);
    ASSERT_FALSE(db.is_ok()) << c.name;
    EXPECT_TRUE(db.status().is_invalid_argument()) << db.status().to_string();
    EXPECT_NE(db.status().message().find(c.name), std::string::npos) << db.status().to_string();
    EXPECT_EQ(db.status().message().find("FileOptions"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(path)) << c.name;
  }
}

// Options::io_backend alone chooses the write path; kUring fails the open,
// naming io_uring, where a ring cannot be set up.
TEST_F(EngineTest, IoBackendOptionChoosesTheWritePath) {
  struct Case {
    IoBackend backend;
    const char* name;
  };
  const Case cases[] = {
      {IoBackend::kAuto, "posix"}, {IoBackend::kPosix, "posix"}, {IoBackend::kUring, "io_uring"}};
  for (const Case& c : cases) {
    Options o;
    o.io_backend = c.backend;
    const std::string path = dir_.file(std::string("backend-") + c.name + ".ordo");
    auto db = Database::open(path, o);
    if (c.backend == IoBackend::kUring && !io::testing::uring_available()) {
      ASSERT_FALSE(db.is_ok());
      EXPECT_TRUE(db.status().is_io_error()) << db.status().to_string();
      EXPECT_NE(db.status().message().find("io_uring"), std::string::npos);
      continue;
    }
    ASSERT_TRUE(db.is_ok()) << c.name << ": " << db.status().to_string();
    EXPECT_EQ((*db)->info().io_backend, c.name);
    auto w = (*db)->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "k", "v").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
}

TEST_F(EngineTest, AppendBuildsFullPagesAndRefusesOutOfOrderKeys) {
  for (double fill : {1.0, 0.7}) {
    Options o;
    o.append_fill = fill;
    std::string p = dir_.file("append" + std::to_string(fill));
    auto db = testing::open_db(p, o);
    auto w = db->begin_write();
    auto t = w->create_tree("t");
    for (uint64_t i = 0; i < 100000; ++i) {
      ASSERT_TRUE(w->append(*t, be_key(i * 2), std::string(40, 'a')).is_ok());
    }
    Status s = w->append(*t, be_key(5), "x");
    EXPECT_TRUE(s.is_invalid_argument()) << s.to_string();
    EXPECT_TRUE(w->append(*t, be_key(199998), "dup").is_invalid_argument());
    // A put between appended keys still works.
    ASSERT_TRUE(w->put(*t, be_key(5), "odd").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
    auto r = db->begin_read();
    auto stats = r->tree_stats(*r->open_tree("t"));
    ASSERT_TRUE(stats.is_ok());
    EXPECT_EQ(stats->entries, 100001u);
    std::printf("append_fill %.1f: leaf fill %.3f\n", fill, stats->leaf_fill);
    EXPECT_GE(stats->leaf_fill, fill - 0.05);
    EXPECT_LE(stats->leaf_fill, fill + 0.02);
    EXPECT_EQ(r->get(*r->open_tree("t"), be_key(5))->str(), "odd");
  }
}

TEST_F(EngineTest, LargeTxnSpillsUnderItsMemoryBudget) {
  Options o;
  o.txn_memory_budget_bytes = 1 << 20;  // 256 pages
  auto db = testing::open_db(path(), o);
  std::mt19937_64 rng(testing::test_seed(17));
  Model model;
  auto w = db->begin_write();
  for (int i = 0; i < 60000; ++i) {
    // Half sequential, half random: spilled leaves are also touched again.
    std::string k = i % 2 ? be_key(i) : be_key(rng() % 1000000);
    std::string v = std::to_string(i);
    ASSERT_TRUE(w->put(w->default_tree(), k, v).is_ok());
    model[k] = v;
  }
  ASSERT_TRUE(w->commit().is_ok());
  EXPECT_GT(db->stats().pages_spilled, 0u);
  db.reset();
  db = testing::open_db(path(), o);
  auto r = db->begin_read();
  testing::expect_tree_equals(*r, r->default_tree(), model);
  EXPECT_TRUE(r->tree_stats(r->default_tree()).is_ok());
}

TEST_F(EngineTest, AbortsReturnTheirPages) {
  auto db = testing::open_db(path());
  const std::string kb(1024, 'k');
  {
    auto w = db->begin_write();
    for (int i = 0; i < 10000; ++i) ASSERT_TRUE(w->put(w->default_tree(), be_key(i), kb).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
    auto d = db->begin_write();
    for (int i = 0; i < 10000; ++i) ASSERT_TRUE(d->del(d->default_tree(), be_key(i)).is_ok());
    ASSERT_TRUE(d->commit().is_ok());
  }
  auto meta = [&] { return db->info().current; };
  const uint64_t free_before = meta().free_pages, file_before = db->info().file_bytes;
  const uint64_t high_water_before = meta().page_high_water;
  for (int round = 0; round < 50; ++round) {
    auto w = db->begin_write();
    for (int i = 0; i < 5000; ++i) ASSERT_TRUE(w->put(w->default_tree(), be_key(i), kb).is_ok());
    w->abort();
  }
  {
    auto w = db->begin_write();
    ASSERT_TRUE(w->commit().is_ok());
  }
  db.reset();
  db = testing::open_db(path());
  EXPECT_EQ(meta().free_pages, free_before);
  EXPECT_EQ(meta().page_high_water, high_water_before);
  // Closing trimmed the preallocated extent: no larger than before.
  EXPECT_LE(db->info().file_bytes, file_before);
  auto r = db->begin_read();
  EXPECT_EQ(r->tree_stats(r->default_tree())->entries, 0u);
}

TEST_F(EngineTest, DeletesWithMixedKeySizesNeverFailForSpace) {
  Options o;
  o.sync_commits = false;  // 200 commits; durability is not what this checks
  auto db = testing::open_db(path(), o);
  std::mt19937_64 rng(testing::test_seed(2));
  Model model;
  std::vector<std::string> keys;
  {
    auto w = db->begin_write();
    for (int i = 0; i < 20000; ++i) {
      std::string k = be_key(i);
      if (i % 3 == 0) k.resize(db->max_key_bytes(), static_cast<char>(i));
      ASSERT_TRUE(w->put(w->default_tree(), k, "").is_ok());
      model[k] = "";
      keys.push_back(k);
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  for (size_t b = 0; b < keys.size(); b += 100) {
    auto w = db->begin_write();
    for (size_t i = b; i < b + 100; ++i) {
      Status s = w->del(w->default_tree(), keys[i]);
      ASSERT_TRUE(s.is_ok()) << s.to_string();
      model.erase(keys[i]);
    }
    ASSERT_TRUE(w->commit().is_ok());
    if (b % 2000 == 0) {
      auto r = db->begin_read();
      auto stats = r->tree_stats(r->default_tree());
      ASSERT_TRUE(stats.is_ok()) << stats.status().to_string();
      ASSERT_EQ(stats->entries, model.size());
    }
  }
  auto r = db->begin_read();
  testing::expect_tree_equals(*r, r->default_tree(), model);
  EXPECT_EQ(r->tree_stats(r->default_tree())->leaf_pages, 0u);
}

TEST_F(EngineTest, ReadersBesideAGrowingWriter) {
  Options o;
  o.extent_bytes = 1 << 20;  // so the file grows under the readers
  auto db = testing::open_db(path(), o);
  std::atomic<bool> stop{false};
  std::atomic<long> verified{0};
  auto reader = [&] {
    while (!stop) {
      auto r = db->begin_read();
      ASSERT_TRUE(r.is_ok());
      auto counter = r->get(r->default_tree(), "counter");
      uint64_t expect = counter.is_ok() ? std::stoull(counter->str()) : 0;
      auto t = r->open_tree("values");
      if (!t.is_ok()) continue;
      auto c = r->cursor(*t);
      ASSERT_TRUE(c->first().is_ok());
      uint64_t n = 0;
      for (; c->valid(); ++n) {
        ByteView v = c->value();
        ASSERT_EQ(v.size(), 4096u);
        ASSERT_EQ(v[0], static_cast<std::byte>(c->key()[7]));
        ASSERT_TRUE(c->next().is_ok());
      }
      ASSERT_EQ(n, expect * 500);
      verified++;
    }
  };
  std::vector<std::thread> readers;
  for (int i = 0; i < 8; ++i) readers.emplace_back(reader);
  for (uint64_t round = 1; round <= 30; ++round) {
    auto w = db->begin_write();
    auto t = w->create_tree("values");
    for (uint64_t i = 0; i < 500; ++i) {
      std::string k = be_key((round - 1) * 500 + i);
      ASSERT_TRUE(w->put(*t, k, std::string(4096, k[7])).is_ok());
    }
    ASSERT_TRUE(w->put(w->default_tree(), "counter", std::to_string(round)).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  stop = true;
  for (auto& th : readers) th.join();
  EXPECT_GT(verified.load(), 0);
  EXPECT_GT(db->stats().file_growths, 5u);
}

}  // namespace
}  // namespace ordo
