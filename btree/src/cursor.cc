#include "ordo/btree/cursor.h"

#include <string>

#include "ordo/btree/node.h"
#include "tree_internal.h"

namespace ordo::btree {

Status Cursor::load_level(internal::DescentLoader& loader, uint32_t level, PageNo pg,
                          uint64_t expected_checksum, Edge edge) {
  // stack_ holds kMaxDepth levels; the callers checked the depth.
  ORDO_ASSERT(level < tree_.depth && tree_.depth <= kMaxDepth);
  const bool leaf = level + 1 == tree_.depth;
  ORDO_ASSIGN_OR_RETURN(NodeView v, loader.load(pg, leaf, expected_checksum));
  if (v.count() == 0) return Status::corruption("empty page inside a tree", pg);
  stack_[level] = {v.data(), pg, edge == Edge::kFirst ? 0 : v.count() - 1, v.count()};
  if (leaf) {
    // An iteration reads most of a leaf's cells: ask for all their cache
    // lines at once rather than missing on each cell in turn, and for the
    // next leaf's page (to L2), so that crossing into it does not stall.
    for (uint32_t off = v.cell_start() & ~63u; off < page_size_; off += 64) {
      __builtin_prefetch(v.data() + off);
    }
    if (level > 0) {
      const Level& up = stack_[level - 1];
      const std::byte* next = up.index + 1 < up.count
                                  ? loader.mapped(NodeView(up.page, page_size_).child(up.index + 1))
                                  : nullptr;
      for (uint32_t off = 0; next != nullptr && off < page_size_; off += 64) {
        __builtin_prefetch(next + off, 0, 2);
      }
    }
  }
  return Status::ok();
}

Status Cursor::descend_from(internal::DescentLoader& loader, uint32_t level, Edge edge) {
  ORDO_ASSERT(level >= 1);  // Reads the entry taken at level - 1.
  for (uint32_t l = level; l < tree_.depth; ++l) {
    const Level& up = stack_[l - 1];
    NodeView v(up.page, page_size_);
    PageNo child = v.child(up.index);
    uint64_t checksum = v.child_checksum(up.index);
    if (v.damaged()) return internal::damaged(up.page_number);
    ORDO_RETURN_IF_ERROR(load_level(loader, l, child, checksum, edge));
  }
  return Status::ok();
}

Status Cursor::to_edge(Edge edge) {
  valid_ = false;
  if (tree_.root == kNullPage) return Status::ok();
  if (tree_.depth == 0 || tree_.depth > kMaxDepth) {
    return Status::corruption("tree depth out of range", tree_.root);
  }
  internal::DescentLoader loader(*pages_);
  ORDO_RETURN_IF_ERROR(load_level(loader, 0, tree_.root, tree_.root_checksum, edge));
  ORDO_RETURN_IF_ERROR(descend_from(loader, 1, edge));
  ORDO_ASSERT(stack_[tree_.depth - 1].index < stack_[tree_.depth - 1].count);
  valid_ = true;
  return Status::ok();
}

Status Cursor::first() { return to_edge(Edge::kFirst); }

Status Cursor::last() { return to_edge(Edge::kLast); }

Status Cursor::seek(ByteView key) {
  valid_ = false;
  if (tree_.root == kNullPage) return Status::ok();
  if (tree_.depth == 0 || tree_.depth > kMaxDepth) {
    return Status::corruption("tree depth out of range", tree_.root);
  }
  internal::DescentLoader loader(*pages_);
  PageNo pg = tree_.root;
  uint64_t expected = tree_.root_checksum;
  for (uint32_t l = 0; l < tree_.depth; ++l) {
    ORDO_RETURN_IF_ERROR(load_level(loader, l, pg, expected, Edge::kFirst));
    NodeView v(stack_[l].page, page_size_);
    if (l + 1 < tree_.depth) {
      stack_[l].index = v.branch_child_index(key);
      pg = v.child(stack_[l].index);
      expected = v.child_checksum(stack_[l].index);
    } else {
      bool found;
      stack_[l].index = v.leaf_lower_bound(key, &found);
    }
    if (v.damaged()) return internal::damaged(stack_[l].page_number);
    // A search's answer: a child of a branch, or a leaf position up to its end.
    ORDO_ASSERT(l + 1 < tree_.depth ? stack_[l].index < stack_[l].count
                                    : stack_[l].index <= stack_[l].count);
  }
  Level& leaf = stack_[tree_.depth - 1];
  if (leaf.index < leaf.count) {
    valid_ = true;
    return Status::ok();
  }
  // Past the end of this leaf: the answer is the first entry of the next one.
  leaf.index = leaf.count - 1;
  valid_ = true;
  return next();
}

Status Cursor::next() {
  if (!valid_) return Status::ok();
  ORDO_ASSERT(tree_.depth >= 1 && tree_.depth <= kMaxDepth);
  Level& leaf = stack_[tree_.depth - 1];
  if (++leaf.index < leaf.count) {
    // The cell a few entries on, so that it is in cache when reached
    // (a prefetch of a damaged slot's offset is harmless: it never faults).
    constexpr uint32_t kAhead = 4;
    if (leaf.index + kAhead < leaf.count) {
      __builtin_prefetch(leaf.page +
                         load_u16(leaf.page + kHeaderSize + kSlotSize * (leaf.index + kAhead)));
    }
    return Status::ok();
  }
  for (uint32_t l = tree_.depth - 1; l-- > 0;) {
    if (stack_[l].index + 1 < stack_[l].count) {
      stack_[l].index++;
      valid_ = false;
      internal::DescentLoader loader(*pages_);
      ORDO_RETURN_IF_ERROR(descend_from(loader, l + 1, Edge::kFirst));
      valid_ = true;
      return Status::ok();
    }
  }
  valid_ = false;
  return Status::ok();
}

Status Cursor::prev() {
  if (!valid_) return Status::ok();
  ORDO_ASSERT(tree_.depth >= 1 && tree_.depth <= kMaxDepth);
  Level& leaf = stack_[tree_.depth - 1];
  if (leaf.index > 0) {
    leaf.index--;
    return Status::ok();
  }
  for (uint32_t l = tree_.depth - 1; l-- > 0;) {
    if (stack_[l].index > 0) {
      stack_[l].index--;
      valid_ = false;
      internal::DescentLoader loader(*pages_);
      ORDO_RETURN_IF_ERROR(descend_from(loader, l + 1, Edge::kLast));
      valid_ = true;
      return Status::ok();
    }
  }
  valid_ = false;
  return Status::ok();
}

ByteView Cursor::key() const {
  ORDO_ASSERT(valid_);
  const Level& leaf = stack_[tree_.depth - 1];
  return NodeView(leaf.page, page_size_).key(leaf.index);
}

ByteView Cursor::value() const {
  ORDO_ASSERT(valid_);
  const Level& leaf = stack_[tree_.depth - 1];
  const NodeView node(leaf.page, page_size_);
  if (!node.is_overflow(leaf.index)) {
    const ByteView bytes = node.value(leaf.index);
    if (!node.damaged()) return bytes;
  }
  auto v = internal::leaf_value(*pages_, node, leaf.index, leaf.page_number);
  if (!v.is_ok()) {
    status_ = v.status();
    return {};
  }
  return *v;
}

}  // namespace ordo::btree
