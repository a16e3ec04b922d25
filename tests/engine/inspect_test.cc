// The inspection API (ordo/inspect.h) against what check and the writes say.
#include "ordo/inspect.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"

namespace ordo {
namespace {

class InspectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("db.ordo");
    db_ = testing::open_db(path_);
    ASSERT_NE(db_, nullptr);
    for (int round = 0; round < 3; ++round) {
      auto w = db_->begin_write();
      auto t = w->create_tree("nodes");
      for (int i = 0; i < 4000; ++i) {
        ASSERT_TRUE(w->put(*t, testing::be_key(i * 3 + round), std::string(30, 'n')).is_ok());
      }
      ASSERT_TRUE(w->put(*t, "big", std::string(20000, 'b')).is_ok());
      ASSERT_TRUE(w->put(w->default_tree(), "k", "v").is_ok());
      ASSERT_TRUE(w->commit().is_ok());
    }
  }
  // One more commit (one more snapshot).
  void commit_one() {
    auto w = db_->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "k", std::to_string(w->txn_id())).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  // `n` read-only handles of the file, each its own open file description.
  std::vector<std::unique_ptr<Database>> read_only_handles(int n) {
    std::vector<std::unique_ptr<Database>> out;
    for (int i = 0; i < n; ++i) {
      auto db = testing::open_database(path_, Options{.read_only = true});
      EXPECT_TRUE(db.is_ok()) << db.status().to_string();
      if (db.is_ok()) out.push_back(std::move(db).value());
    }
    return out;
  }
  // The snapshots reader_slots lists; every slot held by this process.
  std::vector<uint64_t> listed_snapshots() {
    auto slots = inspect::reader_slots(path_);
    EXPECT_TRUE(slots.is_ok()) << slots.status().to_string();
    std::vector<uint64_t> out;
    if (!slots.is_ok()) return out;
    for (const auto& s : *slots) {
      out.push_back(s.snapshot_txn);
      EXPECT_EQ(s.pids, std::vector<int>{getpid()}) << "snapshot " << s.snapshot_txn;
    }
    return out;
  }
  io::testing::TempDir dir_;
  std::string path_;
  std::unique_ptr<Database> db_;
};

TEST_F(InspectTest, TreesComeFromTheRootRecords) {
  auto r = db_->begin_read();
  auto trees = inspect::trees(*r);
  ASSERT_TRUE(trees.is_ok());
  ASSERT_EQ(trees->size(), 4u);
  EXPECT_EQ((*trees)[0].kind, inspect::TreeKind::kDefault);
  EXPECT_EQ((*trees)[0].entries, 1u);
  EXPECT_EQ((*trees)[1].name, "nodes");
  EXPECT_EQ((*trees)[1].entries, 12001u);
  EXPECT_EQ((*trees)[2].kind, inspect::TreeKind::kCatalog);
  EXPECT_EQ((*trees)[2].entries, 1u);
  EXPECT_EQ((*trees)[3].kind, inspect::TreeKind::kFree);
  auto check = r->check();
  EXPECT_EQ(check->trees, 2u);
  EXPECT_EQ(check->entries, 12002u);
  EXPECT_EQ(check->free_tree_entries, (*trees)[3].entries);
}

TEST_F(InspectTest, ThePageMapAccountsForEveryPageAsCheckDoes) {
  auto r = db_->begin_read();
  auto map = inspect::page_map(*r);
  ASSERT_TRUE(map.is_ok());
  EXPECT_TRUE(map->problems.empty());
  auto check = r->check();
  uint64_t tree = 0, overflow = 0, free = 0, unreachable = 0;
  for (const auto& p : map->pages) {
    tree += p.kind == inspect::PageKind::kLeaf || p.kind == inspect::PageKind::kBranch;
    overflow += p.kind == inspect::PageKind::kOverflow;
    free += p.kind == inspect::PageKind::kFree;
    unreachable += p.kind == inspect::PageKind::kUnreachable;
  }
  EXPECT_EQ(map->pages.size(), check->high_water_pages);
  EXPECT_EQ(tree, check->tree_pages);
  EXPECT_EQ(overflow, check->overflow_pages);
  EXPECT_EQ(free, check->free_pages);
  EXPECT_EQ(unreachable, 0u);
}

TEST_F(InspectTest, DescribePageChecksTheParentAndEveryChild) {
  auto r = db_->begin_read();
  auto trees = inspect::trees(*r);
  const uint64_t root = (*trees)[1].root_page;
  ASSERT_GE((*trees)[1].depth, 2u);
  auto d = inspect::describe_page(*r, root);
  ASSERT_TRUE(d.is_ok());
  EXPECT_EQ(d->kind, inspect::PageKind::kBranch);
  EXPECT_EQ(d->tree, "nodes");
  EXPECT_TRUE(d->has_parent);
  EXPECT_TRUE(d->checksum_ok);
  ASSERT_GT(d->cells.size(), 1u);
  for (const auto& c : d->cells) EXPECT_TRUE(c.child_checksum_ok) << c.child;
  auto leaf = inspect::describe_page(*r, d->cells[1].child);
  ASSERT_TRUE(leaf.is_ok());
  EXPECT_EQ(leaf->parent, root);
  EXPECT_TRUE(leaf->checksum_ok);
  EXPECT_TRUE(inspect::describe_page(*r, 1u << 30).status().is_invalid_argument());
  auto meta = inspect::describe_page(*r, 0);
  ASSERT_TRUE(meta.is_ok());
  EXPECT_EQ(meta->kind, inspect::PageKind::kMeta);
}

