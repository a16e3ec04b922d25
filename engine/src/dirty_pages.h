// DirtyPages: the write txn's copy-on-write page store and page allocator.
//
// Allocation order: pages given back earlier in this txn, then pages from the
// free tree that no snapshot can reach any more (ReuseRule), then new pages
// past the high-water mark. Pages this txn frees are recorded in the free tree
// at commit, keyed by this txn's id and the txn that wrote each page.
//
// Memory: dirty pages past the txn's budget are spilled: the least recently
// touched leaves are written to their (new, unreachable) page numbers and
// dropped from memory; touching one again reads it back. Overflow runs are
// written as soon as they are made and never held in memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "meta.h"
#include "ordo/btree/page_access.h"
#include "ordo/btree/tree.h"
#include "ordo/io/backend.h"
#include "ordo/io/page_file.h"
#include "page_buffers.h"
#include "reuse_rule.h"

namespace ordo::engine {

class DirtyPages : public btree::PageWriter {
 public:
  // `rule`: which free-tree entries may be reused.
  // `budget_bytes`: dirty page memory before spilling.
  DirtyPages(io::PageFile& file, PageBuffers& buffers, const Meta& snapshot, uint64_t txn_id,
             ReuseRule rule, uint64_t budget_bytes, bool verify);
  bool verify_checksums() const override { return verify_; }
  ~DirtyPages() override;
  DirtyPages(const DirtyPages&) = delete;
  DirtyPages& operator=(const DirtyPages&) = delete;

  uint32_t page_size() const override { return page_size_; }
  uint64_t txn_id() const override { return txn_id_; }
  Result<const std::byte*> read(btree::PageNo pg) override;
  Result<const std::byte*> read_run(btree::PageNo first, uint64_t pages) override;
  bool is_dirty(btree::PageNo pg) const override {
    return dirty_.count(pg) != 0 || is_spilled(pg);
  }
  std::byte* writable(btree::PageNo pg) override;
  Result<btree::PageNo> make_dirty(btree::PageNo pg) override;
  Result<btree::PageNo> allocate() override;
  void free_page(btree::PageNo pg) override;
  Result<btree::PageNo> write_run(std::span<const std::span<const std::byte>> parts,
                                  uint64_t pages) override;
  void free_run(btree::PageNo first, uint64_t pages) override;

  // Spills when dirty pages exceed the budget. Call only where no page
  // pointer is held (between tree operations).
  Status maybe_spill();

  // Commit: writes every page freed by this txn, and every reusable page it
  // did not use, into the free tree under this txn's id.
  Status record_free_pages();

  btree::TreeRoot& free_tree() { return free_tree_; }
  uint64_t free_page_count() const { return free_pages_; }
  uint64_t next_page() const { return next_page_; }
  uint64_t pages_reused() const { return pages_reused_; }
  uint64_t pages_spilled() const { return pages_spilled_; }
  uint64_t overflow_pages_written() const { return overflow_pages_written_; }
  // One span per in-memory dirty page; the I/O backend sorts and coalesces them.
  std::vector<io::WriteSpan> write_spans() const;

 private:
  struct Buffer {
    std::byte* data;
    uint64_t touched;  // value of touch_clock_ at the last access
  };
  // Moves the oldest reusable free-tree entries, at least kReclaimBatchPages
  // pages where there are that many, into pool_. False when none.
  Result<bool> reclaim_entry();
  // The txn that wrote committed page `pg` (its header stamp); 0, the widest
  // range, when the stamp cannot be trusted.
  uint64_t written_by(btree::PageNo pg) const;
  // Memory a dirty page costs beyond its bytes, counted against the budget.
  static constexpr uint64_t kPageOverheadBytes = 128;
  // Dirty pages may use the budget but this reserve, which covers the txn's
  // other memory (freed-page lists, spill bitmap, buffer pool slack): 1/32 of
  // the budget, at most 8 MiB.
  static uint64_t dirty_budget_bytes(uint64_t budget_bytes) {
    return budget_bytes - std::min<uint64_t>(budget_bytes / 32, 8ull << 20);
  }
  // Reusable pages gathered before each round of the commit's free-tree update.
  static constexpr size_t kRecordReservePages = 16;
  static constexpr size_t kReclaimBatchPages = 16;
  Status spill();

  io::PageFile& file_;
  PageBuffers& buffers_;
  const uint32_t page_size_;
  const uint64_t txn_id_;
  const uint64_t snapshot_high_water_;
  const ReuseRule rule_;
  const uint64_t budget_pages_;
  const bool verify_;

  std::unordered_map<btree::PageNo, Buffer> dirty_;
  // Spilled pages (ours, on disk, not in memory). Nearly all lie past the
  // snapshot's high-water mark: one bit each there, so the bookkeeping of a
  // huge txn stays small next to its memory budget.
  bool is_spilled(btree::PageNo pg) const {
    if (pg < snapshot_high_water_) return spilled_reused_.count(pg) != 0;
    const uint64_t i = pg - snapshot_high_water_;
    return i < spilled_new_.size() && spilled_new_[i];
  }
  void set_spilled(btree::PageNo pg, bool spilled);
  std::vector<bool> spilled_new_;                      // index pg - snapshot high-water
  std::unordered_set<btree::PageNo> spilled_reused_;  // reused pages below it
  std::unordered_map<btree::PageNo, uint64_t> own_runs_;  // first page -> pages
  std::vector<btree::PageNo> pool_;   // reusable now; back() is taken first
  // Committed pages this txn replaced, with the txn that wrote each.
  std::vector<std::pair<uint64_t, btree::PageNo>> freed_;
  // Free-tree entries before this key were reclaimed or are still pinned by
  // a reader: the next reclaim seeks here rather than rescanning them.
  std::string reclaim_from_;
  std::vector<std::string> recorded_keys_;  // this txn's entries, last round
  btree::TreeRoot free_tree_;
  uint64_t free_pages_;
  uint64_t next_page_;
  uint64_t touch_clock_ = 0;
  uint64_t pages_reused_ = 0;
  uint64_t pages_spilled_ = 0;
  uint64_t overflow_pages_written_ = 0;
  bool in_free_tree_op_ = false;  // no reclaiming while editing the free tree
  bool pool_locked_ = false;      // allocate past the high-water mark only
  bool reclaim_exhausted_ = false;
  uint64_t page_set_changes_ = 0;  // pages taken from pool_ or freed, ever
};

}  // namespace ordo::engine
