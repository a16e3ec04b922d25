// The inspection API (ordo/inspect.h) against what check and the writes say.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/inspect.h"

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
  auto ro = Database::open(path_, Options{.read_only = true});
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

TEST_F(InspectTest, AWriteTxnIsRefused) {
  auto w = db_->begin_write();
  EXPECT_TRUE(inspect::trees(*w).status().is_invalid_argument());
}

}  // namespace
}  // namespace ordo
