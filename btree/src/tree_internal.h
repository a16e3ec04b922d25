// Helpers shared by the tree algorithms.
#pragma once

#include <xxhash.h>

#include <string>

#include "ordo/btree/node.h"
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
  return Status::corruption("cell out of bounds", page_number);
}

// The value of leaf entry i, following an overflow reference to its run.
inline Result<ByteView> leaf_value(PageReader& pages, const NodeView& leaf, uint32_t i,
                                   PageNo leaf_page) {
  ByteView inline_bytes = leaf.value(i);
  if (leaf.damaged()) return damaged(leaf_page);
  if (!leaf.is_overflow(i)) return inline_bytes;
  const uint64_t len = leaf.value_len(i);
  const PageNo first = load_u64(inline_bytes.data());
  if (len > kMaxValueBytes) return Status::corruption("overflow value too long", leaf_page);
  const uint64_t run_pages = overflow_pages(len, pages.page_size());
  ORDO_ASSIGN_OR_RETURN(const std::byte* run, pages.read_run(first, run_pages));
  if (static_cast<PageType>(run[kOffType]) != PageType::kOverflow) {
    return Status::corruption("overflow run does not start with an overflow page", first);
  }
  if (pages.verify_checksums() && !pages.is_dirty(leaf_page)) {
    const uint64_t expected = load_u64(inline_bytes.data() + 8);
    if (XXH3_64bits(run, run_pages * pages.page_size()) != expected) {
      return Status::corruption("overflow run checksum mismatch", first);
    }
  }
  return ByteView(run + kHeaderSize, len);
}

// First page and page count of the overflow run of leaf entry i.
inline void overflow_run(const NodeView& leaf, uint32_t i, PageNo* first, uint64_t* pages) {
  *first = load_u64(leaf.value(i).data());
  *pages = overflow_pages(leaf.value_len(i), leaf.page_size());
}

}  // namespace ordo::btree::internal
