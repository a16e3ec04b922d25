// SpillPolicy: when a write txn's dirty pages outgrow its memory budget, and
// which of them are written early ("spilled") to free their memory.
#pragma once

#include <compare>
#include <cstdint>
#include <vector>

#include "ordo/btree/page_format.h"

namespace ordo::engine {

// A dirty leaf that may be spilled: its last access (a txn-wide counter, higher
// is more recent) and its page number.
struct SpillCandidate {
  uint64_t touched;
  btree::PageNo page;
  auto operator<=>(const SpillCandidate&) const = default;
};

class SpillPolicy {
 public:
  // `page_size`: bytes per page. `budget_bytes`: the txn's memory budget
  // (Options::txn_memory_budget_bytes).
  SpillPolicy(uint32_t page_size, uint64_t budget_bytes);

  // Dirty pages held in memory before spilling; at least 64.
  uint64_t budget_pages() const { return budget_pages_; }
  bool over_budget(uint64_t dirty_pages) const { return dirty_pages > budget_pages_; }

  // Keeps in `leaves` only those to spill: the least recently touched, as
  // many as bring `dirty_pages` down to half the budget. Branches are never
  // candidates: they are few and every operation passes through them.
  void choose(std::vector<SpillCandidate>& leaves, uint64_t dirty_pages) const;

  // Memory a dirty page costs beyond its bytes (map entry, allocator header).
  static constexpr uint64_t kPageOverheadBytes = 128;

 private:
  uint64_t budget_pages_;
};

}  // namespace ordo::engine
