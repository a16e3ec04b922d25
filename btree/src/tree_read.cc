#include <xxhash.h>

#include <string>

#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"
#include "ordo/btree/walk.h"
#include "tree_internal.h"

namespace ordo::btree {

Status check_key_value(uint32_t page_size, ByteView key, ByteView value) {
  ORDO_ASSERT(valid_page_size(page_size));
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
  ORDO_ASSERT(page != nullptr);
  return XXH3_64bits(page, page_size);
}

namespace internal {

Result<NodeView> descend_to_leaf(PageReader& pages, const TreeRoot& tree, ByteView key,
                                 PageNo* leaf_page, uint32_t* indexes) {
  ORDO_ASSERT(tree.root != kNullPage && leaf_page != nullptr);
  if (tree.depth == 0 || tree.depth > kMaxDepth) {
    return Status::corruption("tree depth " + std::to_string(tree.depth) + " out of range",
                              tree.root);
  }
  DescentLoader loader(pages);
  PageNo pg = tree.root;
  uint64_t expected = tree.root_checksum;
  for (uint32_t level = 0; level + 1 < tree.depth; ++level) {
    ORDO_ASSIGN_OR_RETURN(NodeView v, loader.load(pg, false, expected));
    const uint32_t idx = v.branch_child_index(key);
    PageNo child = v.child(idx);
    expected = v.child_checksum(idx);
    if (v.damaged()) return damaged(pg);
    ORDO_ASSERT(idx < v.count());  // check_header: a branch has an entry
    if (indexes != nullptr) indexes[level] = idx;
    pg = child;
  }
  *leaf_page = pg;
  return loader.load(pg, true, expected);
}

}  // namespace internal

Status find(PageReader& pages, const TreeRoot& tree, ByteView key, bool* found, ByteView* value) {
  ORDO_ASSERT(found != nullptr && value != nullptr);
  *found = false;
  if (tree.root == kNullPage) return Status::ok();
  PageNo pg = kNullPage;
  ORDO_ASSIGN_OR_RETURN(NodeView leaf, internal::descend_to_leaf(pages, tree, key, &pg));
  uint32_t pos = leaf.leaf_lower_bound(key, found);
  if (leaf.damaged()) {
    *found = false;
    return internal::damaged(pg);
  }
  if (!*found) return Status::ok();
  ORDO_ASSERT(pos < leaf.count());
  auto v = internal::leaf_value(pages, leaf, pos, pg);
  if (!v.is_ok()) {
    *found = false;
    return v.status();
  }
  *value = *v;
  return Status::ok();
}

double TreeShape::leaf_fill() const {
  return leaf_pages == 0 ? 0.0
                         : static_cast<double>(leaf_used_bytes) /
                               (static_cast<double>(leaf_pages) * page_size_bytes);
}

namespace {

// Counts pages and bytes; reads every overflow run (checked as `pages` verifies).
class StatsVisitor : public PageVisitor {
 public:
  StatsVisitor(PageReader& pages, TreeShape* stats) : pages_(pages), stats_(stats) {}

  Result<WalkStep> page(const PageRef& ref, const NodeView& node) override {
    ORDO_ASSERT(node.is_leaf() == ref.leaf());  // The walk checked the type.
    if (!ref.leaf()) {
      stats_->branch_pages++;
      return WalkStep::kDescend;
    }
    stats_->leaf_pages++;
    stats_->leaf_used_bytes += node.used_bytes();
    stats_->entries += node.count();
    for (uint32_t i = 0; i < node.count(); ++i) {
      stats_->key_bytes += node.key(i).size();
      stats_->value_bytes += node.value_len(i);
    }
    if (node.damaged()) return internal::damaged(ref.page);
    return WalkStep::kDescend;
  }

  Status overflow(const PageRef& leaf, const NodeView&, uint32_t, const OverflowRun& run) override {
    ORDO_ASSERT(leaf.leaf() && run.pages >= 1);
    const bool verify = pages_.verify_checksums() && !pages_.is_dirty(leaf.page);
    ORDO_RETURN_IF_ERROR(read_overflow_run(pages_, run, leaf.page, verify).status());
    stats_->overflow_pages += run.pages;
    stats_->overflow_values++;
    return Status::ok();
  }

 private:
  PageReader& pages_;
  TreeShape* stats_;
};

}  // namespace

Status collect_stats(PageReader& pages, const TreeRoot& tree, TreeShape* stats) {
  ORDO_ASSERT(stats != nullptr);
  *stats = TreeShape{};
  stats->page_size_bytes = pages.page_size();
  stats->depth = tree.depth;
  if (tree.root == kNullPage) return Status::ok();
  StatsVisitor visitor(pages, stats);
  WalkOptions options;
  options.verify_checksums = pages.verify_checksums();
  ORDO_RETURN_IF_ERROR(walk_tree(pages, tree, visitor, options));
  return check_entry_count(tree, stats->entries);
}

Status check_entry_count(const TreeRoot& tree, uint64_t found) {
  if (found == tree.entries) return Status::ok();
  const std::string what = "tree holds " + std::to_string(found) +
                           " entries but its root records " + std::to_string(tree.entries);
  return tree.root == kNullPage ? Status::corruption(what) : Status::corruption(what, tree.root);
}

}  // namespace ordo::btree
