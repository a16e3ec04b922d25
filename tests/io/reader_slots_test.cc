// Reader slots: PageFile::held_reader_slots against slots that handles lock
// in orders the kernel's lock list keeps apart (it groups locks by handle and
// answers a query with the first conflict it meets, not the lowest), and
// reader_slot_holders naming the processes that hold them.
#include "ordo/io/reader_slots.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <vector>

#include "io_test_util.h"
#include "ofd_lock.h"
#include "ordo/io/page_file.h"

namespace ordo::io {
namespace {

using testing::TempDir;

class ReaderSlotsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FileOptions options;
    options.map_reserve_bytes = 1 << 20;
    auto writer = PageFile::open(path_, options);
    ASSERT_TRUE(writer.is_ok()) << writer.status().to_string();
    writer_ = std::move(writer).value();
  }

  // `n` read-only handles of the file, each its own open file description.
  std::vector<std::unique_ptr<PageFile>> readers(int n) {
    FileOptions options;
    options.read_only = true;
    options.map_reserve_bytes = 1 << 20;
    std::vector<std::unique_ptr<PageFile>> out;
    for (int i = 0; i < n; ++i) {
      auto file = PageFile::open(path_, options);
      EXPECT_TRUE(file.is_ok()) << file.status().to_string();
      if (file.is_ok()) out.push_back(std::move(file).value());
    }
    return out;
  }

  std::vector<uint64_t> held() {
    auto slots = PageFile::held_reader_slots(path_);
    EXPECT_TRUE(slots.is_ok()) << slots.status().to_string();
    return slots.is_ok() ? *slots : std::vector<uint64_t>{};
  }

  TempDir dir_;
  std::string path_ = dir_.file("db.ordo");
  std::unique_ptr<PageFile> writer_;
};

TEST_F(ReaderSlotsTest, NoneHeldIsEmpty) { EXPECT_EQ(held(), std::vector<uint64_t>{}); }

// a: 1 9, b: 2 8, c: 3 7, d: 4 5 6 (one lock): each handle's next slot lies
// past every other handle's, so a scan that skips past the lock it was told
// of finds only 1 and 9.
TEST_F(ReaderSlotsTest, NestedSlotsOfSeveralHandlesAreAllListed) {
  auto r = readers(4);
  ASSERT_EQ(r.size(), 4u);
  for (const auto& [handle, slot] : std::vector<std::pair<int, uint64_t>>{
           {0, 1}, {1, 2}, {2, 3}, {3, 4}, {3, 5}, {3, 6}, {2, 7}, {1, 8}, {0, 9}}) {
    ASSERT_TRUE(r[handle]->lock_reader_slot(slot).is_ok());
  }
  EXPECT_EQ(held(), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  // Splitting d's lock, and a slot two handles share.
  ASSERT_TRUE(r[3]->unlock_reader_slot(5).is_ok());
  ASSERT_TRUE(r[0]->lock_reader_slot(8).is_ok());
  EXPECT_EQ(held(), (std::vector<uint64_t>{1, 2, 3, 4, 6, 7, 8, 9}));
  ASSERT_TRUE(r[1]->unlock_reader_slot(8).is_ok());
  EXPECT_EQ(held(), (std::vector<uint64_t>{1, 2, 3, 4, 6, 7, 8, 9}));
  ASSERT_TRUE(r[0]->unlock_reader_slot(8).is_ok());
  EXPECT_EQ(held(), (std::vector<uint64_t>{1, 2, 3, 4, 6, 7, 9}));
}

// Two hundred slots dealt round-robin to five handles, then overlapped by a
// sixth: each handle's locks sit together in the kernel's list.
TEST_F(ReaderSlotsTest, HundredsOfSlotsDealtAcrossHandles) {
  auto r = readers(6);
  ASSERT_EQ(r.size(), 6u);
  std::vector<uint64_t> expected;
  for (uint64_t slot = 100; slot < 300; ++slot) {
    ASSERT_TRUE(r[slot % 5]->lock_reader_slot(slot).is_ok());
    expected.push_back(slot);
  }
  for (uint64_t slot = 150; slot < 350; slot += 3) {
    ASSERT_TRUE(r[5]->lock_reader_slot(slot).is_ok());
    if (slot >= 300) expected.push_back(slot);
  }
  const uint64_t top = PageFile::kReaderSlotBase - 1;  // the highest slot
  ASSERT_TRUE(r[2]->lock_reader_slot(top).is_ok());
  expected.push_back(top);
  EXPECT_EQ(held(), expected);
}

// A handle's own slots are listed too: the query opens the file itself.
TEST_F(ReaderSlotsTest, TheWritersOwnSlotsAreListed) {
  ASSERT_TRUE(writer_->lock_reader_slot(3).is_ok());
  EXPECT_EQ(held(), std::vector<uint64_t>{3});
}

// One lock over every slot: the lowest kMaxListedReaderSlots are listed.
TEST_F(ReaderSlotsTest, ListingIsCapped) {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ofd_set_lock(fd, F_RDLCK, {PageFile::kReaderSlotBase, 0}), 0);
  auto r = readers(1);
  ASSERT_EQ(r.size(), 1u);
  ASSERT_TRUE(r[0]->lock_reader_slot(7).is_ok());
  const std::vector<uint64_t> slots = held();
  ASSERT_EQ(slots.size(), PageFile::kMaxListedReaderSlots);
  for (size_t i = 0; i < slots.size(); ++i) ASSERT_EQ(slots[i], i);
  ::close(fd);
}

// Slots held in this process name it; a slot of two handles names it once.
TEST_F(ReaderSlotsTest, HoldersAreTheProcessesHoldingTheLocks) {
  auto none = reader_slot_holders(path_);
  ASSERT_TRUE(none.is_ok()) << none.status().to_string();
  EXPECT_TRUE(none->empty());
  auto r = readers(2);
  ASSERT_EQ(r.size(), 2u);
  ASSERT_TRUE(r[0]->lock_reader_slot(4).is_ok());
  ASSERT_TRUE(r[1]->lock_reader_slot(4).is_ok());
  ASSERT_TRUE(r[1]->lock_reader_slot(9).is_ok());
  auto slots = reader_slot_holders(path_);
  ASSERT_TRUE(slots.is_ok()) << slots.status().to_string();
  ASSERT_EQ(slots->size(), 2u);
  EXPECT_EQ((*slots)[0].txn_id, 4u);
  EXPECT_EQ((*slots)[1].txn_id, 9u);
  for (const HeldReaderSlot& slot : *slots) {
    EXPECT_EQ(slot.pids, std::vector<int>{static_cast<int>(::getpid())}) << slot.txn_id;
  }
  EXPECT_TRUE(reader_slot_holders(dir_.file("missing")).status().is_not_found());
}

TEST_F(ReaderSlotsTest, AFileThatCannotBeOpenedIsAnError) {
  EXPECT_TRUE(PageFile::held_reader_slots(dir_.file("missing")).status().is_not_found());
  const std::string under_a_file = path_ + "/x";
  const Status s = PageFile::held_reader_slots(under_a_file).status();
  EXPECT_TRUE(s.is_io_error()) << s.to_string();
  EXPECT_EQ(s.errno_value(), ENOTDIR);
  EXPECT_NE(s.to_string().find("open " + under_a_file), std::string::npos) << s.to_string();
}

}  // namespace
}  // namespace ordo::io
