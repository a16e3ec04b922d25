// Txn::check on clean databases after real workloads, and on databases
// damaged in each way `ordo check` must report.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstring>
#include <random>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/node.h"

namespace ordo {
namespace {

using testing::be_key;

constexpr uint32_t kPage = 4096;

class CheckTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("check.ordo"); }

  CheckReport check(bool expect_open = true) {
    Options ro;
    ro.read_only = true;
    auto db = testing::open_database(path(), ro);
    EXPECT_TRUE(db.is_ok()) << db.status().to_string();
    if (!db.is_ok()) return {};
    auto r = (*db)->begin_read();
    auto report = r->check();
    EXPECT_TRUE(report.is_ok()) << report.status().to_string();
    for (const auto& p : report->problems)
      std::printf("  page %llu: %s\n", (unsigned long long)p.page_number, p.what.c_str());
    return *report;
  }
  // A database with a 3-level default tree, a named tree with overflow values,
  // and free pages from rewrites.
  // Two-sync: damage to the last commit's pages is then reported, not taken
  // for a one-sync commit cut short by a crash and rolled back.
  void build() {
    Options two_sync;
    two_sync.commit_protocol = CommitProtocol::kTwoSync;
    auto db = testing::open_db(path(), two_sync);
    for (int round = 0; round < 3; ++round) {
      auto w = db->begin_write();
      auto t = w->create_tree("blobs");
      for (uint64_t i = 0; i < 20000; ++i) {
        ASSERT_TRUE(w->put(w->default_tree(), be_key(i), std::string(60, 'a' + round)).is_ok());
      }
      for (uint64_t i = 0; i < 20; ++i) {
        ASSERT_TRUE(w->put(*t, be_key(i), std::string(5000 + i, 'b')).is_ok());
      }
      ASSERT_TRUE(w->commit().is_ok());
    }
  }
  std::vector<std::byte> page(uint64_t pg) {
    return io::testing::pread_file(path(), pg * kPage, kPage);
  }
  void write_page(uint64_t pg, const std::vector<std::byte>& bytes) {
    int fd = ::open(path().c_str(), O_WRONLY);
    ASSERT_EQ(::pwrite(fd, bytes.data(), bytes.size(), pg * kPage), (ssize_t)bytes.size());
    ::close(fd);
  }
  // Root of the default tree from the newest meta.
  uint64_t default_root() {
    uint64_t best_txn = 0, root = 0;
    for (int slot = 0; slot < 2; ++slot) {
      auto m = page(slot);
      uint64_t txn = btree::load_u64(m.data() + 16);
      if (txn >= best_txn) {
        best_txn = txn;
        root = btree::load_u64(m.data() + 40);
      }
    }
    return root;
  }
  bool has_problem(const CheckReport& r, const std::string& what, uint64_t pg = ~0ull) {
    for (const auto& p : r.problems) {
      if (p.what.find(what) != std::string::npos && (pg == ~0ull || p.page_number == pg))
        return true;
    }
    return false;
  }
  io::testing::TempDir dir_;
};

