// The checks a commit runs on its pages right before writing them: a page
// that this txn did not build correctly aborts naming the broken invariant.
#include "commit_checks.h"

#include <gtest/gtest.h>

#include <vector>

#include "ordo/btree/node.h"

namespace ordo::engine {
namespace {

constexpr uint32_t kPage = 4096;
constexpr uint64_t kTxn = 7;

// One leaf page at page number 2 holding two entries, stamped with `txn`.
struct OneLeaf {
  explicit OneLeaf(uint64_t txn = kTxn) : bytes(kPage) {
    btree::NodeEditor e(bytes.data(), kPage);
    e.init(btree::PageType::kLeaf, txn);
    e.insert_leaf(0, "a", "1");
    e.insert_leaf(1, "b", "2");
    meta.page_size = kPage;
    meta.txn_id = kTxn;
    meta.page_high_water = 3;
    root.root = 2;
    root.depth = 1;
    root.entries = 2;
    root.root_checksum = btree::page_checksum(bytes.data(), kPage);
  }
  std::vector<io::WriteSpan> spans(uint64_t page_number = 2) const {
    return {io::WriteSpan{page_number * kPage, bytes.data(), kPage}};
  }
  std::vector<std::byte> bytes;
  Meta meta;
  btree::TreeRoot root;
};

TEST(CommitChecksTest, ACorrectPagePasses) {
  OneLeaf leaf;
  check_pages_before_write(leaf.meta, {&leaf.root, 1}, leaf.spans());
}

TEST(CommitChecksDeathTest, APageOfAnotherTxnAborts) {
  OneLeaf leaf(kTxn - 1);
  leaf.root.root_checksum = btree::page_checksum(leaf.bytes.data(), kPage);
  EXPECT_DEATH(check_pages_before_write(leaf.meta, {&leaf.root, 1}, leaf.spans()),
               "ordo assertion failed: v.txn_id\\(\\) == meta.txn_id");
}

TEST(CommitChecksDeathTest, APagePastTheHighWaterMarkAborts) {
  OneLeaf leaf;
  EXPECT_DEATH(check_pages_before_write(leaf.meta, {}, leaf.spans(3)),
               "ordo assertion failed: pg >= kFirstDataPage && pg < meta.page_high_water");
}

TEST(CommitChecksDeathTest, AMetaPageNumberAborts) {
  OneLeaf leaf;
  EXPECT_DEATH(check_pages_before_write(leaf.meta, {}, leaf.spans(1)),
               "ordo assertion failed: pg >= kFirstDataPage");
}

#ifndef NDEBUG
// Under ORDO_DCHECK: bytes changed after the checksum was computed.
TEST(CommitChecksDeathTest, AChecksumThatDoesNotDescribeThePageAborts) {
  OneLeaf leaf;
  leaf.root.root_checksum ^= 1;
  EXPECT_DEATH(check_pages_before_write(leaf.meta, {&leaf.root, 1}, leaf.spans()),
               "checksum mismatch");
}
#endif

}  // namespace
}  // namespace ordo::engine
