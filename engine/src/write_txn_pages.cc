#include "write_txn_pages.h"

#include <cstring>

#include "ordo/assert.h"
#include "ordo/btree/endian.h"
#include "snapshot_pages.h"

namespace ordo::engine {

using btree::PageNo;

WriteTxnPages::WriteTxnPages(io::PageFile& file, PageBuffers& buffers, const Meta& snapshot,
                             uint64_t txn_id, ReuseRule rule, uint64_t budget_bytes, bool verify,
                             uint64_t run_reclaim_limit)
    : file_(file),
      page_size_(snapshot.page_size),
      txn_id_(txn_id),
      snapshot_high_water_(snapshot.page_high_water),
      verify_(verify),
      run_reclaim_limit_(run_reclaim_limit),
      cache_(file, buffers, snapshot.page_size, snapshot.page_high_water),
      allocator_(snapshot.page_high_water),
      spill_policy_(snapshot.page_size, budget_bytes),
      free_list_(snapshot.free_tree, snapshot.free_pages, snapshot.page_high_water, txn_id,
                 std::move(rule)) {
  // A meta that passed decode_meta, and the txn after it.
  ORDO_ASSERT(btree::valid_page_size(page_size_) && snapshot_high_water_ >= kFirstDataPage);
  ORDO_ASSERT(txn_id > snapshot.txn_id);
}

Result<const std::byte*> WriteTxnPages::read(PageNo pg) {
  if (const std::byte* p = cache_.find(pg)) return p;
  ORDO_ASSERT(snapshot_high_water_ <= allocator_.next_page());
  if (cache_.is_spilled(pg)) return read_committed(file_, page_size_, allocator_.next_page(), pg);
  return read_committed(file_, page_size_, snapshot_high_water_, pg);
}

Result<const std::byte*> WriteTxnPages::read_run(PageNo first, uint64_t pages) {
  // Runs are never cached: those of this txn were written by write_run (at
  // reused or new page numbers, all below next_page()), the others committed.
  return read_committed_run(file_, page_size_, allocator_.next_page(), first, pages);
}

Result<btree::PageWriter::DirtyPage> WriteTxnPages::copy_clean(PageNo pg, const std::byte* clean) {
  // Not dirty, so read_clean found it among the snapshot's pages.
  ORDO_ASSERT(pg >= kFirstDataPage && pg < snapshot_high_water_);
  ORDO_DCHECK(!is_dirty(pg));
  ORDO_ASSIGN_OR_RETURN(const DirtyPage copy, allocate_page());
  ORDO_ASSERT(copy.page != pg);
  std::memcpy(copy.data, clean, page_size_);
  btree::store_u64(copy.data + btree::kOffTxnId, txn_id_);
  free_page(pg);
  return copy;
}

Result<PageNo> WriteTxnPages::allocate() {
  ORDO_ASSIGN_OR_RETURN(const DirtyPage page, allocate_page());
  return page.page;
}

Result<btree::PageWriter::DirtyPage> WriteTxnPages::allocate_page() {
  if (allocator_.wants_reclaim() && free_list_.may_reclaim()) {
    ORDO_RETURN_IF_ERROR(free_list_.reclaim(*this, allocator_).status());
  }
  const PageNo pg = allocator_.take();
  ORDO_ASSERT(pg >= kFirstDataPage && pg < allocator_.next_page());
  // A page handed out twice would hold two pages' contents (a hash lookup:
  // debug builds; add() below catches the in-memory case always).
  ORDO_DCHECK(!cache_.contains(pg));
  // Contents are undefined: the tree formats every page it allocates.
  return DirtyPage{pg, cache_.add(pg)};
}

void WriteTxnPages::free_page(PageNo pg) {
  // The tree frees pages it read: committed ones inside the snapshot, or its own.
  ORDO_ASSERT(pg >= kFirstDataPage && pg < allocator_.next_page());
  if (cache_.drop(pg)) {
    // Never visible to any snapshot: reusable within this txn at once.
    allocator_.give_back(pg);
  } else {
    free_list_.add_freed(written_by(pg), pg);
  }
}

uint64_t WriteTxnPages::written_by(PageNo pg) const {
  // The btree read this page just before freeing it: the header is resident.
  const std::byte* p = file_.data(pg * page_size_, btree::kHeaderSize);
  if (p == nullptr) return 0;
  const uint64_t txn = btree::load_u64(p + btree::kOffTxnId);
  ORDO_ASSERT(txn_id_ != 0);  // 0 stands for "unknown", below every txn
  return txn < txn_id_ ? txn : 0;
}

Result<PageNo> WriteTxnPages::allocate_run(uint64_t pages) {
  ORDO_ASSERT(pages >= 1);
  // Reclaims until an extent holds the run. Free runs merge only once both
  // are in the pool, so a run of a size not freed before needs a wide look
  // (Options::run_reclaim_limit_pages). Bounded: pages reclaimed but not used
  // go back into the free tree at commit, so a free tree fragmented past that
  // is not pulled into memory (and rewritten) for one value.
  const uint64_t limit = free_list_.pages_reused() + run_reclaim_limit_;
  while (allocator_.wants_reclaim_run(pages) && free_list_.may_reclaim() &&
         free_list_.pages_reused() < limit) {
    ORDO_ASSIGN_OR_RETURN(const bool reclaimed, free_list_.reclaim(*this, allocator_));
    if (!reclaimed) break;
  }
  return allocator_.take_run(pages);
}

Result<PageNo> WriteTxnPages::write_run(std::span<const std::span<const std::byte>> parts,
                                        uint64_t pages) {
  // A reused run is written now, before commit. That is safe only because
  // reusable pages are reachable by no snapshot in use and not by the
  // previous meta (ReuseRule), exactly as for a spilled page: a crash before
  // the meta lands leaves every page a valid meta reaches untouched. A torn
  // reused run is caught by the one-sync check at open (recovery.cc).
  ORDO_ASSIGN_OR_RETURN(const PageNo first, allocate_run(pages));
  ORDO_ASSERT(first >= kFirstDataPage && first + pages <= allocator_.next_page());
  const uint64_t end = (first + pages) * page_size_;
  ORDO_RETURN_IF_ERROR(file_.grow_to(end));
  std::vector<io::WriteSpan> spans;
  uint64_t offset = first * page_size_;
  for (auto part : parts) {
    if (part.empty()) continue;
    spans.push_back({offset, part.data(), part.size()});
    offset += part.size();
  }
  // The parts fit the run; the padding, under a page, comes from kZeros.
  ORDO_ASSERT(offset <= end && end - offset <= btree::kMaxPageSize);
  static const std::byte kZeros[btree::kMaxPageSize] = {};
  if (offset < end) spans.push_back({offset, kZeros, end - offset});
  ORDO_RETURN_IF_ERROR(file_.write(spans, false));
  overflow_pages_written_ += pages;
  return first;
}

void WriteTxnPages::free_run(PageNo first, uint64_t pages) {
  ORDO_ASSERT(pages >= 1);  // overflow_pages() counts the header's page
  if (!levels_.empty() && allocator_.owns_run(first, pages)) {
    // Its bytes are on disk only: reused now, a later write would overwrite
    // them while a rollback may still need them.
    levels_.back().freed_runs.emplace_back(first, pages);
    return;
  }
  // A run of this txn was never visible: its pages are reusable at once.
  if (allocator_.give_back_run(first, pages)) return;
  const uint64_t writer = written_by(first);  // one txn wrote the whole run
  for (uint64_t i = 0; i < pages; ++i) free_list_.add_freed(writer, first + i);
}

void WriteTxnPages::push_level() {
  if (levels_.empty()) allocator_.set_recording(true);
  levels_.push_back(Level{allocator_.undo_mark(), free_list_.mark(), {}});
  cache_.push_level();
  ORDO_ASSERT(cache_.levels() == levels_.size());
}

void WriteTxnPages::rollback_to_level(size_t level) {
  ORDO_ASSERT(level < levels_.size() && cache_.levels() == levels_.size());
  // Innermost first: an outer level's state of a page is the older one.
  for (;;) {
    cache_.rollback_level();
    if (levels_.size() == level + 1) break;
    cache_.release_level();  // empty now
    levels_.pop_back();
  }
  Level& l = levels_.back();
  allocator_.undo_to(l.allocator_mark);
  free_list_.restore(l.free_list);
  // Runs freed since were taken since (the undo gave their pages back) or
  // are in use again.
  l.freed_runs.clear();
  ORDO_ASSERT(cache_.levels() == levels_.size() && levels_.size() == level + 1);
}

void WriteTxnPages::release_level(size_t level) {
  ORDO_ASSERT(level < levels_.size() && cache_.levels() == levels_.size());
  while (levels_.size() > level) {
    cache_.release_level();
    Level inner = std::move(levels_.back());
    levels_.pop_back();
    if (!levels_.empty()) {
      auto& outer = levels_.back().freed_runs;
      outer.insert(outer.end(), inner.freed_runs.begin(), inner.freed_runs.end());
      continue;
    }
    allocator_.set_recording(false);
    for (const auto& [first, pages] : inner.freed_runs) {
      const bool given = allocator_.give_back_run(first, pages);
      ORDO_ASSERT(given);  // owned when freed, and nothing since gave it back
    }
  }
  ORDO_ASSERT(cache_.levels() == levels_.size());
}

}  // namespace ordo::engine
