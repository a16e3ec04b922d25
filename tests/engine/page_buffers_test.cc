// PageBuffers: the pool's slots are reused most recent first, buffers past the
// pool come from the allocator, and a txn that used much more than the pool
// gives the pool's memory back while smaller ones, however many, keep it.
#include "page_buffers.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

#include "page_memory.h"

namespace ordo::engine {
namespace {

constexpr uint32_t kBufferPageSize = 4096;
constexpr size_t kPoolSlots = PageBuffers::kPoolBytes / kBufferPageSize;

bool every_byte_is(const std::byte* b, std::byte v) {
  for (size_t i = 0; i < kBufferPageSize; ++i) {
    if (b[i] != v) return false;
  }
  return true;
}

TEST(PageBuffersTest, TheLastBufferGivenBackIsTheNextTaken) {
  PageBuffers buffers(kBufferPageSize);
  std::byte* a = buffers.take();
  std::byte* b = buffers.take();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  buffers.give(a);
  buffers.give(b);
  EXPECT_EQ(buffers.take(), b);
  EXPECT_EQ(buffers.take(), a);
  buffers.give(a);
  buffers.give(b);
}

TEST(PageBuffersTest, BuffersPastThePoolAreDistinctAlignedAndWhole) {
  PageBuffers buffers(kBufferPageSize);
  std::vector<std::byte*> taken;
  for (size_t i = 0; i < kPoolSlots + 64; ++i) {
    std::byte* b = buffers.take();
    ASSERT_NE(b, nullptr);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(b) % kPageAlignment, 0u);
    std::memset(b, static_cast<int>(i % 251), kBufferPageSize);
    taken.push_back(b);
  }
  EXPECT_EQ(std::set<std::byte*>(taken.begin(), taken.end()).size(), taken.size());
  // No two buffers overlap: each still holds what was written into it.
  for (size_t i = 0; i < taken.size(); ++i) {
    ASSERT_TRUE(every_byte_is(taken[i], static_cast<std::byte>(i % 251))) << "buffer " << i;
  }
  for (std::byte* b : taken) buffers.give(b);
  buffers.end_of_txn();
}

// Fills `n` buffers with 0xab and gives them back, the pool's first slot last.
std::byte* fill_and_give_back(PageBuffers& buffers, size_t n) {
  std::vector<std::byte*> taken;
  for (size_t i = 0; i < n; ++i) {
    taken.push_back(buffers.take());
    std::memset(taken.back(), 0xab, kBufferPageSize);
  }
  for (size_t i = n; i-- > 0;) buffers.give(taken[i]);
  buffers.end_of_txn();
  return taken[0];
}

TEST(PageBuffersTest, ASmallTxnKeepsThePoolResident) {
  PageBuffers buffers(kBufferPageSize);
  std::byte* first = fill_and_give_back(buffers, kPoolSlots);  // the whole pool, nothing past it
  std::byte* again = buffers.take();
  EXPECT_EQ(again, first);
  EXPECT_TRUE(every_byte_is(again, std::byte{0xab}));  // the same memory, not given back
  buffers.give(again);
}

TEST(PageBuffersTest, TxnsEachALittlePastThePoolKeepIt) {
  PageBuffers buffers(kBufferPageSize);
  // Together they pass kCollectBytes past the pool; none does alone.
  const size_t past_pool = PageBuffers::kCollectBytes / kBufferPageSize / 4;
  std::byte* first = nullptr;
  for (int txn = 0; txn < 6; ++txn) first = fill_and_give_back(buffers, kPoolSlots + past_pool);
  std::byte* again = buffers.take();
  EXPECT_EQ(again, first);
  EXPECT_TRUE(every_byte_is(again, std::byte{0xab}));
  buffers.give(again);
}

TEST(PageBuffersTest, ALargeTxnGivesThePoolBack) {
  PageBuffers buffers(kBufferPageSize);
  const size_t past_pool = PageBuffers::kCollectBytes / kBufferPageSize;
  std::byte* first = fill_and_give_back(buffers, kPoolSlots + past_pool);
  std::byte* again = buffers.take();
  EXPECT_EQ(again, first);
  // Given back to the OS: the slot reads as the zeros of fresh memory.
  EXPECT_TRUE(every_byte_is(again, std::byte{0}));
  buffers.give(again);
}

}  // namespace
}  // namespace ordo::engine
