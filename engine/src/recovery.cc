#include "recovery.h"

#include <xxhash.h>

#include <string>

#include "ordo/btree/endian.h"
#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"
#include "snapshot_pages.h"

namespace ordo::engine {
namespace {

using btree::NodeView;
using btree::PageNo;

class LastCommitVerifier {
 public:
  LastCommitVerifier(const io::PageFile& file, const Meta& meta, uint64_t previous_high_water)
      : file_(file), meta_(meta), previous_high_water_(previous_high_water) {}

  Status root(const btree::TreeRoot& r, bool catalog, uint32_t level = 0) {
    if (r.root == btree::kNoPage) return Status::ok();
    if (r.depth == 0 || r.depth > btree::kMaxDepth) {
      return Status::corruption("tree depth out of range", r.root);
    }
    ORDO_ASSIGN_OR_RETURN(const std::byte* p, read_checked(r.root, r.root_checksum));
    return page(r.root, p, catalog, 0, r.depth);
  }

 private:
  Result<const std::byte*> read_checked(PageNo pg, uint64_t expected) {
    ORDO_ASSIGN_OR_RETURN(const std::byte* p,
                          read_committed(file_, meta_.page_size, meta_.page_high_water, pg));
    if (btree::page_checksum(p, meta_.page_size) != expected) {
      return Status::corruption("page written by txn " + std::to_string(meta_.txn_id) +
                                    " does not match its checksum",
                                pg);
    }
    return p;
  }

  Status page(PageNo pg, const std::byte* p, bool catalog, uint32_t level, uint32_t depth) {
    NodeView v(p, meta_.page_size);
    if (v.txn_id() != meta_.txn_id) return Status::ok();  // older, durable before
    ORDO_RETURN_IF_ERROR(btree::check_node(p, meta_.page_size, pg));
    if (v.is_branch()) {
      if (level + 1 >= depth) return Status::corruption("branch page at the leaf level", pg);
      for (uint32_t i = 0; i < v.count(); ++i) {
        ORDO_ASSIGN_OR_RETURN(const std::byte* child,
                              read_checked(v.child(i), v.child_checksum(i)));
        ORDO_RETURN_IF_ERROR(page(v.child(i), child, catalog, level + 1, depth));
      }
      return Status::ok();
    }
    for (uint32_t i = 0; i < v.count(); ++i) {
      if (v.is_overflow(i)) ORDO_RETURN_IF_ERROR(overflow(v, i, pg));
      if (catalog) {
        if (v.value(i).size() != kTreeRootBytes) {
          return Status::corruption("catalog entry has a bad size", pg);
        }
        ORDO_RETURN_IF_ERROR(root(decode_tree_root(v.value(i).data()), false));
      }
    }
    return Status::ok();
  }

  Status overflow(const NodeView& leaf, uint32_t i, PageNo leaf_pg) {
    const PageNo first = btree::load_u64(leaf.value(i).data());
    if (first < previous_high_water_) return Status::ok();  // an older run
    const uint64_t n = btree::overflow_pages(leaf.value_len(i), meta_.page_size);
    ORDO_ASSIGN_OR_RETURN(const std::byte* run,
                          read_committed_run(file_, meta_.page_size, meta_.page_high_water,
                                             first, n));
    if (XXH3_64bits(run, n * meta_.page_size) != btree::load_u64(leaf.value(i).data() + 8)) {
      return Status::corruption("overflow run written by txn " + std::to_string(meta_.txn_id) +
                                    " does not match its checksum",
                                first);
    }
    return Status::ok();
  }

  const io::PageFile& file_;
  const Meta& meta_;
  const uint64_t previous_high_water_;
};

}  // namespace

Status verify_last_commit(const io::PageFile& file, const Meta& meta,
                          uint64_t previous_high_water) {
  LastCommitVerifier v(file, meta, previous_high_water);
  ORDO_RETURN_IF_ERROR(v.root(meta.default_tree, false));
  ORDO_RETURN_IF_ERROR(v.root(meta.free_tree, false));
  return v.root(meta.catalog, true);
}

}  // namespace ordo::engine
