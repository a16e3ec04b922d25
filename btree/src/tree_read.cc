#include <xxhash.h>

#include <string>

#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"
#include "tree_internal.h"

namespace ordo::btree {

using internal::load_node;

Status check_key_value(uint32_t page_size, ByteView key, ByteView value) {
  if (key.size() > max_key_bytes(page_size)) {
    return Status::invalid_argument("key of " + std::to_string(key.size()) +
                                    " bytes exceeds the maximum of " +
                                    std::to_string(max_key_bytes(page_size)) + " bytes");
  }
  if (value.size() > kMaxValueBytes) {
    return Status::invalid_argument("value of " + std::to_string(value.size()) +
                                    " bytes exceeds the maximum of " +
                                    std::to_string(kMaxValueBytes) + " bytes");
  }
  return Status::ok();
}

uint64_t page_checksum(const std::byte* page, uint32_t page_size) {
  return XXH3_64bits(page, page_size);
}

Status find(PageReader& pages, const TreeRoot& tree, ByteView key, bool* found,
            ByteView* value) {
  *found = false;
  if (tree.root == kNoPage) return Status::ok();
  if (tree.depth == 0 || tree.depth > kMaxDepth) {
    return Status::corruption("tree depth " + std::to_string(tree.depth) + " out of range",
                              tree.root);
  }
  PageNo pg = tree.root;
  uint64_t expected = tree.root_checksum;
  for (uint32_t level = 0; level + 1 < tree.depth; ++level) {
    ORDO_ASSIGN_OR_RETURN(NodeView v, load_node(pages, pg, false, expected));
    const uint32_t idx = v.branch_child_index(key);
    PageNo child = v.child(idx);
    expected = v.child_checksum(idx);
    if (v.damaged()) return internal::damaged(pg);
    pg = child;
  }
  ORDO_ASSIGN_OR_RETURN(NodeView leaf, load_node(pages, pg, true, expected));
  uint32_t pos = leaf.leaf_lower_bound(key, found);
  if (leaf.damaged()) {
    *found = false;
    return internal::damaged(pg);
  }
  if (!*found) return Status::ok();
  auto v = internal::leaf_value(pages, leaf, pos, pg);
  if (!v.is_ok()) {
    *found = false;
    return v.status();
  }
  *value = *v;
  return Status::ok();
}

double TreeShape::leaf_fill() const {
  return leaf_pages == 0 ? 0.0 : static_cast<double>(leaf_used_bytes) /
                                     (static_cast<double>(leaf_pages) * page_size_bytes);
}

namespace {

Status walk(PageReader& pages, PageNo pg, uint64_t expected, uint32_t level, uint32_t depth,
            TreeShape* stats) {
  bool expect_leaf = level + 1 == depth;
  ORDO_ASSIGN_OR_RETURN(NodeView v, load_node(pages, pg, expect_leaf, expected));
  ORDO_RETURN_IF_ERROR(check_node_order(v.data(), pages.page_size(), pg));
  if (expect_leaf) {
    stats->leaf_pages++;
    stats->leaf_used_bytes += v.used_bytes();
    stats->entries += v.count();
    for (uint32_t i = 0; i < v.count(); ++i) {
      stats->key_bytes += v.key(i).size();
      stats->value_bytes += v.value_len(i);
      if (!v.is_overflow(i)) continue;
      ORDO_RETURN_IF_ERROR(internal::leaf_value(pages, v, i, pg).status());
      stats->overflow_pages += overflow_pages(v.value_len(i), pages.page_size());
      stats->overflow_values++;
    }
    if (v.damaged()) return internal::damaged(pg);
    return Status::ok();
  }
  stats->branch_pages++;
  for (uint32_t i = 0; i < v.count(); ++i) {
    ORDO_RETURN_IF_ERROR(walk(pages, v.child(i), v.child_checksum(i), level + 1, depth, stats));
  }
  return Status::ok();
}

}  // namespace

Status collect_stats(PageReader& pages, const TreeRoot& tree, TreeShape* stats) {
  *stats = TreeShape{};
  stats->page_size_bytes = pages.page_size();
  stats->depth = tree.depth;
  if (tree.root == kNoPage) return Status::ok();
  if (tree.depth == 0 || tree.depth > kMaxDepth) {
    return Status::corruption("tree depth " + std::to_string(tree.depth) + " out of range",
                              tree.root);
  }
  ORDO_RETURN_IF_ERROR(walk(pages, tree.root, tree.root_checksum, 0, tree.depth, stats));
  if (stats->entries != tree.entries) {
    return Status::corruption("tree holds " + std::to_string(stats->entries) +
                                  " entries but its root records " +
                                  std::to_string(tree.entries),
                              tree.root);
  }
  return Status::ok();
}

}  // namespace ordo::btree
