// rank(), count_range() and key_at(): one descent each, over the entry counts
// that branch cells carry (page_format.h).
#include <string>

#include "ordo/assert.h"
#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"
#include "tree_internal.h"

namespace ordo::btree {
namespace {

Status counts_disagree(PageNo page_number) {
  return Status::corruption("entry counts disagree with the page's parent", page_number);
}

}  // namespace

Result<uint64_t> rank(PageReader& pages, const TreeRoot& tree, ByteView key) {
  if (tree.root == kNullPage) return uint64_t{0};
  if (tree.depth == 0 || tree.depth > kMaxDepth) {
    return Status::corruption("tree depth " + std::to_string(tree.depth) + " out of range",
                              tree.root);
  }
  internal::DescentLoader loader(pages);
  PageNo pg = tree.root;
  uint64_t expected = tree.root_checksum;
  uint64_t before = 0;  // entries of the subtrees left of the path
  for (uint32_t level = 0; level + 1 < tree.depth; ++level) {
    ORDO_ASSIGN_OR_RETURN(NodeView v, loader.load(pg, false, expected));
    const uint32_t idx = v.branch_child_index(key);
    ORDO_ASSERT(idx < v.count());  // check_header: a branch has an entry
    for (uint32_t j = 0; j < idx; ++j) before += v.child_entries(j);
    const PageNo child = v.child(idx);
    expected = v.child_checksum(idx);
    if (v.damaged()) return internal::damaged(pg);
    pg = child;
  }
  ORDO_ASSIGN_OR_RETURN(NodeView leaf, loader.load(pg, true, expected));
  bool found = false;
  const uint32_t pos = leaf.leaf_lower_bound(key, &found);
  if (leaf.damaged()) return internal::damaged(pg);
  before += pos;
  if (before > tree.entries) return counts_disagree(pg);
  return before;
}

Result<uint64_t> count_range(PageReader& pages, const TreeRoot& tree, ByteView from,
                             const ByteView* end) {
  if (end != nullptr && end->compare(from) <= 0) return uint64_t{0};
  ORDO_ASSIGN_OR_RETURN(const uint64_t low, rank(pages, tree, from));
  uint64_t high = tree.entries;
  if (end != nullptr) {
    ORDO_ASSIGN_OR_RETURN(high, rank(pages, tree, *end));
  }
  // Two descents of one tree with from < end: ranks never decrease.
  if (high < low) return counts_disagree(tree.root);
  return high - low;
}

Result<ByteView> key_at(PageReader& pages, const TreeRoot& tree, uint64_t i) {
  if (i >= tree.entries) {
    return Status::not_found("position " + std::to_string(i) + " is past the last entry (" +
                             std::to_string(tree.entries) + " entries)");
  }
  ORDO_ASSERT(tree.root != kNullPage);  // a tree with entries has a root
  if (tree.depth == 0 || tree.depth > kMaxDepth) {
    return Status::corruption("tree depth " + std::to_string(tree.depth) + " out of range",
                              tree.root);
  }
  internal::DescentLoader loader(pages);
  PageNo pg = tree.root;
  uint64_t expected = tree.root_checksum;
  uint64_t left = i;  // position inside the current subtree
  for (uint32_t level = 0; level + 1 < tree.depth; ++level) {
    ORDO_ASSIGN_OR_RETURN(NodeView v, loader.load(pg, false, expected));
    const uint32_t n = v.count();
    uint32_t idx = 0;
    while (idx < n && left >= v.child_entries(idx)) left -= v.child_entries(idx++);
    if (v.damaged()) return internal::damaged(pg);
    if (idx == n) return counts_disagree(pg);
    const PageNo child = v.child(idx);
    expected = v.child_checksum(idx);
    pg = child;
  }
  ORDO_ASSIGN_OR_RETURN(NodeView leaf, loader.load(pg, true, expected));
  if (left >= leaf.count()) return counts_disagree(pg);
  const ByteView key = leaf.key(static_cast<uint32_t>(left));
  if (leaf.damaged()) return internal::damaged(pg);
  return key;
}

}  // namespace ordo::btree
