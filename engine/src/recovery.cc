#include "recovery.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "free_entry.h"
#include "ordo/assert.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/node.h"
#include "ordo/btree/overflow_ref.h"
#include "ordo/btree/tree.h"
#include "ordo/btree/walk.h"
#include "snapshot_pages.h"

namespace ordo::engine {
namespace {

using btree::NodeView;
using btree::PageNo;

// The pages free in a meta, read from its free tree. At namespace scope:
// clang cannot construct a nested class with member initializers before the
// enclosing class is complete.
struct FreePages {
  bool ok = false;
  std::vector<PageNo> pages;  // sorted
};

// Which overflow runs the last txn may have written. Runs at or past the
// previous meta's high-water mark are new. Below it, a run reused pages that
// were free in the previous meta (its snapshot, whose free tree is where
// reused pages come from); any other run the previous meta reaches, durable
// before. Without a usable previous meta every run counts as new.
class NewRuns {
 public:
  NewRuns(SnapshotPages& pages, const Meta& meta, const Meta* previous)
      : pages_(pages), previous_(previous) {
    if (previous_ != nullptr && previous_->txn_id + 1 != meta.txn_id) previous_ = nullptr;
  }

  bool written_by_last_txn(PageNo first) {
    if (previous_ == nullptr || first >= previous_->page_high_water) return true;
    if (!previously_free_) load_previously_free();
    return !previously_free_->ok || std::binary_search(previously_free_->pages.begin(),
                                                       previously_free_->pages.end(), first);
  }

 private:
  // Read once, only when a run below the mark needs it. A damaged free tree
  // makes every run count as new: checking more is always safe.
  void load_previously_free() {
    ORDO_ASSERT(previous_ != nullptr && !previously_free_);  // Read once, with a previous meta.
    previously_free_.emplace();
    std::vector<PageNo>& out = previously_free_->pages;
    if (previous_->free_tree.root != btree::kNullPage) {
      btree::Cursor c(pages_, previous_->free_tree);
      Status s = c.first();
      while (s.is_ok() && c.valid()) {
        auto entry = decode_free_entry(c.key(), c.value(), previous_->free_tree.root);
        if (!entry.is_ok()) return;
        for (uint64_t i = 0; i < entry->page_count(); ++i) out.push_back(entry->page(i));
        s = c.next();
      }
      if (!s.is_ok()) return;
    }
    std::sort(out.begin(), out.end());
    previously_free_->ok = true;
  }

  SnapshotPages& pages_;
  const Meta* previous_;
  std::optional<FreePages> previously_free_;
};

// Descends from one root into the pages stamped with the last txn's id; the
// walk hashes every child of such a page against its entry.
class LastCommitVerifier : public btree::PageVisitor {
 public:
  LastCommitVerifier(SnapshotPages& pages, const Meta& meta, NewRuns& new_runs, bool catalog,
                     uint64_t since_txn)
      : pages_(pages), meta_(meta), new_runs_(new_runs), catalog_(catalog), since_txn_(since_txn) {}

  Status verify(const btree::TreeRoot& root) {
    btree::WalkOptions options;
    options.check_order = false;
    return btree::walk_tree(pages_, root, *this, options);
  }

  Status damaged(const btree::PageRef& ref, Status problem) override {
    ORDO_ASSERT(!problem.is_ok());
    return problem.with_context(since_txn_ + 1 == meta_.txn_id
                                    ? "page written by txn " + std::to_string(meta_.txn_id)
                                    : "page written after txn " + std::to_string(since_txn_));
  }

  Result<btree::WalkStep> page(const btree::PageRef& ref, const NodeView& v) override {
    if (v.txn_id() <= since_txn_) return btree::WalkStep::kSkip;  // older, durable before
    if (ref.leaf() && catalog_) {
      for (uint32_t i = 0; i < v.count(); ++i) {
        if (v.value(i).size() != kTreeRootBytes) {
          return Status::corruption("catalog entry has a bad size", ref.page);
        }
        LastCommitVerifier named(pages_, meta_, new_runs_, false, since_txn_);
        ORDO_RETURN_IF_ERROR(named.verify(decode_tree_root(v.value(i).data())));
      }
    }
    return btree::WalkStep::kDescend;
  }

