// WritePlan: sorting, coalescing, IOV_MAX splitting, validation, and advance_run.
#include "write_plan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace ordo::io {
namespace {

TEST(WritePlanTest, SortsAndCoalescesAdjacentSpans) {
  char a[10], b[20], c[5], d[7];
  // Out of order: c and a are adjacent to b's neighbours; d stands alone.
  const std::vector<WriteSpan> spans = {{30, c, 5}, {100, d, 7}, {0, a, 10}, {10, b, 20}};
  WritePlan plan;
  ASSERT_TRUE(plan.build(spans).is_ok());
  ASSERT_EQ(plan.runs().size(), 2u);
  EXPECT_EQ(plan.runs()[0].offset_bytes, 0u);
  EXPECT_EQ(plan.runs()[0].iov_count, 3u);
  EXPECT_EQ(plan.runs()[0].size_bytes, 35u);
  EXPECT_EQ(plan.runs()[1].offset_bytes, 100u);
  EXPECT_EQ(plan.runs()[1].iov_count, 1u);
  ASSERT_EQ(plan.iovecs().size(), 4u);
  EXPECT_EQ(plan.iovecs()[0].iov_base, a);
  EXPECT_EQ(plan.iovecs()[1].iov_base, b);
  EXPECT_EQ(plan.iovecs()[2].iov_base, c);
  EXPECT_EQ(plan.iovecs()[3].iov_base, d);
}

TEST(WritePlanTest, SplitsRunsAtMaxIovecs) {
  std::vector<char> bytes(2500);
  std::vector<WriteSpan> spans;
  for (size_t i = 0; i < bytes.size(); ++i) spans.push_back({1000 + i, &bytes[i], 1});
  WritePlan plan;
  ASSERT_TRUE(plan.build(spans).is_ok());
  ASSERT_EQ(plan.runs().size(), 3u);
  EXPECT_EQ(plan.runs()[0].iov_count, kMaxIovecsPerWrite);
  EXPECT_EQ(plan.runs()[1].offset_bytes, 1000 + kMaxIovecsPerWrite);
  EXPECT_EQ(plan.runs()[1].first_iov, kMaxIovecsPerWrite);
  EXPECT_EQ(plan.runs()[2].iov_count, 2500 - 2 * kMaxIovecsPerWrite);
  EXPECT_EQ(plan.runs()[2].size_bytes, 2500 - 2 * kMaxIovecsPerWrite);
}

TEST(WritePlanTest, SkipsEmptySpans) {
  char a[4];
  const std::vector<WriteSpan> spans = {{0, nullptr, 0}, {8, a, 4}, {8, a, 0}};
  WritePlan plan;
  ASSERT_TRUE(plan.build(spans).is_ok());
  ASSERT_EQ(plan.runs().size(), 1u);
  EXPECT_EQ(plan.runs()[0].offset_bytes, 8u);
}

TEST(WritePlanTest, RejectsOverlapNullDataAndOffsetOverflow) {
  char a[16];
  WritePlan plan;
  const std::vector<WriteSpan> overlap = {{0, a, 16}, {15, a, 1}};
  EXPECT_TRUE(plan.build(overlap).is_invalid_argument());
  EXPECT_TRUE(plan.runs().empty());
  const std::vector<WriteSpan> same_offset = {{4, a, 1}, {4, a, 1}};
  EXPECT_TRUE(plan.build(same_offset).is_invalid_argument());
  const std::vector<WriteSpan> null_data = {{0, nullptr, 1}};
  EXPECT_TRUE(plan.build(null_data).is_invalid_argument());
  const uint64_t max_offset = std::numeric_limits<int64_t>::max();
  const std::vector<WriteSpan> past_end = {{max_offset - 4, a, 5}};
  EXPECT_TRUE(plan.build(past_end).is_invalid_argument());
  const std::vector<WriteSpan> at_end = {{max_offset - 4, a, 4}};
  EXPECT_TRUE(plan.build(at_end).is_ok());
}

TEST(WritePlanTest, AdvanceRunDropsAndTrimsIovecs) {
  char a[10], b[20], c[5];
  const std::vector<WriteSpan> spans = {{0, a, 10}, {10, b, 20}, {30, c, 5}};
  WritePlan plan;
  ASSERT_TRUE(plan.build(spans).is_ok());
  WriteRun& run = plan.runs()[0];
  advance_run(run, plan.iovecs(), 4);  // inside a
  EXPECT_EQ(run.offset_bytes, 4u);
  EXPECT_EQ(run.size_bytes, 31u);
  EXPECT_EQ(run.iov_count, 3u);
  EXPECT_EQ(plan.iovecs()[run.first_iov].iov_base, a + 4);
  EXPECT_EQ(plan.iovecs()[run.first_iov].iov_len, 6u);
  advance_run(run, plan.iovecs(), 6);  // exactly the rest of a
  EXPECT_EQ(run.first_iov, 1u);
  EXPECT_EQ(run.iov_count, 2u);
  EXPECT_EQ(plan.iovecs()[run.first_iov].iov_base, b);
  advance_run(run, plan.iovecs(), 22);  // all of b and 2 bytes of c
  EXPECT_EQ(run.first_iov, 2u);
  EXPECT_EQ(run.iov_count, 1u);
  EXPECT_EQ(run.offset_bytes, 32u);
  EXPECT_EQ(plan.iovecs()[2].iov_base, c + 2);
  EXPECT_EQ(plan.iovecs()[2].iov_len, 3u);
  advance_run(run, plan.iovecs(), 3);
  EXPECT_EQ(run.size_bytes, 0u);
  EXPECT_EQ(run.iov_count, 0u);
}

}  // namespace
}  // namespace ordo::io
