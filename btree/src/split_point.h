// Where a full page splits when it takes one more cell (split_insert()).
//
//  - Append split: a cell past the last entry starts a new page; the old page
//    stays full (sequential keys).
//  - Prefix split, in the last leaf of the tree only (the descent took the
//    last child at every level): the right page takes the new key with the
//    part of its prefix group already there, and the left page keeps every
//    complete group. Keys that ascend by prefix (a time-ordered ID, then
//    anything in any order) land only in the newest group, so the left page
//    is never written again and stays full. The group is found from the keys
//    alone: the largest boundary at or before the new key across which
//    neighbours share less prefix than the cells right of it all share.
//    An append that continues the last group takes it along only when keys
//    at the right edge recently arrived out of order (sorted loads of such
//    keys keep full pages), the group is under an eighth of a page, and it is
//    set off by a break of two bytes or more.
//  - Middle split: otherwise, or when the prefix split would leave the left
//    page under half full: halves of equal bytes. Away from the right edge a
//    key after the last of its prefix group says nothing: random keys land
//    there about half the time, and uneven splits would lower their fill.
//
// A leaf split's separator (split_insert) is the right page's first key cut
// one byte past where it leaves the left page's last key, so that later keys of
// the right page's group sort at or above it.
#pragma once

#include <cstdint>
#include <span>

#include "ordo/byte_view.h"

namespace ordo::btree::internal {

// One cell of the page being split, in key order.
struct SplitCell {
  ByteView key;    // empty for a branch's entry 0
  uint32_t bytes;  // cell plus slot
};

struct SplitInput {
  std::span<const SplitCell> cells;  // the page's cells with the new one at `pos`
  uint32_t pos = 0;                  // index of the new cell
  bool leaf = true;
  bool rightmost = false;  // the page is the last at its level
  // Keys at the right edge recently went below the last key of the last leaf
  // (put()'s RightmostPath saw one): an append may then take its group along.
  bool out_of_order = false;
  uint32_t usable = 0;  // bytes of a page for slots and cells
};

// The number of cells the left page keeps, in 1..cells.size()-1; both halves fit
// `usable`. REQUIRES: at least two cells, any two of which fit one page.
uint32_t split_point(const SplitInput& in);

// Length of the longest common prefix of two keys.
uint32_t common_prefix(ByteView a, ByteView b);

}  // namespace ordo::btree::internal