TEST_F(CheckTest, CleanAfterLoadsRewritesDropsAndOverflowValues) {
  build();
  {
    auto db = testing::open_db(path());  // one-sync, the default
    auto w = db->begin_write();
    auto t = w->create_tree("gone");
    for (uint64_t i = 0; i < 3000; ++i) ASSERT_TRUE(w->put(*t, be_key(i), "x").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
    auto w2 = db->begin_write();
    ASSERT_TRUE(w2->drop_tree("gone").is_ok());
    for (uint64_t i = 0; i < 20000; i += 3)
      ASSERT_TRUE(w2->del(w2->default_tree(), be_key(i)).is_ok());
    ASSERT_TRUE(w2->commit().is_ok());
  }
  CheckReport r = check();
  EXPECT_TRUE(r.clean());
  EXPECT_EQ(r.trees, 2u);  // user trees: default, blobs (the catalog and free tree apart)
  EXPECT_EQ(r.catalog_entries, 1u);
  EXPECT_GT(r.free_tree_entries, 0u);
  EXPECT_GT(r.overflow_pages, 20u);
  EXPECT_GT(r.free_pages, 0u);
  EXPECT_EQ(r.tree_pages + r.overflow_pages + r.free_pages + r.log_pages + 2, r.high_water_pages);
}

TEST_F(CheckTest, FlippedByteInABranchIsAChecksumMismatchOnThatPage) {
  build();
  uint64_t root = default_root();
  auto bytes = page(root);
  ASSERT_EQ(static_cast<btree::PageType>(bytes[0]), btree::PageType::kBranch);
  bytes[kPage - 1] ^= std::byte{0xff};
  write_page(root, bytes);
  CheckReport r = check();
  EXPECT_TRUE(has_problem(r, "checksum mismatch", root));
}

// A branch whose entry counts are wrong but whose checksums were made to
// agree (as a bug writing counts would leave it): check names the branch.
TEST_F(CheckTest, AWrongEntryCountIsReportedOnItsBranch) {
  build();
  const uint64_t root = default_root();
  auto bytes = page(root);
  btree::NodeEditor ed(bytes.data(), kPage);
  ASSERT_TRUE(ed.view().is_branch());
  ASSERT_GE(ed.view().count(), 2u);
  // One entry too many under child 0, one too few under child 1: the root's
  // sum (and the tree's entry count) still agree.
  ed.add_child_entries(0, 1);
  ed.add_child_entries(1, -1);
  write_page(root, bytes);
  // The meta that names the root records its new checksum, resealed.
  for (int slot = 0; slot < 2; ++slot) {
    auto m = page(slot);
    if (btree::load_u64(m.data() + 40) != root) continue;
    btree::store_u64(m.data() + 48, XXH3_64bits(bytes.data(), kPage));
    btree::store_u64(m.data() + 248, XXH3_64bits(m.data(), 248));
    write_page(slot, m);
  }
  CheckReport r = check();
  EXPECT_TRUE(has_problem(r, "entry count mismatch: entry 0", root));
  EXPECT_TRUE(has_problem(r, "entry count mismatch: entry 1", root));
  EXPECT_FALSE(has_problem(r, "checksum mismatch"));
}

TEST_F(CheckTest, ACycleIsFoundNotFollowedForever) {
  build();
  uint64_t root = default_root();
  auto bytes = page(root);
  btree::NodeView v(bytes.data(), kPage);
  // Point the root's second child at its first: that subtree is reached twice.
  uint32_t off = btree::load_u16(bytes.data() + btree::kHeaderSize + 2);
  btree::store_u64(bytes.data() + off, v.child(0));
  write_page(root, bytes);
  CheckReport r = check();
  EXPECT_TRUE(has_problem(r, "reached twice"));
  EXPECT_FALSE(r.clean());
}

TEST_F(CheckTest, OverflowRunPastTheEndIsReported) {
  build();
  // Find the blobs tree root through the catalog, then a leaf with an overflow cell.
  Options ro;
  ro.read_only = true;
  uint64_t leaf_pg = 0;
  {
    // The blobs tree is small: its root is a leaf. Scan pages for it.
    int64_t size = io::testing::file_size(path());
    for (uint64_t pg = 2; pg * kPage < static_cast<uint64_t>(size) && leaf_pg == 0; ++pg) {
      auto b = page(pg);
      btree::NodeView v(b.data(), kPage);
      if (v.is_leaf() && v.count() == 20 && v.is_overflow(0) &&
          btree::load_u64(b.data() + 8) == 3) {
        leaf_pg = pg;
      }
    }
  }
  ASSERT_NE(leaf_pg, 0u);
  auto bytes = page(leaf_pg);
  btree::NodeView v(bytes.data(), kPage);
  size_t ref = v.value(0).data() - bytes.data();
  btree::store_u64(bytes.data() + ref, 1ull << 40);  // first page far past the end
  write_page(leaf_pg, bytes);
  CheckReport r = check();
  EXPECT_TRUE(has_problem(r, "past the end"));
  // The leaf's own checksum no longer matches either.
  EXPECT_TRUE(has_problem(r, "checksum mismatch", leaf_pg));
  // A reader with verification refuses the value; without it, reading the
  // value is a clean Corruption too, never a wild read.
  auto db = std::move(testing::open_database(path(), ro).value());
  auto txn = db->begin_read();
  auto got = txn->get(*txn->open_tree("blobs"), be_key(0));
  EXPECT_TRUE(got.status().is_corruption()) << got.status().to_string();
}

TEST_F(CheckTest, LeakedPageIsReported) {
  build();
  CheckReport before = check();
  ASSERT_TRUE(before.clean());
  // Extend the file by a page nobody owns and raise the high-water mark in
  // the newest meta (with a fresh checksum): that page is leaked.
  uint64_t best = 0;
  int slot_pick = 0;
  for (int slot = 0; slot < 2; ++slot) {
    uint64_t txn = btree::load_u64(page(slot).data() + 16);
    if (txn >= best) best = txn, slot_pick = slot;
  }
  auto meta = page(slot_pick);
  uint64_t high_water = btree::load_u64(meta.data() + 24);
  write_page(high_water, std::vector<std::byte>(kPage));  // the closed file ends at the mark
  btree::store_u64(meta.data() + 24, high_water + 1);
  btree::store_u64(meta.data() + 248, XXH3_64bits(meta.data(), 248));  // the meta checksum
  write_page(slot_pick, meta);
  CheckReport r = check();
  EXPECT_TRUE(has_problem(r, "leaked", high_water));
}

}  // namespace
}  // namespace ordo
