// ReaderTable: readers counted per snapshot; the first and last of each told
// apart; snapshots listed ascending.
#include "reader_table.h"

#include <gtest/gtest.h>

namespace ordo::engine {
namespace {

TEST(ReaderTableTest, FirstAndLastReaderOfASnapshot) {
  ReaderTable t;
  EXPECT_TRUE(t.add(5));
  EXPECT_FALSE(t.add(5));
  EXPECT_FALSE(t.remove(5));
  EXPECT_EQ(t.snapshots(), (std::vector<uint64_t>{5}));
  EXPECT_TRUE(t.remove(5));
  EXPECT_TRUE(t.empty());
  EXPECT_TRUE(t.add(5));  // first again
}

TEST(ReaderTableTest, RemovingAnUnknownSnapshotChangesNothing) {
  ReaderTable t;
  EXPECT_FALSE(t.remove(3));
  EXPECT_TRUE(t.add(4));
  EXPECT_FALSE(t.remove(3));
  EXPECT_EQ(t.snapshots(), (std::vector<uint64_t>{4}));
}

TEST(ReaderTableTest, SnapshotsAscendingOncePerTxn) {
  ReaderTable t;
  for (uint64_t txn : {9, 2, 7, 2, 9, 9}) t.add(txn);
  EXPECT_EQ(t.snapshots(), (std::vector<uint64_t>{2, 7, 9}));
  t.remove(7);
  t.remove(9);
  EXPECT_EQ(t.snapshots(), (std::vector<uint64_t>{2, 9}));
}

}  // namespace
}  // namespace ordo::engine
