// FreeList: reclaiming takes only entries no snapshot in use reaches (the
// reuse rule: the last commit's entries wait, a live reader pins the entries
// whose pages its snapshot reaches, later entries are not held by it), and
// the commit's record lists this txn's freed and unused pages.
#include "free_list.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <vector>

#include "free_entry.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/endian.h"
#include "page_file_fixture.h"
#include "write_txn_pages.h"

namespace ordo::engine {
namespace {

constexpr uint32_t kFreeListPageSize = 4096;
constexpr uint64_t kBudget = 1u << 20;

// (freed by, written by) -> pages
using Entries = std::map<std::pair<uint64_t, uint64_t>, std::vector<btree::PageNo>>;

class FreeListTest : public testing::PageFileTest {
 protected:
  void SetUp() override {
    testing::PageFileTest::SetUp();
    if (HasFatalFailure()) return;
    // Pages [2, 40) stand for the data pages the entries list.
    meta_.page_size = kFreeListPageSize;
    meta_.page_high_water = 40;
    ASSERT_TRUE(file_->grow_to(meta_.page_high_water * kFreeListPageSize).is_ok());
  }

  ReuseRule rule(uint64_t snapshot_txn, std::vector<uint64_t> readers) {
    return rule(snapshot_txn, snapshot_txn, std::move(readers));
  }
  ReuseRule rule(uint64_t snapshot_txn, uint64_t checkpoint_txn, std::vector<uint64_t> readers) {
    return ReuseRule::make(snapshot_txn, checkpoint_txn, std::move(readers), *file_);
  }

  // Commits a free tree holding `entries` as txn `txn`, into meta_.
  void commit_free_tree(const Entries& entries, uint64_t txn) {
    WriteTxnPages pages(*file_, buffers_, meta_, txn, rule(0, {}), kBudget, false);
    for (const auto& [ids, list] : entries) {
      std::vector<std::byte> value(list.size() * 8);
      for (size_t i = 0; i < list.size(); ++i) btree::store_u64(value.data() + 8 * i, list[i]);
      const std::string key = free_key(ids.first, ids.second, 0);
      ASSERT_TRUE(
          btree::put(pages, pages.free_tree(), ByteView(key), ByteView(value.data(), value.size()))
              .is_ok());
      meta_.free_pages += list.size();
    }
    ASSERT_TRUE(btree::finalize(pages, pages.free_tree()).is_ok());
    ASSERT_TRUE(file_->grow_to(pages.next_page() * kFreeListPageSize).is_ok());
    ASSERT_TRUE(file_->write(pages.write_spans(), false).is_ok());
    meta_.free_tree = pages.free_tree();
    meta_.page_high_water = pages.next_page();
    meta_.txn_id = txn;
  }

  // The entries of free tree `tree`.
  Entries read_entries(WriteTxnPages& pages, const btree::TreeRoot& tree) {
    Entries out;
    btree::Cursor c(pages, tree);
    EXPECT_TRUE(c.first().is_ok());
    while (c.valid()) {
      auto e = decode_free_entry(c.key(), c.value(), tree.root);
      EXPECT_TRUE(e.is_ok());
      if (!e.is_ok()) break;
      for (uint64_t i = 0; i < e->page_count(); ++i) {
        out[{e->freed_by, e->written_by}].push_back(e->page(i));
      }
      EXPECT_TRUE(c.next().is_ok());
    }
    return out;
  }

  // Every page reclaim() hands to a fresh allocator until none is left.
  std::set<btree::PageNo> reclaim_all(FreeList& list, WriteTxnPages& pages) {
    PageAllocator allocator(meta_.page_high_water);
    while (list.may_reclaim()) {
      auto got = list.reclaim(pages, allocator);
      EXPECT_TRUE(got.is_ok()) << got.status().to_string();
      if (!got.is_ok()) break;
    }
    const std::vector<btree::PageNo> pool = allocator.pool_pages();
    return {pool.begin(), pool.end()};
  }

