// Helpers shared by the tree algorithms.
#pragma once

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

// Reads a page expected at a given level and checks its header.
inline Result<NodeView> load_node(PageReader& pages, PageNo page_number, bool expect_leaf) {
  ORDO_ASSIGN_OR_RETURN(const std::byte* p, pages.read(page_number));
  NodeView v(p, pages.page_size());
  ORDO_RETURN_IF_ERROR(check_header(v, page_number, expect_leaf));
  return v;
}

inline Status damaged(PageNo page_number) {
  return Status::corruption("cell out of bounds", page_number);
}

}  // namespace ordo::btree::internal
