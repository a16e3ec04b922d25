// Space over time: updates in many small txns keep the file bounded, and a
// long-lived reader holds back only the pages its snapshot can reach.
#include <gtest/gtest.h>

#include <atomic>
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
  uint64_t used_pages() { return db_->info().metas[db_->info().current_meta].page_high_water; }

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

TEST_F(ChurnTest, AHeldReaderHoldsPagesUntilReleased) {
  const uint64_t after_load = used_pages();
  uint64_t while_held;
  {
    auto reader = db_->begin_read();
    ASSERT_TRUE(reader.is_ok());
    for (int r = 1; r <= 5; ++r) round(r);
    while_held = used_pages();
    // The snapshot still reads its own values.
    EXPECT_EQ(reader->get(reader->default_tree(), be_key(777))->str(), std::string(100, 'a'));
    auto fs = db_->begin_read()->free_space();
    ASSERT_TRUE(fs.is_ok());
    EXPECT_GT(fs->pending_pages, 0u);
  }
  // Every round rewrote the whole tree: with the reader, little could be reused.
  EXPECT_GT(while_held, after_load * 2);
  for (int r = 6; r <= 15; ++r) round(r);
  const uint64_t after_release = used_pages();
  std::printf("pages after load %llu, with reader after 5 rounds %llu, 10 rounds later %llu\n",
              (unsigned long long)after_load, (unsigned long long)while_held,
              (unsigned long long)after_release);
  // Released pages are reused: ten more rounds need no new pages to speak of.
  EXPECT_LE(after_release, while_held + while_held / 50);
}

// A read-only handle (as another process would have, e.g. `ordo stat`)
// pins its snapshot through a reader slot in the file: the writer must not
// reuse pages that snapshot reaches, however many times it rewrites them.
TEST(ReaderSlotTest, ReadOnlyHandleSnapshotSurvivesRewrites) {
  io::testing::TempDir dir;
  const std::string path = dir.file("slots.ordo");
  Options wo;
  wo.sync_commits = false;
  auto writer = testing::open_db(path, wo);
  testing::Model model;
  {
    auto w = writer->begin_write();
    for (uint64_t i = 0; i < 5000; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "v0-" + std::to_string(i)).is_ok());
      model[be_key(i)] = "v0-" + std::to_string(i);
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  Options ro;
  ro.read_only = true;
  auto reader_db = testing::open_db(path, ro);
  auto snapshot = reader_db->begin_read();
  ASSERT_TRUE(snapshot.is_ok()) << snapshot.status().to_string();
  for (int round = 1; round <= 30; ++round) {
    auto w = writer->begin_write();
    for (uint64_t i = 0; i < 5000; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "v" + std::to_string(round)).is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  testing::expect_tree_equals(*snapshot, snapshot->default_tree(), model);
  // A new read txn of the read-only handle sees the writer's newest commit.
  auto fresh = reader_db->begin_read();
  ASSERT_TRUE(fresh.is_ok());
  EXPECT_EQ(fresh->get(fresh->default_tree(), be_key(9))->str(), "v30");
  EXPECT_EQ(reader_db->info().txn_id, writer->info().txn_id);
  // Once the old snapshot ends, its pages are reused again.
  snapshot = Status::invalid_argument("released");
  const uint64_t high_water = writer->info().metas[writer->info().current_meta].page_high_water;
  for (int round = 31; round <= 40; ++round) {
    auto w = writer->begin_write();
    for (uint64_t i = 0; i < 5000; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "v" + std::to_string(round)).is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  fresh = Status::invalid_argument("released");
  EXPECT_LE(writer->info().metas[writer->info().current_meta].page_high_water,
            high_water + high_water / 20);
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