TEST_F(InspectTest, FreeEntriesSayWhichAreRecentPinnedOrReusable) {
  auto r = db_->begin_read();
  auto entries = inspect::free_entries(*r);
  ASSERT_TRUE(entries.is_ok());
  ASSERT_FALSE(entries->empty());
  for (const auto& e : *entries) {
    EXPECT_EQ(e.state, e.freed_by == r->txn_id() ? inspect::FreeState::kRecent
                                                 : inspect::FreeState::kReusable);
  }
  EXPECT_EQ(entries->back().state, inspect::FreeState::kRecent);
}

TEST_F(InspectTest, ReaderSlotsNameTheSnapshotAndTheProcess) {
  auto none = inspect::reader_slots(path_);
  ASSERT_TRUE(none.is_ok());
  EXPECT_TRUE(none->empty());
  auto ro = testing::open_database(path_, Options{.read_only = true});
  ASSERT_TRUE(ro.is_ok());
  auto r = (*ro)->begin_read();
  ASSERT_TRUE(r.is_ok());
  auto slots = inspect::reader_slots(path_);
  ASSERT_TRUE(slots.is_ok());
  ASSERT_EQ(slots->size(), 1u);
  EXPECT_EQ((*slots)[0].snapshot_txn, r->txn_id());
  ASSERT_EQ((*slots)[0].pids.size(), 1u);
  EXPECT_EQ((*slots)[0].pids[0], getpid());
  EXPECT_TRUE(inspect::reader_slots(dir_.file("missing")).status().is_not_found());
}

// The kernel answers a lock query with the first conflicting lock in its
// list, which groups locks by handle: X's second slot comes before Y's lower
// one, and a listing that jumps past the lock it was told of misses Y's.
TEST_F(InspectTest, ReaderSlotsListASlotBelowAnotherHandlesLaterOne) {
  auto handles = read_only_handles(2);
  ASSERT_EQ(handles.size(), 2u);
  Database& x = *handles[0];
  Database& y = *handles[1];
  auto x1 = x.begin_read();
  commit_one();
  auto y2 = y.begin_read();
  commit_one();
  auto x3 = x.begin_read();
  ASSERT_TRUE(x1.is_ok() && y2.is_ok() && x3.is_ok());
  ASSERT_LT(x1->txn_id(), y2->txn_id());
  ASSERT_LT(y2->txn_id(), x3->txn_id());
  EXPECT_EQ(listed_snapshots(), (std::vector<uint64_t>{x1->txn_id(), y2->txn_id(), x3->txn_id()}));
}

// Four handles nest their snapshots (0 1 2 3 3 2 1 0): each handle's locks
// sit together in the kernel's list, every one far from the next-higher
// slot. Handle 3's two side by side are one lock; two handles share the last.
TEST_F(InspectTest, ReaderSlotsListNestedSnapshotsOfSeveralHandles) {
  auto handles = read_only_handles(4);
  ASSERT_EQ(handles.size(), 4u);
  std::vector<ReadTxn> reads;
  std::vector<uint64_t> expected;
  for (const int h : {0, 1, 2, 3, 3, 2, 1, 0}) {
    auto r = handles[h]->begin_read();
    ASSERT_TRUE(r.is_ok());
    expected.push_back(r->txn_id());
    reads.push_back(std::move(r).value());
    commit_one();
  }
  for (const int h : {1, 2}) {
    auto r = handles[h]->begin_read();
    ASSERT_TRUE(r.is_ok());
    reads.push_back(std::move(r).value());
  }
  expected.push_back(reads.back().txn_id());
  EXPECT_EQ(listed_snapshots(), expected);
  // Ending the first of handle 3's two splits its lock; the other stays.
  reads[3].abort();
  expected.erase(expected.begin() + 3);
  EXPECT_EQ(listed_snapshots(), expected);
  reads.clear();
  EXPECT_EQ(listed_snapshots(), std::vector<uint64_t>{});
}

// Handles begin and end reads in a random order between commits; after each
// step the listing is exactly the set of snapshots open reads hold.
TEST_F(InspectTest, ReaderSlotsFollowRandomReadsOfSeveralHandles) {
  std::mt19937_64 rng(testing::test_seed(20240611));
  auto handles = read_only_handles(4);
  ASSERT_EQ(handles.size(), 4u);
  std::vector<ReadTxn> reads;
  for (int step = 0; step < 120; ++step) {
    const uint64_t action = rng() % 8;
    if (action < 2) {
      commit_one();
    } else if (action < 6 || reads.empty()) {
      auto r = handles[rng() % handles.size()]->begin_read();
      ASSERT_TRUE(r.is_ok());
      reads.push_back(std::move(r).value());
    } else {
      reads.erase(reads.begin() + static_cast<ptrdiff_t>(rng() % reads.size()));
    }
    std::set<uint64_t> expected;
    for (const ReadTxn& r : reads) expected.insert(r.txn_id());
    ASSERT_EQ(listed_snapshots(), std::vector<uint64_t>(expected.begin(), expected.end()))
        << "step " << step;
  }
}

TEST_F(InspectTest, AWriteTxnIsRefused) {
  auto w = db_->begin_write();
  EXPECT_TRUE(inspect::trees(*w).status().is_invalid_argument());
}

}  // namespace
}  // namespace ordo
