// FreeList: a write txn's side of the free tree (docs/FORMAT.md "Free tree").
// It reclaims pages of entries no snapshot in use can reach (ReuseRule) for the
// PageAllocator, and at commit records the pages this txn freed, and the
// reusable pages it did not use, under this txn's id.
//
// The free tree is edited through the txn's own btree::PageWriter, whose
// allocations may in turn reclaim: may_reclaim() is false during such edits.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ordo/assert.h"
#include "ordo/btree/page_access.h"
#include "ordo/btree/tree.h"
#include "ordo/status.h"
#include "page_allocator.h"
#include "reuse_rule.h"

namespace ordo::engine {

class FreeList {
 public:
  // `tree`, `free_pages`: the snapshot's free tree and its page count.
  // `high_water`: the snapshot's page high-water mark. `txn_id`: this txn.
  FreeList(const btree::TreeRoot& tree, uint64_t free_pages, uint64_t high_water, uint64_t txn_id,
           ReuseRule rule)
      : rule_(std::move(rule)),
        tree_(tree),
        free_pages_(free_pages),
        high_water_(high_water),
        txn_id_(txn_id),
        reclaim_from_(rule_.held_before()),
        held_before_(reclaim_from_) {
    // A decoded meta's free page count is within its high-water (decode_meta).
    ORDO_ASSERT(free_pages_ <= high_water_);
  }

  // False while the free tree is being edited, and once it holds no more
  // reusable entries.
  bool may_reclaim() const { return !in_edit_ && !exhausted_; }
  // Moves the oldest reusable entries, at least kReclaimBatchPages pages where
  // there are that many, out of the free tree into `allocator`. False when
  // none is left. Corruption for a bad entry.
  Result<bool> reclaim(btree::PageWriter& pages, PageAllocator& allocator);

  // Committed page `pg`, written by txn `written_by`, is replaced by this txn.
  void add_freed(uint64_t written_by, btree::PageNo pg) {
    // WriteTxnPages::written_by() gives an earlier txn, or 0 when unknown.
    ORDO_ASSERT(written_by < txn_id_);
    freed_.emplace_back(written_by, pg);
  }
  // Pages freed so far by this txn that txn `txn` or one before it wrote.
  uint64_t freed_written_by_at_most(uint64_t txn) const {
    uint64_t n = 0;
    for (const auto& [by, pg] : freed_) n += by <= txn ? 1 : 0;
    return n;
  }

  // Commit: writes the freed pages and `allocator`'s unused reusable pages
  // into the free tree under this txn's id. Corruption when the update does
  // not converge.
  Status record(btree::PageWriter& pages, PageAllocator& allocator);

  btree::TreeRoot& tree() { return tree_; }
  // Pages recorded in the free tree.
  uint64_t free_page_count() const { return free_pages_; }
  uint64_t pages_reused() const { return pages_reused_; }
  // Keys below this one were reclaimed by this txn or wait for the checkpoint
  // (ReuseRule::skip_entries_before): the next txn's rule, once this one
  // commits under the same checkpoint, may start there.
  const std::string& held_before() const { return held_before_; }
  uint64_t checkpoint_txn() const { return rule_.checkpoint_txn(); }

  // Savepoints: the list's state between two tree operations, and its
  // return to it. The free tree's pages and the allocator's pool are the
  // caller's to restore with it. Cost: the two keys' bytes.
  struct Mark {
    btree::TreeRoot tree;
    uint64_t free_pages;
    size_t freed;
    std::string reclaim_from;
    std::string held_before;
    bool reader_pinned_seen;
    uint64_t pages_reused;
    bool exhausted;
  };
  Mark mark() const {
    // Never inside an edit of the free tree, nor during the commit's update.
    ORDO_ASSERT(!in_edit_ && recorded_keys_.empty());
    return Mark{tree_,        free_pages_,         freed_.size(), reclaim_from_,
                held_before_, reader_pinned_seen_, pages_reused_, exhausted_};
  }
  void restore(const Mark& m) {
    // freed_ only grows before the commit: what a rollback removes is its tail.
    ORDO_ASSERT(!in_edit_ && recorded_keys_.empty() && m.freed <= freed_.size());
    tree_ = m.tree;
    free_pages_ = m.free_pages;
    freed_.resize(m.freed);
    reclaim_from_ = m.reclaim_from;
    held_before_ = m.held_before;
    reader_pinned_seen_ = m.reader_pinned_seen;
    pages_reused_ = m.pages_reused;
    exhausted_ = m.exhausted;
  }

  static constexpr size_t kReclaimBatchPages = 16;
  // Reusable pages gathered before each round of the commit's update.
  static constexpr size_t kRecordReservePages = 16;

 private:
  // Every entry below the rule's starting key waits for the checkpoint.
  bool skipped_entries_wait(btree::PageWriter& pages) const;

  const ReuseRule rule_;
  btree::TreeRoot tree_;
  uint64_t free_pages_;
  const uint64_t high_water_;
  const uint64_t txn_id_;
  // Committed pages this txn replaced, with the txn that wrote each.
  std::vector<std::pair<uint64_t, btree::PageNo>> freed_;
  // Entries before this key were reclaimed or are still pinned by a reader:
  // the next reclaim seeks here rather than rescanning them.
  std::string reclaim_from_;
  std::string held_before_;
  bool reader_pinned_seen_ = false;         // held_before_ stops at the first such entry
  std::vector<std::string> recorded_keys_;  // this txn's entries, last round
  uint64_t pages_reused_ = 0;
  bool in_edit_ = false;
  bool exhausted_ = false;
};

}  // namespace ordo::engine