  PageBuffers buffers_{kFreeListPageSize};
  Meta meta_;
};

const Entries kEntries = {
    {{3, 1}, {10, 11}},  // freed by txn 3, written by txn 1
    {{5, 4}, {12}},     {{6, 2}, {13}}, {{7, 6}, {14}}, {{8, 7}, {15}},  // the last commit's
};

TEST_F(FreeListTest, WithoutReadersAllButTheLastCommitsEntriesAreReclaimed) {
  commit_free_tree(kEntries, 8);
  WriteTxnPages pages(*file_, buffers_, meta_, 9, rule(0, {}), kBudget, false);
  FreeList list(meta_.free_tree, meta_.free_pages, meta_.page_high_water, 9, rule(8, {}));
  EXPECT_EQ(reclaim_all(list, pages), (std::set<btree::PageNo>{10, 11, 12, 13, 14}));
  EXPECT_EQ(list.pages_reused(), 5u);
  EXPECT_EQ(list.free_page_count(), 1u);
  EXPECT_EQ(read_entries(pages, list.tree()), (Entries{{{8, 7}, {15}}}));
}

TEST_F(FreeListTest, AReaderPinsTheEntriesItsSnapshotReaches) {
  commit_free_tree(kEntries, 8);
  WriteTxnPages pages(*file_, buffers_, meta_, 9, rule(0, {}), kBudget, false);
  // A reader of snapshot 4 reaches pages written by txns <= 4 and freed after 4.
  FreeList list(meta_.free_tree, meta_.free_pages, meta_.page_high_water, 9, rule(8, {4}));
  EXPECT_EQ(reclaim_all(list, pages), (std::set<btree::PageNo>{10, 11, 14}));
  EXPECT_EQ(read_entries(pages, list.tree()),
            (Entries{{{5, 4}, {12}}, {{6, 2}, {13}}, {{8, 7}, {15}}}));
}

TEST_F(FreeListTest, RecordListsFreedAndUnusedPagesUnderThisTxn) {
  commit_free_tree(kEntries, 8);
  WriteTxnPages pages(*file_, buffers_, meta_, 9, rule(0, {}), kBudget, false);
  FreeList list(meta_.free_tree, meta_.free_pages, meta_.page_high_water, 9, rule(8, {4}));
  PageAllocator allocator(meta_.page_high_water);
  list.add_freed(5, 30);
  list.add_freed(5, 31);
  list.add_freed(2, 32);
  ASSERT_TRUE(list.record(pages, allocator).is_ok());
  const Entries got = read_entries(pages, list.tree());
  // Reclaimed pages the free tree's own edits did not take are listed as
  // written by this txn.
  const std::vector<btree::PageNo> pool = allocator.pool_pages();
  const std::set<btree::PageNo> unused(pool.begin(), pool.end());
  std::set<btree::PageNo> listed;
  if (got.count({9, 9}) != 0) listed.insert(got.at({9, 9}).begin(), got.at({9, 9}).end());
  EXPECT_EQ(listed, unused);
  EXPECT_EQ(got.at({9, 5}), (std::vector<btree::PageNo>{30, 31}));
  EXPECT_EQ(got.at({9, 2}), (std::vector<btree::PageNo>{32}));
  EXPECT_EQ(got.at({5, 4}), (std::vector<btree::PageNo>{12}));  // still pinned
  EXPECT_EQ(got.count({3, 1}), 0u);                             // reclaimed for the record's edits
  EXPECT_EQ(list.free_page_count(), meta_.free_pages - list.pages_reused() + 3 + unused.size());
}

// Checkpoint 4, last commit 8: entries freed after 4 of pages written at or
// before 4 wait for the next checkpoint whatever readers do.
const Entries kCheckpointEntries = {
    {{3, 1}, {10}},  // reusable
    {{5, 2}, {11}},  // waits for the checkpoint
    {{6, 3}, {12}},  // waits
    {{6, 5}, {13}},  // written after the checkpoint: reusable
    {{7, 1}, {14}},  // waits
    {{8, 7}, {15}},  // the last commit's
};

TEST_F(FreeListTest, EntriesWaitingForTheCheckpointAreSkippedByTheNextTxn) {
  commit_free_tree(kCheckpointEntries, 8);
  WriteTxnPages pages(*file_, buffers_, meta_, 9, rule(0, {}), kBudget, false);
  FreeList list(meta_.free_tree, meta_.free_pages, meta_.page_high_water, 9, rule(8, 4, {}));
  EXPECT_EQ(reclaim_all(list, pages), (std::set<btree::PageNo>{10, 13}));
  // Everything below the last commit's entry was reclaimed or waits.
  std::string after_waiting = free_key(7, 1, 0);
  after_waiting.push_back('\0');
  EXPECT_EQ(list.held_before(), after_waiting);
  EXPECT_EQ(list.checkpoint_txn(), 4u);

  // A rule told to skip them starts there, on the tree the reclaims left:
  // none of the waiting entries is looked at (debug builds check that each
  // still waits), and the last commit's entry is still not reusable.
  ReuseRule skipping = rule(8, 4, {});
  skipping.skip_entries_before(list.held_before());
  FreeList next(list.tree(), list.free_page_count(), meta_.page_high_water, 9, std::move(skipping));
  EXPECT_EQ(reclaim_all(next, pages), (std::set<btree::PageNo>{}));
  EXPECT_EQ(next.held_before(), after_waiting);
}

TEST_F(FreeListTest, AnEntryPinnedByAReaderStopsWhatTheNextTxnSkips) {
  commit_free_tree(kCheckpointEntries, 8);
  WriteTxnPages pages(*file_, buffers_, meta_, 9, rule(0, {}), kBudget, false);
  // A reader of snapshot 5 reaches pages written at or before 5 and freed
  // after 5: {6, 3} (which waits anyway) and {6, 5}, which it pins.
  FreeList list(meta_.free_tree, meta_.free_pages, meta_.page_high_water, 9, rule(8, 4, {5}));
  EXPECT_EQ(reclaim_all(list, pages), (std::set<btree::PageNo>{10}));
  // {6, 5} may be reusable once the reader ends: the next txn must look at it.
  std::string at_pinned = free_key(6, 3, 0);
  at_pinned.push_back('\0');
  EXPECT_EQ(list.held_before(), at_pinned);
}

}  // namespace
}  // namespace ordo::engine
