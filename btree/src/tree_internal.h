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

// Checks the bytes `p` of page `page_number`, read at a level that expects a
// leaf or a branch: with `verify`, its checksum against `expected_checksum`
// (from the parent entry or the tree root record); then its header.
inline Result<NodeView> check_loaded(const std::byte* p, uint32_t page_size, bool verify,
                                     PageNo page_number, bool expect_leaf,
                                     uint64_t expected_checksum) {
  ORDO_ASSERT(p != nullptr);  // PageReader::read succeeded.
  if (verify) {
    const uint64_t actual = page_checksum(p, page_size);
    if (actual != expected_checksum) {
      return Status::corruption("checksum mismatch: parent records " +
                                    std::to_string(expected_checksum) + ", page has " +
                                    std::to_string(actual),
                                page_number);
    }
  }
  NodeView v(p, page_size);
  ORDO_RETURN_IF_ERROR(check_header(v, page_number, expect_leaf));
  return v;
}

// Reads a page expected at a given level and checks it (check_loaded); a page
// the txn already made dirty has no checksum in its parent yet.
inline Result<NodeView> load_node(PageReader& pages, PageNo page_number, bool expect_leaf,
                                  uint64_t expected_checksum) {
  ORDO_ASSIGN_OR_RETURN(const std::byte* p, pages.read(page_number));
  const bool verify = pages.verify_checksums() && !pages.is_dirty(page_number);
  return check_loaded(p, pages.page_size(), verify, page_number, expect_leaf, expected_checksum);
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
        verify_(pages.verify_checksums()) {
    ORDO_ASSERT(map_.first <= map_.end && (map_.first == map_.end || map_.base != nullptr));
  }

  // The bytes of a page inside the mapping, or nullptr (unchecked).
  const std::byte* mapped(PageNo page_number) const {
    if (page_number < map_.first || page_number >= map_.end) return nullptr;
    return map_.base + page_number * page_size_;
  }

  Result<NodeView> load(PageNo page_number, bool expect_leaf, uint64_t expected_checksum) {
    const std::byte* p = mapped(page_number);
    if (p == nullptr) return load_node(pages_, page_number, expect_leaf, expected_checksum);
    return check_loaded(p, page_size_, verify_, page_number, expect_leaf, expected_checksum);
  }

 private:
  PageReader& pages_;
  const PageReader::Mapping map_;
  const uint32_t page_size_;
  const bool verify_;
};

// The read-only descent of a lookup: from the root of the non-empty `tree`
// to the leaf whose range holds `key`, each page checked as load_node does.
// Returns the leaf and sets *leaf_page; with `indexes`, indexes[level] is the
// child index taken in the branch at each level (tree.depth - 1 of them).
// Corruption for a depth out of range or a damaged page.
Result<NodeView> descend_to_leaf(PageReader& pages, const TreeRoot& tree, ByteView key,
                                 PageNo* leaf_page, uint32_t* indexes = nullptr);

inline Status damaged(PageNo page_number) {
  ORDO_DCHECK(page_number != kNullPage);
  return Status::corruption("cell out of bounds", page_number);
}

// The value of leaf entry i, following an overflow reference to its run.
inline Result<ByteView> leaf_value(PageReader& pages, const NodeView& leaf, uint32_t i,
                                   PageNo leaf_page) {
  // `i` is a search's answer or a cursor's position: an entry of the leaf.
  ORDO_ASSERT(leaf.is_leaf() && i < leaf.count());
  ByteView inline_bytes = leaf.value(i);
  if (leaf.damaged()) return damaged(leaf_page);
  if (!leaf.is_overflow(i)) return inline_bytes;
  ORDO_ASSIGN_OR_RETURN(const OverflowRun run, leaf_overflow_run(leaf, i, leaf_page));
  const bool verify = pages.verify_checksums() && !pages.is_dirty(leaf_page);
  ORDO_ASSIGN_OR_RETURN(const std::byte* bytes, read_overflow_run(pages, run, leaf_page, verify));
  return ByteView(bytes + kHeaderSize, run.value_len);
}

}  // namespace ordo::btree::internal
