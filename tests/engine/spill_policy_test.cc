// SpillPolicy: the budget in pages, and the least recently touched leaves
// chosen down to half of it.
#include "spill_policy.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ordo::engine {
namespace {

TEST(SpillPolicyTest, BudgetKeepsAReserveAndCountsPageOverhead) {
  // 1 MiB less 1/32 reserve, over 4096 + 128 bytes a page.
  EXPECT_EQ(SpillPolicy(4096, 1u << 20).budget_pages(), ((1u << 20) - (1u << 15)) / 4224);
  // The reserve is at most 8 MiB.
  const uint64_t big = 1ull << 30;
  EXPECT_EQ(SpillPolicy(4096, big).budget_pages(), (big - (8ull << 20)) / 4224);
  // Never below 64 pages.
  EXPECT_EQ(SpillPolicy(65536, 1u << 20).budget_pages(), 64u);
}

TEST(SpillPolicyTest, OverBudgetOnlyPastIt) {
  const SpillPolicy p(4096, 1u << 20);
  EXPECT_FALSE(p.over_budget(p.budget_pages()));
  EXPECT_TRUE(p.over_budget(p.budget_pages() + 1));
}

TEST(SpillPolicyTest, ChoosesLeastRecentlyTouchedDownToHalfTheBudget) {
  const SpillPolicy p(4096, 1u << 20);
  const uint64_t budget = p.budget_pages();
  const uint64_t dirty = budget + 1;
  std::vector<SpillCandidate> leaves;
  // Leaves touched in reverse page order: page 1000 + i touched at dirty - i.
  for (uint64_t i = 0; i < dirty; ++i) leaves.push_back({dirty - i, 1000 + i});
  p.choose(leaves, dirty);
  const uint64_t want = dirty - budget / 2;
  ASSERT_EQ(leaves.size(), want);
  std::sort(leaves.begin(), leaves.end());
  for (uint64_t i = 0; i < want; ++i) {
    EXPECT_EQ(leaves[i].touched, i + 1);
    EXPECT_EQ(leaves[i].page, 1000 + dirty - 1 - i);
  }
}

TEST(SpillPolicyTest, FewLeavesAreAllSpilledAndNoneBelowHalf) {
  const SpillPolicy p(4096, 1u << 20);
  const uint64_t budget = p.budget_pages();
  // Mostly branches: only the three leaves can go.
  std::vector<SpillCandidate> leaves = {{5, 1}, {3, 2}, {9, 3}};
  p.choose(leaves, budget + 1);
  EXPECT_EQ(leaves.size(), 3u);
  // At or below half the budget nothing is chosen.
  leaves = {{5, 1}, {3, 2}};
  p.choose(leaves, budget / 2);
  EXPECT_TRUE(leaves.empty());
}

}  // namespace
}  // namespace ordo::engine
