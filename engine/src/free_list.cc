#include "free_list.h"

#include <algorithm>

#include "free_entry.h"
#include "meta.h"
#include "ordo/assert.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/endian.h"

namespace ordo::engine {

using btree::PageNo;

bool FreeList::skipped_entries_wait(btree::PageWriter& pages_io) const {
  ORDO_ASSERT(!in_edit_);  // The cursor would read pages an edit is changing.
  btree::Cursor cursor(pages_io, tree_);
  if (!cursor.first().is_ok()) return false;
  while (cursor.valid() && cursor.key().str() < rule_.held_before()) {
    Result<FreeEntry> entry = decode_free_entry(cursor.key(), cursor.value(), tree_.root);
    if (!entry.is_ok() || !rule_.waits_for_checkpoint(*entry)) return false;
    if (!cursor.next().is_ok()) return false;
  }
  return true;
}

Result<bool> FreeList::reclaim(btree::PageWriter& pages_io, PageAllocator& allocator) {
  // Reclaiming deletes free-tree entries: never in the middle of another edit of it.
  ORDO_ASSERT(!in_edit_);
  if (tree_.root == btree::kNullPage) {
    exhausted_ = true;
    return false;
  }
  // The entries the rule skips must still wait, or their pages would leak
  // until the next checkpoint (an O(entries) walk: debug builds only).
  ORDO_DCHECK(pages_reused_ != 0 || reclaim_from_ != rule_.held_before() ||
              skipped_entries_wait(pages_io));
  // Entries are gathered until they hold kReclaimBatchPages pages: deleting
  // them copies free-tree pages, which must not cost more than they yield.
  std::vector<std::string> keys;
  std::vector<PageNo> pages;
  {
    btree::Cursor cursor(pages_io, tree_);
    ORDO_RETURN_IF_ERROR(reclaim_from_.empty() ? cursor.first()
                                               : cursor.seek(ByteView(reclaim_from_)));
    // Entries a reader still pins are skipped, not waited for: pages written
    // after a reader's snapshot are reusable while it lives.
    while (cursor.valid() && pages.size() < kReclaimBatchPages) {
      ORDO_ASSIGN_OR_RETURN(const FreeEntry entry,
                            decode_free_entry(cursor.key(), cursor.value(), tree_.root));
      if (entry.freed_by >= txn_id_) break;  // this txn's own, recorded at commit
      ORDO_ASSIGN_OR_RETURN(const bool reusable, rule_.reusable(entry));
      reclaim_from_ = cursor.key().str();
      reclaim_from_.push_back('\0');  // the least key after this one
      // A reader may end before the next txn: its entries are looked at again.
      if (!reusable && !rule_.waits_for_checkpoint(entry)) reader_pinned_seen_ = true;
      if (!reader_pinned_seen_) held_before_ = reclaim_from_;
      if (reusable) {
        keys.push_back(cursor.key().str());
        for (uint64_t i = 0; i < entry.page_count(); ++i) {
          const PageNo pg = entry.page(i);
          if (pg < kFirstDataPage || pg >= high_water_) {
            return Status::corruption(
                "free tree lists page " + std::to_string(pg) + " outside the database", tree_.root);
          }
          pages.push_back(pg);
        }
      }
      ORDO_RETURN_IF_ERROR(cursor.next());
    }
  }
  if (keys.empty()) {
    exhausted_ = true;
    return false;
  }
  // The pages go to the allocator first, so that deleting the entries (a
  // copy-on-write of free-tree pages) can use them rather than new pages.
  const uint64_t reclaimed = pages.size();
  if (!allocator.add_reclaimed(std::move(pages))) {
    return Status::corruption("free tree lists a page twice", tree_.root);
  }
  const bool was_in_edit = in_edit_;
  in_edit_ = true;
  Status s;
  for (const std::string& key : keys) {
    bool found = false;
    s = btree::remove(pages_io, tree_, ByteView(key), &found);
    if (!s.is_ok()) break;
  }
  in_edit_ = was_in_edit;
  ORDO_RETURN_IF_ERROR(s);
  ORDO_ASSERT(reclaimed > 0);  // Each reusable entry lists a page (decode_free_entry).
  free_pages_ -= std::min<uint64_t>(free_pages_, reclaimed);
  pages_reused_ += reclaimed;
  return true;
}

Status FreeList::record(btree::PageWriter& pages_io, PageAllocator& allocator) {
  // Chunks stay inline in the leaf, so the free tree never needs overflow runs.
  const size_t per_chunk = btree::max_inline_value_bytes(pages_io.page_size()) / 8;
  ORDO_ASSERT(per_chunk >= 1 && !in_edit_);
  std::vector<std::byte> value;
  // Editing the free tree may take pages from the pool and free others, which
  // changes the list being written: repeat until a round changes nothing. If
  // that takes long, stop taking pool pages, which always converges.
  for (int round = 0;; ++round) {
    if (round == 8) allocator.lock_pool();
    if (round == 16) return Status::corruption("free tree update did not converge");
    // Pages for this round's free-tree edits come from reusable ones where
    // possible; a page taken from the end here would be freed later and
    // add to the free tree for good. Reclaim before, never during, the edits.
    while (!allocator.pool_locked() && may_reclaim() &&
           allocator.pool_size() < kRecordReservePages) {
      ORDO_RETURN_IF_ERROR(reclaim(pages_io, allocator).status());
    }
    // Pool pages no snapshot reaches: recorded as written by this txn
    // (written_by == freed_by), which the reuse rule lets the next txn take.
    std::vector<std::pair<uint64_t, PageNo>> all(freed_);
    for (PageNo pg : allocator.pool_pages()) all.emplace_back(txn_id_, pg);
    std::sort(all.begin(), all.end());
    const uint64_t pool_before = allocator.pool_changes();
    const size_t freed_before = freed_.size();
    in_edit_ = true;
    std::vector<std::string> keys;
    for (size_t begin = 0; begin < all.size();) {
      const uint64_t writer = all[begin].first;
      size_t group_end = begin;
      while (group_end < all.size() && all[group_end].first == writer) ++group_end;
      // free_key() requires written_by <= freed_by: pages of earlier txns, or pool pages.
      ORDO_ASSERT(writer <= txn_id_);
      for (uint32_t chunk = 0; begin < group_end; ++chunk) {
        const size_t end = std::min(group_end, begin + per_chunk);
        value.resize((end - begin) * 8);
        for (size_t i = begin; i < end; ++i) {
          btree::store_u64(value.data() + 8 * (i - begin), all[i].second);
        }
        keys.push_back(free_key(txn_id_, writer, chunk));
        ORDO_RETURN_IF_ERROR(btree::put(pages_io, tree_, ByteView(keys.back()),
                                        ByteView(value.data(), value.size())));
        begin = end;
      }
    }
    // Keys come out in key order: drop last round's entries not rewritten.
    for (const std::string& old : recorded_keys_) {
      if (std::binary_search(keys.begin(), keys.end(), old)) continue;
      bool found = false;
      ORDO_RETURN_IF_ERROR(btree::remove(pages_io, tree_, ByteView(old), &found));
    }
    recorded_keys_ = std::move(keys);
    in_edit_ = false;
    if (allocator.pool_changes() == pool_before && freed_.size() == freed_before) {
      free_pages_ += all.size();
      return Status::ok();
    }
  }
}

}  // namespace ordo::engine
