// Helpers shared by the tree algorithms.
#pragma once

#include <string>

#include "ordo/assert.h"

#include "ordo/btree/node.h"
#include "ordo/btree/overflow_ref.h"
#include "ordo/btree/page_access.h"
#include "ordo/btree/tree.h"

namespace ordo::btree::internal {

// The cheap per-visit check: page type matches the level and the header's
// counts lie inside the page. Cell-level bounds are checked on each access.
inline Status check_header(const NodeView& v, PageNo page_number, bool expect_leaf) {
  if (expect_leaf ? !v.is_leaf() : !v.is_branch()) {
    return Status::corruption(expect_leaf ? "expected a leaf page" : "expected a branch page",
                              page_number);
  }
  if (kHeaderSize + kSlotSize * v.count() > v.cell_start() || v.cell_start() > v.page_size() ||
      (!expect_leaf && v.count() == 0)) {
    return Status::corruption("page header out of bounds", page_number);
  }
  return Status::ok();
}

// Reads a page expected at a given level and checks its header, and with
// verification on, its checksum against `expected_checksum` (from the parent
// entry or the tree root record).
inline Result<NodeView> load_node(PageReader& pages, PageNo page_number, bool expect_leaf,
                                  uint64_t expected_checksum) {
  ORDO_ASSIGN_OR_RETURN(const std::byte* p, pages.read(page_number));
  if (pages.verify_checksums() && !pages.is_dirty(page_number)) {
    uint64_t actual = page_checksum(p, pages.page_size());
    if (actual != expected_checksum) {
      return Status::corruption("checksum mismatch: parent records " +
                                    std::to_string(expected_checksum) + ", page has " +
                                    std::to_string(actual),
                                page_number);
    }
  }
  NodeView v(p, pages.page_size());
  ORDO_RETURN_IF_ERROR(check_header(v, page_number, expect_leaf));
  return v;
}

inline Status damaged(PageNo page_number) {
  ORDO_DCHECK(page_number != kNullPage);
  return Status::corruption("cell out of bounds", page_number);
}

// The value of leaf entry i, following an overflow reference to its run.
inline Result<ByteView> leaf_value(PageReader& pages, const NodeView& leaf, uint32_t i,
                                   PageNo leaf_page) {
  ByteView inline_bytes = leaf.value(i);
  if (leaf.damaged()) return damaged(leaf_page);
  if (!leaf.is_overflow(i)) return inline_bytes;
  ORDO_ASSIGN_OR_RETURN(const OverflowRun run, leaf_overflow_run(leaf, i, leaf_page));
  const bool verify = pages.verify_checksums() && !pages.is_dirty(leaf_page);
  ORDO_ASSIGN_OR_RETURN(const std::byte* bytes, read_overflow_run(pages, run, leaf_page, verify));
  return ByteView(bytes + kHeaderSize, run.value_len);
}

}  // namespace ordo::btree::internal
