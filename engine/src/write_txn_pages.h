// WriteTxnPages: a write txn's pages as the B+-tree sees them (a
// btree::PageWriter). It wires four units together:
//   DirtyPageCache  the pages this txn wrote, in memory or spilled;
//   PageAllocator   the page numbers it hands out;
//   SpillPolicy     when dirty pages outgrow the memory budget;
//   FreeList        the free tree: reclaiming reusable pages, recording freed ones.
// Overflow runs are written as soon as they are made and never held in memory.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "dirty_page_cache.h"
#include "free_list.h"
#include "meta.h"
#include "ordo/assert.h"
#include "ordo/btree/page_access.h"
#include "ordo/btree/tree.h"
#include "ordo/io/backend.h"
#include "ordo/io/page_file.h"
#include "ordo/options.h"
#include "page_allocator.h"
#include "page_buffers.h"
#include "reuse_rule.h"
#include "snapshot_pages.h"
#include "spill_policy.h"

namespace ordo::engine {

class WriteTxnPages : public btree::PageWriter {
 public:
  // `snapshot`: the committed state the txn starts from. `rule`: which
  // free-tree entries may be reused. `budget_bytes`: the txn's memory budget.
  // `run_reclaim_limit`: Options::run_reclaim_limit_pages.
  WriteTxnPages(io::PageFile& file, PageBuffers& buffers, const Meta& snapshot, uint64_t txn_id,
                ReuseRule rule, uint64_t budget_bytes, bool verify,
                uint64_t run_reclaim_limit = Options{}.run_reclaim_limit_pages);
  WriteTxnPages(const WriteTxnPages&) = delete;
  WriteTxnPages& operator=(const WriteTxnPages&) = delete;

  bool verify_checksums() const override { return verify_; }
  uint32_t page_size() const override { return page_size_; }
  uint64_t txn_id() const override { return txn_id_; }
  Result<const std::byte*> read(btree::PageNo pg) override;
  Result<const std::byte*> read_run(btree::PageNo first, uint64_t pages) override;
  bool is_dirty(btree::PageNo pg) const override { return cache_.contains(pg); }
  bool writable_in_place(btree::PageNo pg, const std::byte* data) const override {
    return cache_.writable_in_place(pg, data);
  }
  std::byte* writable(btree::PageNo pg) override {
    ORDO_DCHECK(pg >= kFirstDataPage && pg < allocator_.next_page() && cache_.contains(pg));
    return cache_.writable(pg);
  }
  std::byte* writable_if_dirty(btree::PageNo pg) override {
    return cache_.writable_if_contained(pg);
  }
  Result<const std::byte*> read_clean(btree::PageNo pg) override {
    // Not dirty, so not spilled: a page of the snapshot.
    ORDO_DCHECK(!is_dirty(pg));
    return read_committed(file_, page_size_, snapshot_high_water_, pg);
  }
  Result<DirtyPage> copy_clean(btree::PageNo pg, const std::byte* clean) override;
  Result<btree::PageNo> allocate() override;
  void free_page(btree::PageNo pg) override;
  Result<btree::PageNo> write_run(std::span<const std::span<const std::byte>> parts,
                                  uint64_t pages) override;
  void free_run(btree::PageNo first, uint64_t pages) override;

  // Spills when dirty pages exceed the budget. Call only where no page
  // pointer is held (between tree operations).
  Status maybe_spill() {
    return spill_policy_.over_budget(cache_.size())
               ? cache_.spill(spill_policy_, allocator_.next_page())
               : Status::ok();
  }

  // Pages this txn freed that txn `txn` or one before it wrote (before
  // record_free_pages()).
  uint64_t freed_written_by_at_most(uint64_t txn) const {
    ORDO_ASSERT(txn < txn_id_);  // a checkpoint before this txn
    return free_list_.freed_written_by_at_most(txn);
  }

  // Commit: records freed and unused reusable pages in the free tree.
  Status record_free_pages() {
    ORDO_ASSERT(!allocator_.pool_locked());  // once per txn: record() locks the pool
    return free_list_.record(*this, allocator_);
  }

  btree::TreeRoot& free_tree() { return free_list_.tree(); }
  uint64_t free_page_count() const { return free_list_.free_page_count(); }
  uint64_t next_page() const {
    ORDO_ASSERT(allocator_.next_page() >= snapshot_high_water_);  // a txn never lowers it
    return allocator_.next_page();
  }
  uint64_t pages_reused() const { return free_list_.pages_reused(); }
  // FreeList::held_before, and the checkpoint its reuse rule counted with.
  const std::string& free_entries_held_before() const { return free_list_.held_before(); }
  uint64_t reuse_checkpoint_txn() const {
    ORDO_ASSERT(free_list_.checkpoint_txn() < txn_id_);
    return free_list_.checkpoint_txn();
  }
  uint64_t pages_spilled() const { return cache_.pages_spilled(); }
  uint64_t overflow_pages_written() const { return overflow_pages_written_; }
  // Savepoints (WriteTxn::savepoint): levels of the txn's page state, the
  // innermost last. A level costs what changes while it is open: one copy of
  // each page this txn had written before it and changes again, one entry
  // per allocation, free or reclaim (docs/USING.md, "Savepoints").
  // Call these only between tree operations.
  void push_level();
  // Takes every page, the allocator and the free list back to the state at
  // the start of level `level` (0 is the outermost), which stays, empty;
  // the levels inside it end.
  void rollback_to_level(size_t level);
  // Ends level `level` and those inside it, keeping their changes.
  void release_level(size_t level);
  size_t levels() const { return levels_.size(); }
  // Pages whose earlier states the levels hold in memory.
  uint64_t level_pages() const { return cache_.level_pages(); }

  // One span per in-memory dirty page; the write backend sorts and coalesces them.
  std::vector<io::WriteSpan> write_spans() const {
    std::vector<io::WriteSpan> spans = cache_.write_spans();
    ORDO_DCHECK(spans.size() == cache_.size());  // every in-memory page, once
    return spans;
  }

 private:
  // allocate(), with the new page's bytes.
  Result<DirtyPage> allocate_page();
  // The txn that wrote committed page `pg` (its header stamp); 0, the widest
  // range, when the stamp cannot be trusted.
  uint64_t written_by(btree::PageNo pg) const;
  // The first page of a run of `pages` adjacent pages: reused where the pool,
  // after reclaiming, holds such a run; else new pages at the end.
  Result<btree::PageNo> allocate_run(uint64_t pages);

  // What a savepoint level keeps beside the page copies (DirtyPageCache).
  struct Level {
    size_t allocator_mark;
    FreeList::Mark free_list;
    // Runs of this txn freed while the level was open, given back to the
    // allocator only once no level may need their bytes again.
    std::vector<std::pair<btree::PageNo, uint64_t>> freed_runs;
  };

  io::PageFile& file_;
  const uint32_t page_size_;
  const uint64_t txn_id_;
  const uint64_t snapshot_high_water_;
  const bool verify_;
  const uint64_t run_reclaim_limit_;
  DirtyPageCache cache_;
  PageAllocator allocator_;
  const SpillPolicy spill_policy_;
  FreeList free_list_;
  uint64_t overflow_pages_written_ = 0;
  std::vector<Level> levels_;
};

}  // namespace ordo::engine
