#include "split_point.h"

#include <algorithm>
#include <cstdint>

#include "ordo/assert.h"

namespace ordo::btree::internal {

uint32_t common_prefix(ByteView a, ByteView b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  ORDO_ASSERT(i <= UINT16_MAX);  // Keys are at most max_key_bytes long.
  return static_cast<uint32_t>(i);
}

namespace {

// Common prefix of cells i - 1 and i.
uint32_t cut_at(const SplitInput& in, uint32_t i) {
  ORDO_ASSERT(i >= 1 && i < in.cells.size());
  return common_prefix(in.cells[i - 1].key, in.cells[i].key);
}

// The prefix split: the largest k <= pos, k below the last index (the right
// part holds an old cell too), at which the keys on either side share at least
// `min_drop` bytes less prefix than all of cells[k..] share: the right part is
// one prefix group, the new key in it. 0 when there is none, or when the left
// page would be under half full or the right part over `max_right` bytes.
uint32_t prefix_point(const SplitInput& in, uint64_t total, uint64_t max_right, uint32_t min_drop) {
  const uint32_t last = static_cast<uint32_t>(in.cells.size()) - 1;
  ORDO_ASSERT(last >= 1);  // The loop below counts down to 1.
  uint64_t right = in.cells[last].bytes;
  // Common prefix of cells[k..]: of sorted keys, the least one of neighbours.
  uint32_t shared = UINT32_MAX;
  for (uint32_t k = last - 1; k >= 1; --k) {
    shared = std::min(shared, cut_at(in, k + 1));
    right += in.cells[k].bytes;
    const uint64_t left = total - right;
    if (right > max_right || 2 * left < in.usable || shared < min_drop) return 0;
    if (k <= in.pos && left <= in.usable && cut_at(in, k) + min_drop <= shared) return k;
  }
  return 0;
}

// Halves of (nearly) equal bytes.
uint32_t middle_point(const SplitInput& in, uint64_t total) {
  const auto& cells = in.cells;
  uint32_t k = static_cast<uint32_t>(cells.size()) - 1;
  uint64_t left = 0, best_gap = UINT64_MAX;
  for (uint32_t i = 1; i < cells.size(); ++i) {
    left += cells[i - 1].bytes;
    const uint64_t right = total - left;
    if (left > in.usable) break;
    if (right > in.usable) continue;
    const uint64_t gap = left > right ? left - right : right - left;
    if (gap < best_gap) {
      best_gap = gap;
      k = i;
    }
  }
  // Both parts hold a cell.
  ORDO_ASSERT(k >= 1 && k < cells.size());
  return k;
}

}  // namespace

uint32_t split_point(const SplitInput& in) {
  ORDO_DCHECK(in.cells.size() >= 2 && in.pos < in.cells.size());
  const uint32_t last = static_cast<uint32_t>(in.cells.size()) - 1;
  const bool append = in.pos == last;
  uint64_t total = 0;
  for (const SplitCell& c : in.cells) total += c.bytes;
  // Branches need no prefix rule: a split of the last leaf adds its separator
  // past the last entry of each branch above it, an append split there.
  if (in.leaf && in.rightmost) {
    // An append is an append split unless keys at the right edge arrive out
    // of order and it continues the last group (it shares as much prefix with
    // the last key as that key with the one before); then it takes a small
    // group along, across a break of two bytes or more: counters (sequential
    // keys) break by one byte at a carry, and there the old page stays full.
    const bool keep_group =
        append && in.out_of_order && last >= 2 && cut_at(in, last) >= cut_at(in, last - 1);
    if (!append || keep_group) {
      const uint32_t k = append ? prefix_point(in, total, in.usable / 8, 2)
                                : prefix_point(in, total, in.usable, 1);
      if (k != 0) {
        ORDO_ASSERT(k < last && k <= in.pos);
        return k;
      }
    }
  }
  // Appending past the last entry: keep the old page full, start a new one.
  if (append) return last;
  return middle_point(in, total);
}

}  // namespace ordo::btree::internal
