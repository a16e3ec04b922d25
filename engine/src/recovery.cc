#include "recovery.h"

#include <string>

#include "ordo/btree/node.h"
#include "ordo/btree/overflow_ref.h"
#include "ordo/btree/tree.h"
#include "ordo/btree/walk.h"
#include "snapshot_pages.h"

namespace ordo::engine {
namespace {

using btree::NodeView;
using btree::PageNo;

// Descends from one root into the pages stamped with the last txn's id; the
// walk hashes every child of such a page against its entry.
class LastCommitVerifier : public btree::PageVisitor {
 public:
  LastCommitVerifier(SnapshotPages& pages, const Meta& meta, uint64_t previous_high_water,
                     bool catalog)
      : pages_(pages), meta_(meta), previous_high_water_(previous_high_water), catalog_(catalog) {}

  Status verify(const btree::TreeRoot& root) {
    btree::WalkOptions options;
    options.check_order = false;
    return btree::walk_tree(pages_, root, *this, options);
  }

  Status damaged(const btree::PageRef& ref, Status problem) override {
    return problem.with_context("page written by txn " + std::to_string(meta_.txn_id));
  }

  Result<btree::WalkStep> page(const btree::PageRef& ref, const NodeView& v) override {
    if (v.txn_id() != meta_.txn_id) return btree::WalkStep::kSkip;  // older, durable before
    if (ref.leaf() && catalog_) {
      for (uint32_t i = 0; i < v.count(); ++i) {
        if (v.value(i).size() != kTreeRootBytes) {
          return Status::corruption("catalog entry has a bad size", ref.page);
        }
        LastCommitVerifier named(pages_, meta_, previous_high_water_, false);
        ORDO_RETURN_IF_ERROR(named.verify(decode_tree_root(v.value(i).data())));
      }
    }
    return btree::WalkStep::kDescend;
  }

  Status overflow(const btree::PageRef& leaf, const NodeView&, uint32_t,
                  const btree::OverflowRun& run) override {
    if (run.ref.first < previous_high_water_) return Status::ok();  // an older run
    ORDO_ASSIGN_OR_RETURN(const std::byte* bytes, pages_.read_run(run.ref.first, run.pages));
    if (btree::overflow_run_checksum(bytes, run.pages, meta_.page_size) != run.ref.checksum) {
      return Status::corruption("overflow run written by txn " + std::to_string(meta_.txn_id) +
                                    " does not match its checksum",
                                run.ref.first);
    }
    return Status::ok();
  }

 private:
  SnapshotPages& pages_;
  const Meta& meta_;
  const uint64_t previous_high_water_;
  const bool catalog_;
};

}  // namespace

Status verify_last_commit(const io::PageFile& file, const Meta& meta,
                          uint64_t previous_high_water) {
  SnapshotPages pages(file, meta.page_size, meta.page_high_water, /*verify=*/true);
  ORDO_RETURN_IF_ERROR(
      LastCommitVerifier(pages, meta, previous_high_water, false).verify(meta.default_tree));
  ORDO_RETURN_IF_ERROR(
      LastCommitVerifier(pages, meta, previous_high_water, false).verify(meta.free_tree));
  return LastCommitVerifier(pages, meta, previous_high_water, true).verify(meta.catalog);
}

}  // namespace ordo::engine
