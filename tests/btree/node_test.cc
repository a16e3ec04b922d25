#include <gtest/gtest.h>

#include <vector>

#include "ordo/btree/node.h"

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

TEST(NodeTest, UnknownPageTypeIsCorruption) {
  std::vector<std::byte> page(4096, std::byte{0x5a});
  EXPECT_TRUE(check_node(page.data(), 4096, 3).is_corruption());
}

}  // namespace
}  // namespace ordo::btree
