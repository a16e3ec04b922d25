#include "ordo/btree/cursor.h"

#include <string>

#include "ordo/btree/node.h"
#include "tree_internal.h"

namespace ordo::btree {

Status Cursor::load_level(uint32_t level, PageNo pg, uint64_t expected_checksum, Edge edge) {
  bool leaf = level + 1 == tree_.depth;
  ORDO_ASSIGN_OR_RETURN(NodeView v, internal::load_node(*pages_, pg, leaf, expected_checksum));
  if (v.count() == 0) return Status::corruption("empty page inside a tree", pg);
  stack_[level] = {v.data(), pg, edge == Edge::kFirst ? 0 : v.count() - 1, v.count()};
  return Status::ok();
}

Status Cursor::descend_from(uint32_t level, Edge edge) {
  for (uint32_t l = level; l < tree_.depth; ++l) {
    const Level& up = stack_[l - 1];
    NodeView v(up.page, pages_->page_size());
    PageNo child = v.child(up.index);
    uint64_t checksum = v.child_checksum(up.index);
    if (v.damaged()) return internal::damaged(up.page_number);
    ORDO_RETURN_IF_ERROR(load_level(l, child, checksum, edge));
  }
  return Status::ok();
}

Status Cursor::to_edge(Edge edge) {
  valid_ = false;
  if (tree_.root == kNullPage) return Status::ok();
  if (tree_.depth == 0 || tree_.depth > kMaxDepth) {
    return Status::corruption("tree depth out of range", tree_.root);
  }
  ORDO_RETURN_IF_ERROR(load_level(0, tree_.root, tree_.root_checksum, edge));
  ORDO_RETURN_IF_ERROR(descend_from(1, edge));
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
  PageNo pg = tree_.root;
  uint64_t expected = tree_.root_checksum;
  for (uint32_t l = 0; l < tree_.depth; ++l) {
    ORDO_RETURN_IF_ERROR(load_level(l, pg, expected, Edge::kFirst));
    NodeView v(stack_[l].page, pages_->page_size());
    if (l + 1 < tree_.depth) {
      stack_[l].index = v.branch_child_index(key);
      pg = v.child(stack_[l].index);
      expected = v.child_checksum(stack_[l].index);
    } else {
      bool found;
      stack_[l].index = v.leaf_lower_bound(key, &found);
    }
    if (v.damaged()) return internal::damaged(stack_[l].page_number);
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
  Level& leaf = stack_[tree_.depth - 1];
  if (++leaf.index < leaf.count) return Status::ok();
  for (uint32_t l = tree_.depth - 1; l-- > 0;) {
    if (stack_[l].index + 1 < stack_[l].count) {
      stack_[l].index++;
      valid_ = false;
      ORDO_RETURN_IF_ERROR(descend_from(l + 1, Edge::kFirst));
      valid_ = true;
      return Status::ok();
    }
  }
  valid_ = false;
  return Status::ok();
}

Status Cursor::prev() {
  if (!valid_) return Status::ok();
  Level& leaf = stack_[tree_.depth - 1];
  if (leaf.index > 0) {
    leaf.index--;
    return Status::ok();
  }
  for (uint32_t l = tree_.depth - 1; l-- > 0;) {
    if (stack_[l].index > 0) {
      stack_[l].index--;
      valid_ = false;
      ORDO_RETURN_IF_ERROR(descend_from(l + 1, Edge::kLast));
      valid_ = true;
      return Status::ok();
    }
  }
  valid_ = false;
  return Status::ok();
}

ByteView Cursor::key() const {
  const Level& leaf = stack_[tree_.depth - 1];
  return NodeView(leaf.page, pages_->page_size()).key(leaf.index);
}

ByteView Cursor::value() const {
  const Level& leaf = stack_[tree_.depth - 1];
  auto v = internal::leaf_value(*pages_, NodeView(leaf.page, pages_->page_size()), leaf.index,
                                leaf.page_number);
  if (!v.is_ok()) {
    status_ = v.status();
    return {};
  }
  return *v;
}

}  // namespace ordo::btree
