// A depth-first walk of one tree of a snapshot, for the code that reads a
// whole tree page by page (compact copies, the inspection API). Each page is
// checked against the checksum its parent (or the root record) holds, its
// header and cells against the page bounds and its keys for order.
#pragma once

#include <cstdint>
#include <functional>

#include "ordo/btree/node.h"
#include "ordo/btree/page_access.h"
#include "ordo/btree/tree.h"
#include "ordo/status.h"

namespace ordo::engine {

struct TreeWalk {
  // Every tree page before its children: its number, its view, its level
  // (0 at the root), its parent (btree::kNoPage for the root) and the
  // checksum the parent records for it. May be empty.
  std::function<Status(btree::PageNo pg, const btree::NodeView& page, uint32_t level,
                       btree::PageNo parent, uint64_t expected_checksum)>
      page;
  // Every leaf entry in key order. May be empty.
  std::function<Status(const btree::NodeView& leaf, uint32_t i, btree::PageNo pg)> entry;
  // Whether to hash every page against its parent's checksum (Corruption on
  // a mismatch).
  bool verify = true;
};

// Walks `root`; the first non-ok status a callback returns (or Corruption
// met on the way, naming the page) ends the walk and is returned.
Status walk_tree(btree::PageReader& pages, const btree::TreeRoot& root, const TreeWalk& walk);

// The value bytes of an overflow leaf entry, its run checked against the
// run checksum the cell holds. `run` (optional) receives the run's first
// page and its bytes (header, value, padding).
struct OverflowRun {
  btree::PageNo first = 0;
  uint64_t pages = 0;
  uint64_t checksum = 0;
  const std::byte* bytes = nullptr;
};
Result<OverflowRun> read_overflow(btree::PageReader& pages, const btree::NodeView& leaf,
                                  uint32_t i, btree::PageNo leaf_pg, bool verify);

}  // namespace ordo::engine