  Status overflow(const btree::PageRef& leaf, const NodeView&, uint32_t,
                  const btree::OverflowRun& run) override {
    ORDO_ASSERT(leaf.leaf() && run.pages >= 1);
    // The run's own header cannot tell: a torn reused run may still show the
    // older txn whose run lay there before.
    if (!new_runs_.written_by_last_txn(run.ref.first)) return Status::ok();
    ORDO_ASSIGN_OR_RETURN(const std::byte* bytes, pages_.read_run(run.ref.first, run.pages));
    if (btree::overflow_run_checksum(bytes, run.pages, meta_.page_size) != run.ref.checksum) {
      return Status::corruption("overflow run referred to by txn " + std::to_string(meta_.txn_id) +
                                    " does not match its checksum",
                                run.ref.first);
    }
    return Status::ok();
  }

 private:
  SnapshotPages& pages_;
  const Meta& meta_;
  NewRuns& new_runs_;
  const bool catalog_;
  const uint64_t since_txn_;
};

Status verify_pages(const io::PageFile& file, const Meta& meta, const Meta* previous,
                    uint64_t since_txn) {
  if (meta.page_high_water > file.file_bytes() / meta.page_size) {
    return Status::corruption("file ends before the pages of txn " + std::to_string(meta.txn_id));
  }
  SnapshotPages pages(file, meta.page_size, meta.page_high_water, /*verify=*/true);
  NewRuns new_runs(pages, meta, previous);
  ORDO_RETURN_IF_ERROR(
      LastCommitVerifier(pages, meta, new_runs, false, since_txn).verify(meta.default_tree));
  ORDO_RETURN_IF_ERROR(
      LastCommitVerifier(pages, meta, new_runs, false, since_txn).verify(meta.free_tree));
  return LastCommitVerifier(pages, meta, new_runs, true, since_txn).verify(meta.catalog);
}

}  // namespace

Status verify_last_commit(const io::PageFile& file, const Meta& meta, const Meta* previous) {
  // MetaSlots::older_valid(): an older txn of the same page size.
  ORDO_ASSERT(previous == nullptr ||
              (previous->txn_id < meta.txn_id && previous->page_size == meta.page_size));
  // Logged txns between the previous checkpoint and this one reached the disk
  // with this commit's one sync: their pages are checked too.
  return verify_pages(file, meta, previous, previous != nullptr ? previous->txn_id : 0);
}

Status verify_since(const io::PageFile& file, const Meta& meta, uint64_t since_txn) {
  // No previous meta: every run a page since `since_txn` refers to is checked.
  // Callers ask only about txns after the checkpoint `since_txn`.
  ORDO_ASSERT(since_txn < meta.txn_id);
  return verify_pages(file, meta, nullptr, since_txn);
}

Status verify_slot_commit(const io::PageFile& file, const MetaSlots& slots, int pick) {
  ORDO_ASSERT((pick == 0 || pick == 1) && slots.problem[pick] == MetaProblem::kNone);
  const Meta& newest = slots.meta[pick];
  if ((newest.flags & kMetaFlagOneSync) == 0) return Status::ok();
  // The file growth of a one-sync txn becomes durable with its one sync, as
  // the meta does: a meta past the end of the file was not durable either.
  if (newest.page_high_water * newest.page_size > file.file_bytes()) {
    return Status::corruption("file ends before the pages of txn " + std::to_string(newest.txn_id));
  }
  return verify_last_commit(file, newest, slots.older_valid(pick));
}

Result<int> fall_back_from(const MetaSlots& slots, int pick, const Status& problem,
                           std::string* note) {
  ORDO_ASSERT(!problem.is_ok() && note != nullptr);
  const Meta* older = slots.older_valid(pick);
  if (older == nullptr) return problem;
  ORDO_ASSERT(older == &slots.meta[1 - pick]);  // the other slot, the only older one
  *note = "txn " + std::to_string(slots.meta[pick].txn_id) + " was not durable (" +
          problem.to_string() + "); using txn " + std::to_string(older->txn_id);
  return 1 - pick;
}

}  // namespace ordo::engine
