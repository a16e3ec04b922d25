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

Status check_depth(const TreeRoot& tree) {
  if (tree.depth == 0 || tree.depth > kMaxDepth) {
    return Status::corruption("tree depth " + std::to_string(tree.depth) + " out of range",
                              tree.root);
  }
  return Status::ok();
}

// Entries >= `key` (`at_or_after`) or < `key` in the subtree under `pg`,
// `levels` branch levels above its leaves: one descent, summing the counts
// of the cells right (or left) of the path.
Result<uint64_t> count_side(internal::DescentLoader& loader, PageNo pg, uint64_t expected,
                            uint32_t levels, ByteView key, bool at_or_after) {
  ORDO_ASSERT(levels < kMaxDepth);
  uint64_t sum = 0;
  for (; levels > 0; --levels) {
    ORDO_ASSIGN_OR_RETURN(NodeView v, loader.load(pg, false, expected));
    const uint32_t idx = v.branch_child_index(key);
    ORDO_ASSERT(idx < v.count());  // check_header: a branch has an entry
    if (at_or_after) {
      for (uint32_t j = idx + 1; j < v.count(); ++j) sum += v.child_entries(j);
    } else {
      for (uint32_t j = 0; j < idx; ++j) sum += v.child_entries(j);
    }
    const PageNo child = v.child(idx);
    expected = v.child_checksum(idx);
    if (v.damaged()) return internal::damaged(pg);
    pg = child;
  }
  ORDO_ASSIGN_OR_RETURN(NodeView leaf, loader.load(pg, true, expected));
  bool found = false;
  const uint32_t pos = leaf.leaf_lower_bound(key, &found);
  if (leaf.damaged()) return internal::damaged(pg);
  return sum + (at_or_after ? leaf.count() - pos : pos);
}

}  // namespace

Result<uint64_t> rank(PageReader& pages, const TreeRoot& tree, ByteView key) {
  if (tree.root == kNullPage) return uint64_t{0};
  ORDO_RETURN_IF_ERROR(check_depth(tree));
  internal::DescentLoader loader(pages);
  ORDO_ASSIGN_OR_RETURN(const uint64_t before, count_side(loader, tree.root, tree.root_checksum,
                                                          tree.depth - 1, key, false));
  if (before > tree.entries) return counts_disagree(tree.root);
  return before;
}

Result<uint64_t> count_range(PageReader& pages, const TreeRoot& tree, ByteView from,
                             const ByteView* end) {
  if (end != nullptr && end->compare(from) <= 0) return uint64_t{0};
  if (end == nullptr) {
    ORDO_ASSIGN_OR_RETURN(const uint64_t low, rank(pages, tree, from));
    return tree.entries - low;  // rank() checked low <= entries
  }
  if (tree.root == kNullPage) return uint64_t{0};
  ORDO_RETURN_IF_ERROR(check_depth(tree));
  // Down the path the two bounds share; where they part, the cells between
  // them count whole, and one descent on each side counts the rest.
  internal::DescentLoader loader(pages);
  PageNo pg = tree.root;
  uint64_t expected = tree.root_checksum;
  for (uint32_t level = 0; level + 1 < tree.depth; ++level) {
    ORDO_ASSIGN_OR_RETURN(NodeView v, loader.load(pg, false, expected));
    const uint32_t lo = v.branch_child_index(from);
    const uint32_t hi = v.branch_child_index(*end);
    ORDO_ASSERT(hi < v.count());  // check_header: a branch has an entry
    // from < end: the child holding end is left of the one holding from only
    // in a page whose keys are out of order.
    if (lo > hi) return Status::corruption("branch keys out of order", pg);
    if (lo == hi) {
      const PageNo child = v.child(lo);
      expected = v.child_checksum(lo);
      if (v.damaged()) return internal::damaged(pg);
      pg = child;
      continue;
    }
    uint64_t between = 0;
    for (uint32_t j = lo + 1; j < hi; ++j) between += v.child_entries(j);
    const PageNo lo_child = v.child(lo), hi_child = v.child(hi);
    const uint64_t lo_sum = v.child_checksum(lo), hi_sum = v.child_checksum(hi);
    if (v.damaged()) return internal::damaged(pg);
    const uint32_t below = tree.depth - 2 - level;
    ORDO_ASSIGN_OR_RETURN(const uint64_t left,
                          count_side(loader, lo_child, lo_sum, below, from, true));
    ORDO_ASSIGN_OR_RETURN(const uint64_t right,
                          count_side(loader, hi_child, hi_sum, below, *end, false));
    const uint64_t total = between + left + right;
    if (total > tree.entries) return counts_disagree(pg);
    return total;
  }
  // Both bounds in one leaf.
  ORDO_ASSIGN_OR_RETURN(NodeView leaf, loader.load(pg, true, expected));
  bool found = false;
  const uint32_t lo = leaf.leaf_lower_bound(from, &found);
  const uint32_t hi = leaf.leaf_lower_bound(*end, &found);
  if (leaf.damaged()) return internal::damaged(pg);
  if (lo > hi) return Status::corruption("leaf keys out of order", pg);  // from < end
  return uint64_t{hi - lo};
}

Result<ByteView> key_at(PageReader& pages, const TreeRoot& tree, uint64_t i) {
  if (i >= tree.entries) {
    return Status::not_found("position " + std::to_string(i) + " is past the last entry (" +
                             std::to_string(tree.entries) + " entries)");
  }
  // Read from the file: a damaged catalog entry may claim entries without a root.
  if (tree.root == kNullPage) return Status::corruption("a tree with entries has no root page");
  ORDO_RETURN_IF_ERROR(check_depth(tree));
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
