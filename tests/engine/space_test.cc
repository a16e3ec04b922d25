// Space over time: updates in many small txns keep the file bounded, and a
// long-lived reader holds back only the pages its snapshot can reach.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/btree/endian.h"

namespace ordo {
namespace {

using testing::be_key;

class ChurnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.sync_commits = false;  // 2,000 commits: space, not durability, is checked here
    db_ = testing::open_db(dir_.file("churn.ordo"), o);
    auto w = db_->begin_write();
    for (uint64_t i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), std::string(100, 'a')).is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  // Every key updated once, in txns of 1,000 updates.
  void round(int r) {
    for (uint64_t base = 0; base < kKeys; base += 1000) {
      auto w = db_->begin_write();
      for (uint64_t i = base; i < base + 1000; ++i) {
        ASSERT_TRUE(w->put(w->default_tree(), be_key(i), std::string(100, 'a' + r % 26)).is_ok());
      }
      Status s = w->commit();
      ASSERT_TRUE(s.is_ok()) << s.to_string();
    }
  }
  uint64_t used_pages() { return db_->info().current.page_high_water; }

  static constexpr uint64_t kKeys = 100000;
  io::testing::TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(ChurnTest, TwentyRoundsOfUpdatesStayWithinHalfAgainTheLoad) {
  const uint64_t after_load = used_pages();
  for (int r = 1; r <= 20; ++r) round(r);
  const uint64_t after = used_pages();
  std::printf("pages after load %llu, after 20 rounds %llu (%.2fx)\n",
              (unsigned long long)after_load, (unsigned long long)after,
              static_cast<double>(after) / after_load);
  EXPECT_LE(after * 2, after_load * 3);
}

// A reader pins the pages its snapshot reaches and nothing else: pages
// written after its snapshot began are reused while it lives, so the file
// stops growing once the rounds have copied the snapshot's pages away.
TEST_F(ChurnTest, AHeldReaderPinsOnlyItsSnapshotsPages) {
  const uint64_t after_load = used_pages();
  uint64_t after_5, after_10;
  {
    auto reader = db_->begin_read();
    ASSERT_TRUE(reader.is_ok());
    for (int r = 1; r <= 5; ++r) round(r);
    after_5 = used_pages();
    for (int r = 6; r <= 10; ++r) round(r);
    after_10 = used_pages();
    // The snapshot still reads its own values.
    EXPECT_EQ(reader->get(reader->default_tree(), be_key(777))->str(), std::string(100, 'a'));
    auto fs = db_->begin_read()->free_space();
    ASSERT_TRUE(fs.is_ok());
    EXPECT_GT(fs->pending_pages, 0u);
    // Pinned: about one copy of the loaded tree, not every page freed since.
    EXPECT_LE(fs->pending_pages, after_load + after_load / 4);
  }
  for (int r = 11; r <= 20; ++r) round(r);
  const uint64_t after_release = used_pages();
  std::printf(
      "pages after load %llu; reader held: after round 5 %llu, round 10 %llu; "
      "released: round 20 %llu\n",
      (unsigned long long)after_load, (unsigned long long)after_5, (unsigned long long)after_10,
      (unsigned long long)after_release);
  // Rounds 6-10 each rewrote the whole tree beside the reader in the pages
  // rounds 1-5 freed: no new pages to speak of.
  EXPECT_LE(after_10, after_5 + after_5 / 50);
  // The pinned copy plus the churn's own working set.
  EXPECT_LE(after_10, after_load * 3);
  // Released pages are reused: ten more rounds need no new pages.
  EXPECT_LE(after_release, after_10 + after_10 / 50);
}

// A writer without syncs (space and snapshots, not durability, are checked
// here) and a read-only handle on the same file, as another process has.
struct WriterAndReadOnly {
  explicit WriterAndReadOnly(const std::string& path) {
    Options wo;
    wo.sync_commits = false;
    writer = testing::open_db(path, wo);
    Options ro;
    ro.read_only = true;
    read_only = testing::open_db(path, ro);
  }
  std::unique_ptr<Database> writer;
  std::unique_ptr<Database> read_only;
};

// A read-only handle (as another process would have, e.g. `ordo stat`)
// pins its snapshot through a reader slot in the file: the writer must not
// reuse pages that snapshot reaches, however many times it rewrites them.
TEST(ReaderSlotTest, ReadOnlyHandleSnapshotSurvivesRewrites) {
  io::testing::TempDir dir;
  WriterAndReadOnly handles(dir.file("slots.ordo"));
  auto& writer = handles.writer;
  testing::Model model;
  {
    auto w = writer->begin_write();
    for (uint64_t i = 0; i < 5000; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "v0-" + std::to_string(i)).is_ok());
      model[be_key(i)] = "v0-" + std::to_string(i);
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto& reader_db = handles.read_only;
  auto snapshot = reader_db->begin_read();
  ASSERT_TRUE(snapshot.is_ok()) << snapshot.status().to_string();
  auto high_water = [&] { return writer->info().current.page_high_water; };
  uint64_t after_10 = 0;
  for (int round = 1; round <= 30; ++round) {
    auto w = writer->begin_write();
    for (uint64_t i = 0; i < 5000; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "v" + std::to_string(round)).is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
    if (round == 10) after_10 = high_water();
  }
  // The slot pins only that snapshot's pages: pages written after it are
  // reused while it is held, so rounds 11-30 need no new pages to speak of.
  EXPECT_LE(high_water(), after_10 + after_10 / 50);
  testing::expect_tree_equals(*snapshot, snapshot->default_tree(), model);
  // A new read txn of the read-only handle sees the writer's newest commit.
  auto fresh = reader_db->begin_read();
  ASSERT_TRUE(fresh.is_ok());
  EXPECT_EQ(fresh->get(fresh->default_tree(), be_key(9))->str(), "v30");
  EXPECT_EQ(reader_db->info().txn_id, writer->info().txn_id);
  // Once the old snapshot ends, its pages are reused again.
  snapshot = Status::invalid_argument("released");
  const uint64_t held = high_water();
  for (int round = 31; round <= 40; ++round) {
    auto w = writer->begin_write();
    for (uint64_t i = 0; i < 5000; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "v" + std::to_string(round)).is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  fresh = Status::invalid_argument("released");
  EXPECT_LE(high_water(), held + held / 20);
}

// Readers on many snapshots, here and in another handle, while the writer
// updates, deletes, inserts and stores large values: each snapshot must read
// exactly what it read when it began, however its pages were reused around it.
TEST(ReaderSlotTest, StaggeredSnapshotsEachReadTheirOwnState) {
  io::testing::TempDir dir;
  WriterAndReadOnly handles(dir.file("staggered.ordo"));
  auto& writer = handles.writer;
  auto& other = handles.read_only;
  std::mt19937_64 rng(testing::test_seed(20261130));
  testing::Model model;
  struct Held {
    ReadTxn txn;
    testing::Model model;
  };
  std::vector<Held> held;
  for (int round = 0; round < 40; ++round) {
    auto w = writer->begin_write();
    ASSERT_TRUE(w.is_ok());
    for (int op = 0; op < 400; ++op) {
      const std::string key = be_key(rng() % 3000);
      if (rng() % 4 == 0) {
        const Status d = w->del(w->default_tree(), key);
        ASSERT_TRUE(d.is_ok() || d.is_not_found()) << d.to_string();
        EXPECT_EQ(d.is_ok(), model.erase(key) == 1);
      } else {
        // Now and then a value past the leaf limit, stored in an overflow run.
        const size_t size = rng() % 50 == 0 ? 5000 + rng() % 20000 : 20 + rng() % 200;
        std::string value(size, static_cast<char>('a' + round % 26));
        value += std::to_string(rng());
        ASSERT_TRUE(w->put(w->default_tree(), key, value).is_ok());
        model[key] = value;
      }
    }
    ASSERT_TRUE(w->commit().is_ok());
    // Every fifth round a snapshot is taken, alternately here and in the
    // read-only handle; every seventh the oldest one ends.
    if (round % 5 == 0) {
      auto r = (round / 5) % 2 == 0 ? writer->begin_read() : other->begin_read();
      ASSERT_TRUE(r.is_ok()) << r.status().to_string();
      held.push_back(Held{std::move(*r), model});
    }
    if (round % 7 == 6 && !held.empty()) {
      testing::expect_tree_equals(held.front().txn, held.front().txn.default_tree(),
                                  held.front().model);
      held.erase(held.begin());
    }
  }
  for (Held& h : held) testing::expect_tree_equals(h.txn, h.txn.default_tree(), h.model);
  held.clear();
  auto r = writer->begin_read();
  ASSERT_TRUE(r.is_ok());
  auto report = r->check();
  ASSERT_TRUE(report.is_ok());
  EXPECT_TRUE(report->clean()) << report->problems.front().what;
}

// A writable handle gives back its preallocated extent when it closes, so a
// closed file is as small as its pages; reopening grows it again on demand.
TEST(TrimOnCloseTest, ClosedFileEndsAtTheHighWaterMark) {
  io::testing::TempDir dir;
  const std::string path = dir.file("trim.ordo");
  auto write_keys = [&](Database& db, uint64_t from, uint64_t to) {
    auto w = db.begin_write();
    ASSERT_TRUE(w.is_ok());
    for (uint64_t i = from; i < to; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), std::string(100, 'x')).is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  };
  auto high_water_bytes = [](Database& db) {
    const DatabaseInfo info = db.info();
    return info.current.page_high_water * info.page_size_bytes;
  };
  uint64_t used = 0;
  {
    auto db = testing::open_db(path);
    write_keys(*db, 0, 5000);
    used = high_water_bytes(*db);
    // While open, the file holds a whole preallocated extent.
    EXPECT_GT(std::filesystem::file_size(path), used);
  }
  EXPECT_EQ(std::filesystem::file_size(path), used);
  {
    auto db = testing::open_db(path);
    write_keys(*db, 5000, 10000);
    used = high_water_bytes(*db);
    auto r = db->begin_read();
    ASSERT_TRUE(r.is_ok());
    auto report = r->check();
    ASSERT_TRUE(report.is_ok());
    EXPECT_TRUE(report->clean());
    EXPECT_EQ(r->get(r->default_tree(), be_key(9999))->str(), std::string(100, 'x'));
  }
  EXPECT_EQ(std::filesystem::file_size(path), used);
  // trim_on_close = false keeps the extent.
  Options keep;
  keep.trim_on_close = false;
  {
    auto db = testing::open_db(path, keep);
    write_keys(*db, 10000, 10001);
    used = high_water_bytes(*db);
  }
  EXPECT_GT(std::filesystem::file_size(path), used);
}

// Readers in several threads check an invariant every write txn keeps: the
// values of all keys sum to the same total. Built also with ThreadSanitizer.
TEST(ConcurrencyTest, ReadersSeeTheSumInvariantWhileTheWriterCommits) {
  io::testing::TempDir dir;
  Options o;
  o.sync_commits = false;  // 10,000 commits
  auto db = testing::open_db(dir.file("sum.ordo"), o);
  constexpr int kAccounts = 200;
  constexpr int64_t kTotal = kAccounts * 1000;
  auto decode = [](ByteView v) { return std::stoll(v.str()); };
  {
    auto w = db->begin_write();
    for (int i = 0; i < kAccounts; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "1000").is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  std::atomic<bool> stop{false};
  std::atomic<long> checks{0};
  auto reader = [&] {
    while (!stop.load()) {
      auto r = db->begin_read();
      ASSERT_TRUE(r.is_ok());
      auto c = r->cursor(r->default_tree());
      ASSERT_TRUE(c->first().is_ok());
      int64_t sum = 0;
      int n = 0;
      for (; c->valid(); ++n) {
        sum += decode(c->value());
        ASSERT_TRUE(c->next().is_ok());
      }
      ASSERT_EQ(n, kAccounts);
      ASSERT_EQ(sum, kTotal) << "snapshot " << r->txn_id();
      checks++;
    }
  };
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) readers.emplace_back(reader);
  std::mt19937_64 rng(testing::test_seed(23));
  for (int t = 0; t < 10000; ++t) {
    auto w = db->begin_write();
    // Move an amount between two accounts: the sum stays constant.
    uint64_t from = rng() % kAccounts, to = rng() % kAccounts;
    int64_t amount = static_cast<int64_t>(rng() % 50);
    int64_t a = decode(*w->get(w->default_tree(), be_key(from)));
    ASSERT_TRUE(w->put(w->default_tree(), be_key(from), std::to_string(a - amount)).is_ok());
    int64_t b = decode(*w->get(w->default_tree(), be_key(to)));
    ASSERT_TRUE(w->put(w->default_tree(), be_key(to), std::to_string(b + amount)).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  stop = true;
  for (auto& th : readers) th.join();
  std::printf("%ld snapshot checks during 10,000 commits\n", checks.load());
  EXPECT_GT(checks.load(), 0);
}

}  // namespace
}  // namespace ordo
