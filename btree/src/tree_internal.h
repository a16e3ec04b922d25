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

inline Status checksum_mismatch(PageNo page_number, uint64_t expected, uint64_t actual) {
  return Status::corruption("checksum mismatch: parent records " + std::to_string(expected) +
                                ", page has " + std::to_string(actual),
                            page_number);
}

// Reads a page expected at a given level and checks its header, and with
// verification on, its checksum against `expected_checksum` (from the parent
// entry or the tree root record).
inline Result<NodeView> load_node(PageReader& pages, PageNo page_number, bool expect_leaf,
                                  uint64_t expected_checksum) {
  ORDO_ASSIGN_OR_RETURN(const std::byte* p, pages.read(page_number));
  if (pages.verify_checksums() && !pages.is_dirty(page_number)) {
    const uint64_t actual = page_checksum(p, pages.page_size());
    if (actual != expected_checksum) {
      return checksum_mismatch(page_number, expected_checksum, actual);
    }
  }
  NodeView v(p, pages.page_size());
  ORDO_RETURN_IF_ERROR(check_header(v, page_number, expect_leaf));
  return v;
}

// load_node for the levels of one descent: the reader's mapping, page size
// and verify setting are fetched once, and pages inside the mapping are read
// without a call to the reader.
class DescentLoader {
 public:
  explicit DescentLoader(PageReader& pages)
      : pages_(pages),
        map_(pages.mapping()),
        page_size_(pages.page_size()),
        verify_(pages.verify_checksums()) {}

  // The bytes of a page inside the mapping, or nullptr: for prefetching only
  // (unchecked).
  const std::byte* mapped(PageNo page_number) const {
    if (page_number < map_.first || page_number >= map_.end) return nullptr;
    return map_.base + page_number * page_size_;
  }

  Result<NodeView> load(PageNo page_number, bool expect_leaf, uint64_t expected_checksum) {
    if (page_number < map_.first || page_number >= map_.end) {
      return load_node(pages_, page_number, expect_leaf, expected_checksum);
    }
    const std::byte* p = map_.base + page_number * page_size_;
    if (verify_) {
      const uint64_t actual = page_checksum(p, page_size_);
      if (actual != expected_checksum) {
        return checksum_mismatch(page_number, expected_checksum, actual);
      }
    }
    NodeView v(p, page_size_);
    ORDO_RETURN_IF_ERROR(check_header(v, page_number, expect_leaf));
    return v;
  }

 private:
  PageReader& pages_;
  const PageReader::Mapping map_;
  const uint32_t page_size_;
  const bool verify_;
};

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
