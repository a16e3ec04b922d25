// The overflow reference codec: what encode writes decode reads back, and
// bytes that cannot be a reference are Corruption naming the leaf.
#include "ordo/btree/overflow_ref.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "mem_pages.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"

namespace ordo::btree {
namespace {

constexpr uint32_t kOverflowPage = 4096;
constexpr PageNo kLeaf = 77;

TEST(OverflowRefTest, DecodeReadsWhatEncodeWrote) {
  for (const OverflowRef ref : {OverflowRef{2, 0}, OverflowRef{12345, 0x0123456789abcdefull},
                                OverflowRef{~uint64_t{0}, ~uint64_t{0}}}) {
    std::byte bytes[kOverflowRefBytes];
    encode_overflow_ref(ref, bytes);
    // The format: u64 first page, u64 checksum, little-endian.
    EXPECT_EQ(load_u64(bytes), ref.first);
    EXPECT_EQ(load_u64(bytes + 8), ref.checksum);
    auto got = decode_overflow_ref(ByteView(bytes, sizeof bytes), kLeaf);
    ASSERT_TRUE(got.is_ok()) << got.status().to_string();
    EXPECT_EQ(*got, ref);
  }
}

TEST(OverflowRefTest, DamagedReferencesAreCorruptionNamingTheLeaf) {
  std::byte bytes[kOverflowRefBytes + 1] = {};
  encode_overflow_ref({40, 9}, bytes);
  for (size_t size : {size_t{0}, size_t{8}, size_t{15}, size_t{17}}) {
    auto got = decode_overflow_ref(ByteView(bytes, size), kLeaf);
    ASSERT_FALSE(got.is_ok()) << size;
    EXPECT_TRUE(got.status().is_corruption());
    EXPECT_EQ(got.status().page_number(), kLeaf);
  }
  // Pages 0 and 1 are meta pages (0 also means "no page"): never a run.
  for (PageNo first : {PageNo{0}, PageNo{1}}) {
    encode_overflow_ref({first, 9}, bytes);
    auto got = decode_overflow_ref(ByteView(bytes, kOverflowRefBytes), kLeaf);
    ASSERT_FALSE(got.is_ok()) << first;
    EXPECT_EQ(got.status().page_number(), kLeaf);
  }
}

TEST(OverflowRefTest, LeafEntryGivesTheRunOrCorruption) {
  std::vector<std::byte> page(kOverflowPage);
  NodeEditor ed(page.data(), kOverflowPage);
  ed.init(PageType::kLeaf, 1);
  ed.insert_leaf_overflow(0, ByteView("a"), 10000, 50, 1234);
  ed.insert_leaf_overflow(1, ByteView("b"), kMaxValueBytes + 1, 60, 1);
  ed.insert_leaf(2, ByteView("c"), ByteView("inline"));
  const NodeView leaf(page.data(), kOverflowPage);

  auto run = leaf_overflow_run(leaf, 0, kLeaf);
  ASSERT_TRUE(run.is_ok()) << run.status().to_string();
  EXPECT_EQ(run->ref, (OverflowRef{50, 1234}));
  EXPECT_EQ(run->value_len, 10000u);
  EXPECT_EQ(run->pages, overflow_pages(10000, kOverflowPage));

  auto too_long = leaf_overflow_run(leaf, 1, kLeaf);
  ASSERT_FALSE(too_long.is_ok());
  EXPECT_EQ(too_long.status().page_number(), kLeaf);

  // A slot pointing outside the page: a damaged cell, not a wild read.
  store_u16(page.data() + kHeaderSize, static_cast<uint16_t>(kOverflowPage - 4));
  auto damaged = leaf_overflow_run(NodeView(page.data(), kOverflowPage), 0, kLeaf);
  ASSERT_FALSE(damaged.is_ok());
  EXPECT_TRUE(damaged.status().is_corruption());
  EXPECT_EQ(damaged.status().page_number(), kLeaf);
}

TEST(OverflowRefTest, ReadingARunChecksItsTypeAndChecksum) {
  testing::MemPages pages(kOverflowPage);
  TreeRoot tree;
  const std::string value(3 * kOverflowPage, 'v');
  ASSERT_TRUE(put(pages, tree, "k", value).is_ok());
  ASSERT_TRUE(finalize(pages, tree).is_ok());
  pages.commit();
  const NodeView leaf(*pages.read(tree.root), kOverflowPage);
  auto run = leaf_overflow_run(leaf, 0, tree.root);
  ASSERT_TRUE(run.is_ok());
  auto bytes = read_overflow_run(pages, *run, tree.root, true);
  ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  EXPECT_EQ(std::memcmp(*bytes + kHeaderSize, value.data(), value.size()), 0);

  OverflowRun wrong_sum = *run;
  wrong_sum.ref.checksum ^= 1;
  auto mismatch = read_overflow_run(pages, wrong_sum, tree.root, true);
  ASSERT_FALSE(mismatch.is_ok());
  EXPECT_EQ(mismatch.status().page_number(), run->ref.first);
  EXPECT_TRUE(read_overflow_run(pages, wrong_sum, tree.root, false).is_ok());

  std::byte* first = const_cast<std::byte*>(*bytes);
  first[kOffType] = static_cast<std::byte>(PageType::kLeaf);
  auto not_overflow = read_overflow_run(pages, *run, tree.root, false);
  ASSERT_FALSE(not_overflow.is_ok());
  EXPECT_TRUE(not_overflow.status().is_corruption());
}

}  // namespace
}  // namespace ordo::btree
