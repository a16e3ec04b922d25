#include "ordo/btree/walk.h"

#include <string>

#include "ordo/assert.h"

namespace ordo::btree {
namespace {

class Walker {
 public:
  Walker(PageReader& pages, PageVisitor& visitor, const WalkOptions& options)
      : pages_(pages), visitor_(visitor), options_(options), ps_(pages.page_size()) {}

  Status page(const PageRef& ref) {
    // walk_tree checked the depth; children() goes one level down from a branch.
    ORDO_ASSERT(ref.depth <= kMaxDepth && ref.level < ref.depth);
    if (!visitor_.enter(ref)) return Status::ok();
    if (ref.page < kFirstDataPage && ref.parent != kNullPage) {
      // Name the branch: page 0 or 1 in a problem would read as a meta page.
      return visitor_.damaged(
          ref, Status::corruption("entry " + std::to_string(ref.index) + " names page " +
                                      std::to_string(ref.page) + ", not a tree page",
                                  ref.parent));
    }
    auto read = pages_.read(ref.page);
    if (!read.is_ok()) return visitor_.damaged(ref, read.status());
    const std::byte* p = *read;
    if (options_.verify_checksums && !pages_.is_dirty(ref.page)) {
      const uint64_t actual = page_checksum(p, ps_);
      if (actual != ref.expected_checksum) {
        ORDO_RETURN_IF_ERROR(visitor_.damaged(
            ref, Status::corruption("checksum mismatch (parent records " +
                                        std::to_string(ref.expected_checksum) + ", page has " +
                                        std::to_string(actual) + ")",
                                    ref.page)));
      }
    }
    Status s =
        options_.check_order ? check_node_order(p, ps_, ref.page) : check_node(p, ps_, ref.page);
    if (!s.is_ok()) return visitor_.damaged(ref, std::move(s));
    const NodeView node(p, ps_);
    if (node.is_leaf() != ref.leaf()) {
      return visitor_.damaged(
          ref, Status::corruption(ref.leaf() ? "branch page where the depth puts leaves"
                                             : "leaf page above the leaf level",
                                  ref.page));
    }
    if (ref.parent != kNullPage) {
      const uint64_t actual = subtree_entries(node);
      if (actual != ref.expected_entries) {
        // Named by the branch holding the count: its entry disagrees with the page.
        ORDO_RETURN_IF_ERROR(visitor_.damaged(
            ref, Status::corruption("entry count mismatch: entry " + std::to_string(ref.index) +
                                        " records " + std::to_string(ref.expected_entries) +
                                        " entries under page " + std::to_string(ref.page) +
                                        ", which holds " + std::to_string(actual),
                                    ref.parent)));
      }
    }
    ORDO_ASSIGN_OR_RETURN(const WalkStep step, visitor_.page(ref, node));
    if (step == WalkStep::kStop) stopped_ = true;
    if (step != WalkStep::kDescend) return Status::ok();
    ORDO_RETURN_IF_ERROR(ref.leaf() ? overflows(ref, node) : children(ref, node));
    if (stopped_) return Status::ok();
    return visitor_.leave(ref, node);
  }

  bool stopped() const { return stopped_; }

 private:
  Status overflows(const PageRef& ref, const NodeView& leaf) {
    ORDO_ASSERT(ref.leaf() && leaf.is_leaf());
    for (uint32_t i = 0; i < leaf.count(); ++i) {
      if (!leaf.is_overflow(i)) continue;
      auto run = leaf_overflow_run(leaf, i, ref.page);
      if (!run.is_ok()) {
        ORDO_RETURN_IF_ERROR(visitor_.damaged(ref, run.status()));
        continue;
      }
      ORDO_RETURN_IF_ERROR(visitor_.overflow(ref, leaf, i, *run));
    }
    return Status::ok();
  }

  Status children(const PageRef& ref, const NodeView& branch) {
    const uint32_t n = branch.count();
    // check_node rejects an empty branch; page() the one at the leaf level.
    ORDO_ASSERT(!ref.leaf() && branch.is_branch() && n > 0);
    PageRef child;
    child.parent = ref.page;
    child.level = ref.level + 1;
    child.depth = ref.depth;
    for (uint32_t i = 0; i < n && !stopped_; ++i) {
      child.page = branch.child(i);
      child.index = i;
      child.expected_checksum = branch.child_checksum(i);
      child.expected_entries = branch.child_entries(i);
      child.lower = i == 0 ? ref.lower : std::optional<ByteView>(branch.key(i));
      child.upper = i + 1 < n ? std::optional<ByteView>(branch.key(i + 1)) : ref.upper;
      ORDO_RETURN_IF_ERROR(page(child));
    }
    return Status::ok();
  }

  PageReader& pages_;
  PageVisitor& visitor_;
  const WalkOptions& options_;
  const uint32_t ps_;
  bool stopped_ = false;
};

}  // namespace

Status walk_tree(PageReader& pages, const TreeRoot& root, PageVisitor& visitor,
                 const WalkOptions& options) {
  if (root.root == kNullPage) return Status::ok();
  if (root.depth == 0 || root.depth > kMaxDepth) {
    return Status::corruption("tree depth " + std::to_string(root.depth) + " out of range",
                              root.root);
  }
  ORDO_ASSERT(valid_page_size(pages.page_size()));
  PageRef ref;
  ref.page = root.root;
  ref.depth = root.depth;
  ref.expected_checksum = root.root_checksum;
  ref.expected_entries = root.entries;
  return Walker(pages, visitor, options).page(ref);
}

}  // namespace ordo::btree
