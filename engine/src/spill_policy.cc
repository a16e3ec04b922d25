#include "spill_policy.h"

#include <algorithm>

#include "ordo/assert.h"

namespace ordo::engine {

namespace {
// Dirty pages may use the budget but this reserve, which covers the txn's
// other memory (freed-page lists, spill bitmap, buffer pool slack): 1/32 of
// the budget, at most 8 MiB.
uint64_t dirty_budget_bytes(uint64_t budget_bytes) {
  return budget_bytes - std::min<uint64_t>(budget_bytes / 32, 8ull << 20);
}
}  // namespace

SpillPolicy::SpillPolicy(uint32_t page_size, uint64_t budget_bytes)
    : budget_pages_(std::max<uint64_t>(
          dirty_budget_bytes(budget_bytes) / (page_size + kPageOverheadBytes), 64)) {
  ORDO_ASSERT(btree::valid_page_size(page_size));  // the database's
}

void SpillPolicy::choose(std::vector<SpillCandidate>& leaves, uint64_t dirty_pages) const {
  const uint64_t target = budget_pages_ / 2;
  const uint64_t excess = dirty_pages > target ? dirty_pages - target : 0;
  const size_t n = std::min<size_t>(leaves.size(), excess);
  if (n == 0) {
    leaves.clear();
    return;
  }
  std::nth_element(leaves.begin(), leaves.begin() + (n - 1), leaves.end());
  leaves.resize(n);
  ORDO_ASSERT(leaves.size() <= dirty_pages);  // Only dirty pages are spilled.
}

}  // namespace ordo::engine
