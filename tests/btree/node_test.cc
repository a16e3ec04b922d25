#include "ordo/btree/node.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "test_seed.h"

namespace ordo::btree {
namespace {

TEST(NodeTest, InsertRemoveKeepsOrderAndAccounting) {
  std::vector<std::byte> page(4096);
  NodeEditor ed(page.data(), 4096);
  ed.init(PageType::kLeaf, 7);
  ed.insert_leaf(0, "b", "2");
  ed.insert_leaf(0, "a", "1");
  ed.insert_leaf(2, "c", "333");
  NodeView v = ed.view();
  ASSERT_EQ(v.count(), 3u);
  EXPECT_EQ(v.key(0).str(), "a");
  EXPECT_EQ(v.value(2).str(), "333");
  EXPECT_EQ(v.txn_id(), 7u);
  EXPECT_EQ(v.cell_bytes(), 3 * kLeafCellHeader + 2 + 2 + 4);
  ed.remove(1);
  EXPECT_EQ(v.count(), 2u);
  EXPECT_EQ(v.key(1).str(), "c");
  EXPECT_TRUE(check_node_order(page.data(), 4096, 2).is_ok());
  EXPECT_FALSE(v.damaged());
}

TEST(NodeTest, FillsAfterFragmentationByCompacting) {
  std::vector<std::byte> page(4096);
  NodeEditor ed(page.data(), 4096);
  ed.init(PageType::kLeaf, 1);
  std::string val(100, 'x');
  uint32_t n = 0;
  while (ed.fits(leaf_cell_size(4, val.size()))) {
    std::string k = std::to_string(1000 + n++);
    ed.insert_leaf(ed.view().count(), k, val);
  }
  // Remove every other entry (holes in the middle), then refill.
  for (uint32_t i = 0; i < ed.view().count(); ++i) ed.remove(i);
  uint32_t remaining = ed.view().count();
  uint32_t added = 0;
  while (ed.fits(leaf_cell_size(4, val.size()))) {
    ed.insert_leaf(0, std::to_string(100 + added++), val);
  }
  EXPECT_EQ(added, n - remaining);
  EXPECT_TRUE(check_node(page.data(), 4096, 2).is_ok());
}

TEST(NodeTest, DamagedSlotIsReportedNotRead) {
  std::vector<std::byte> page(4096);
  NodeEditor ed(page.data(), 4096);
  ed.init(PageType::kLeaf, 1);
  ed.insert_leaf(0, "key", "value");
  store_u16(page.data() + kHeaderSize, 4095);  // cell would run off the page
  NodeView v(page.data(), 4096);
  EXPECT_TRUE(v.key(0).empty());
  EXPECT_TRUE(v.damaged());
  Status s = check_node(page.data(), 4096, 9);
  EXPECT_TRUE(s.is_corruption());
  EXPECT_EQ(s.page_number(), 9u);
}

// Keys of 0 to 40 bytes over a 3-letter alphabet, so that long shared
// prefixes, prefixes of each other and equal keys all occur.
std::string random_key(std::mt19937_64& rng) {
  std::string k(rng() % 41, '\0');
  for (char& c : k) c = static_cast<char>(0x7e + rng() % 3);  // 0x7e..0x80: sign bit too
  return k;
}

int memcmp_order(const std::string& a, const std::string& b) {
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

TEST(NodeTest, KeyCompareIsUnsignedByteOrder) {
  std::mt19937_64 rng(ordo::testing::test_seed(std::random_device{}()));
  for (int i = 0; i < 200000; ++i) {
    const std::string a = random_key(rng);
    const std::string b = i % 4 == 0 ? a.substr(0, rng() % (a.size() + 1)) : random_key(rng);
    const int c = ByteView(a).compare(ByteView(b));
    ASSERT_EQ((c > 0) - (c < 0), memcmp_order(a, b)) << "a=" << a << " b=" << b;
  }
}

TEST(NodeTest, PageSearchesAgreeWithSortedOrder) {
  std::mt19937_64 rng(ordo::testing::test_seed(std::random_device{}()));
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> keys;
    for (int i = 0; i < 60; ++i) keys.push_back(random_key(rng));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::vector<std::byte> leaf(4096), branch(4096);
    NodeEditor le(leaf.data(), 4096), be(branch.data(), 4096);
    le.init(PageType::kLeaf, 1);
    be.init(PageType::kBranch, 1);
    for (size_t i = 0; i < keys.size(); ++i) {
      le.insert_leaf(static_cast<uint32_t>(i), keys[i], "v");
      be.insert_branch(static_cast<uint32_t>(i), i == 0 ? std::string() : keys[i], i + 10, 0, i);
    }
    const NodeView lv(leaf.data(), 4096), bv(branch.data(), 4096);
    for (int probe = 0; probe < 100; ++probe) {
      const std::string k = probe % 3 == 0 ? keys[rng() % keys.size()] : random_key(rng);
      const auto at = std::lower_bound(keys.begin(), keys.end(), k);
      bool found = false;
      ASSERT_EQ(lv.leaf_lower_bound(k, &found), static_cast<uint32_t>(at - keys.begin()));
      ASSERT_EQ(found, at != keys.end() && *at == k);
      // The child holding k: the last entry whose key <= k, entry 0 standing
      // for minus infinity.
      const auto past = std::upper_bound(keys.begin() + 1, keys.end(), k);
      ASSERT_EQ(bv.branch_child_index(k), static_cast<uint32_t>(past - keys.begin()) - 1);
    }
    ASSERT_FALSE(lv.damaged());
    ASSERT_FALSE(bv.damaged());
  }
}

TEST(NodeTest, DamagedSlotMetBySearchIsReportedNotRead) {
  std::vector<std::byte> page(4096);
  NodeEditor ed(page.data(), 4096);
  ed.init(PageType::kLeaf, 1);
  for (int i = 0; i < 9; ++i) ed.insert_leaf(i, "key" + std::to_string(i), "value");
  // The middle slot, the first one a search probes, points past the page end,
  // then at a cell whose key length runs off the page.
  store_u16(page.data() + kHeaderSize + kSlotSize * 4, 4094);
  bool found = true;
  NodeView v(page.data(), 4096);
  v.leaf_lower_bound("key5", &found);
  EXPECT_TRUE(v.damaged());
  EXPECT_FALSE(found);
  const uint32_t off = 4096 - kLeafCellHeader - 2;
  store_u16(page.data() + kHeaderSize + kSlotSize * 4, static_cast<uint16_t>(off));
  store_u16(page.data() + off, 900);
  NodeView w(page.data(), 4096);
  w.leaf_lower_bound("key5", &found);
  EXPECT_TRUE(w.damaged());
  // A slot array claimed longer than the page.
  store_u16(page.data() + kOffCount, 4000);
  NodeView x(page.data(), 4096);
  x.leaf_lower_bound("key5", &found);
  EXPECT_TRUE(x.damaged());
}

TEST(NodeTest, UnknownPageTypeIsCorruption) {
  std::vector<std::byte> page(4096, std::byte{0x5a});
  EXPECT_TRUE(check_node(page.data(), 4096, 3).is_corruption());
}

}  // namespace
}  // namespace ordo::btree
