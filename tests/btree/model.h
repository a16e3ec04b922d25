// Helpers of the B+-tree tests: big-endian keys and a check of a tree against a
// std::map model.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "mem_pages.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/tree.h"

namespace ordo::btree::testing {

// 8 bytes big-endian: byte order is numeric order.
inline std::string be_key(uint64_t i) {
  std::string k(8, '\0');
  store_be64(reinterpret_cast<std::byte*>(k.data()), i);
  return k;
}

// Compares a full scan in both directions and point lookups with the model.
inline void expect_matches(MemPages& pages, const TreeRoot& tree,
                           const std::map<std::string, std::string>& model) {
  Cursor c(pages, tree);
  ASSERT_TRUE(c.first().is_ok());
  auto it = model.begin();
  for (; c.valid(); ++it) {
    ASSERT_NE(it, model.end());
    ASSERT_EQ(c.key().str(), it->first);
    ASSERT_EQ(c.value().str(), it->second);
    ASSERT_TRUE(c.next().is_ok());
  }
  ASSERT_EQ(it, model.end());
  ASSERT_TRUE(c.last().is_ok());
  auto rit = model.rbegin();
  for (; c.valid(); ++rit) {
    ASSERT_NE(rit, model.rend());
    ASSERT_EQ(c.key().str(), rit->first);
    ASSERT_TRUE(c.prev().is_ok());
  }
  ASSERT_EQ(rit, model.rend());
  EXPECT_EQ(tree.entries, model.size());
  TreeShape stats;
  ASSERT_TRUE(collect_stats(pages, tree, &stats).is_ok());
  EXPECT_EQ(stats.entries, model.size());
}

}  // namespace ordo::btree::testing
