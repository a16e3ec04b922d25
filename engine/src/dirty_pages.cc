#include "dirty_pages.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "ordo/btree/cursor.h"
#include "ordo/btree/endian.h"
#include "free_entry.h"
#include "snapshot_pages.h"

namespace ordo::engine {

using btree::PageNo;

DirtyPages::DirtyPages(io::PageFile& file, PageBuffers& buffers, const Meta& snapshot,
                       uint64_t txn_id, ReuseRule rule, uint64_t budget_bytes, bool verify)
    : file_(file),
      buffers_(buffers),
      page_size_(snapshot.page_size),
      txn_id_(txn_id),
      snapshot_high_water_(snapshot.page_high_water),
      rule_(std::move(rule)),
      // Each dirty page also costs its map entry and allocator header.
      budget_pages_(std::max<uint64_t>(
          dirty_budget_bytes(budget_bytes) / (snapshot.page_size + kPageOverheadBytes), 64)),
      verify_(verify),
      free_tree_(snapshot.free_tree),
      free_pages_(snapshot.free_pages),
      next_page_(snapshot.page_high_water) {}

DirtyPages::~DirtyPages() {
  for (auto& [pg, buf] : dirty_) buffers_.give(buf.data);
}

Result<const std::byte*> DirtyPages::read(PageNo pg) {
  auto it = dirty_.find(pg);
  if (it != dirty_.end()) return static_cast<const std::byte*>(it->second.data);
  if (is_spilled(pg)) return read_committed(file_, page_size_, next_page_, pg);
  return read_committed(file_, page_size_, snapshot_high_water_, pg);
}

Result<const std::byte*> DirtyPages::read_run(PageNo first, uint64_t pages) {
  // Runs of this txn lie past the snapshot's high-water mark and are on disk.
  return read_committed_run(file_, page_size_, next_page_, first, pages);
}

std::byte* DirtyPages::writable(PageNo pg) {
  auto it = dirty_.find(pg);
  if (it == dirty_.end()) {
    // A spilled page is touched again: read it back.
    const std::byte* on_disk = file_.data(pg * page_size_, page_size_);
    assert(is_spilled(pg) && on_disk != nullptr);
    std::byte* buf = buffers_.take();
    std::memcpy(buf, on_disk, page_size_);
    set_spilled(pg, false);
    it = dirty_.emplace(pg, Buffer{buf, 0}).first;
  }
  it->second.touched = ++touch_clock_;
  return it->second.data;
}

Result<PageNo> DirtyPages::make_dirty(PageNo pg) {
  if (is_dirty(pg)) return pg;
  ORDO_ASSIGN_OR_RETURN(const std::byte* src, read(pg));
  ORDO_ASSIGN_OR_RETURN(PageNo copy, allocate());
  std::byte* dst = dirty_.at(copy).data;
  std::memcpy(dst, src, page_size_);
  btree::store_u64(dst + btree::kOffTxnId, txn_id_);
  free_page(pg);
  return copy;
}

Result<PageNo> DirtyPages::allocate() {
  // Never while the free tree is being edited: reclaiming edits it too.
  if (pool_.empty() && !pool_locked_ && !in_free_tree_op_ && !reclaim_exhausted_) {
    ORDO_ASSIGN_OR_RETURN(bool got, reclaim_entry());
    if (!got) reclaim_exhausted_ = true;
  }
  PageNo pg;
  if (!pool_.empty() && !pool_locked_) {
    pg = pool_.back();
    pool_.pop_back();
    ++page_set_changes_;
  } else {
    pg = next_page_++;
  }
  // Contents are undefined: the tree formats every page it allocates.
  dirty_.emplace(pg, Buffer{buffers_.take(), ++touch_clock_});
  return pg;
}

void DirtyPages::free_page(PageNo pg) {
  ++page_set_changes_;
  auto it = dirty_.find(pg);
  if (it != dirty_.end()) {
    // Never visible to any snapshot: reusable within this txn at once.
    buffers_.give(it->second.data);
    dirty_.erase(it);
    pool_.push_back(pg);
  } else if (is_spilled(pg)) {
    set_spilled(pg, false);
    pool_.push_back(pg);
  } else {
    freed_.emplace_back(written_by(pg), pg);
  }
}

uint64_t DirtyPages::written_by(PageNo pg) const {
  // The btree read this page just before freeing it: the header is resident.
  const std::byte* p = file_.data(pg * page_size_, btree::kHeaderSize);
  if (p == nullptr) return 0;
  const uint64_t txn = btree::load_u64(p + btree::kOffTxnId);
  return txn < txn_id_ ? txn : 0;
}

Result<PageNo> DirtyPages::write_run(std::span<const std::span<const std::byte>> parts,
                                     uint64_t pages) {
  // A run needs adjacent pages: always past the high-water mark.
  const PageNo first = next_page_;
  next_page_ += pages;
  ORDO_RETURN_IF_ERROR(file_.grow_to(next_page_ * page_size_));
  std::vector<io::WriteSpan> spans;
  uint64_t offset = first * page_size_;
  for (auto part : parts) {
    if (part.empty()) continue;
    spans.push_back({offset, part.data(), part.size()});
    offset += part.size();
  }
  static const std::byte kZeros[btree::kMaxPageSize] = {};
  const uint64_t end = next_page_ * page_size_;
  if (offset < end) spans.push_back({offset, kZeros, end - offset});
  ORDO_RETURN_IF_ERROR(file_.write(spans, false));
  own_runs_.emplace(first, pages);
  overflow_pages_written_ += pages;
  return first;
}

void DirtyPages::free_run(PageNo first, uint64_t pages) {
  // A run of this txn was never visible: its pages are reusable at once.
  const bool own = own_runs_.erase(first) != 0;
  const uint64_t writer = own ? 0 : written_by(first);  // one txn wrote the whole run
  for (uint64_t i = 0; i < pages; ++i) {
    ++page_set_changes_;
    if (own) {
      pool_.push_back(first + i);
    } else {
      freed_.emplace_back(writer, first + i);
    }
  }
}

void DirtyPages::set_spilled(PageNo pg, bool spilled) {
  if (pg < snapshot_high_water_) {
    if (spilled) {
      spilled_reused_.insert(pg);
    } else {
      spilled_reused_.erase(pg);
    }
    return;
  }
  const uint64_t i = pg - snapshot_high_water_;
  if (i >= spilled_new_.size()) spilled_new_.resize(std::max<uint64_t>(i + 1, next_page_ - snapshot_high_water_));
  spilled_new_[i] = spilled;
}

Status DirtyPages::maybe_spill() {
  return dirty_.size() > budget_pages_ ? spill() : Status::ok();
}

Status DirtyPages::spill() {
  // The least recently touched leaves go, down to half the budget. Branches
  // stay: they are few and every operation passes through them.
  std::vector<std::pair<uint64_t, PageNo>> leaves;
  for (const auto& [pg, buf] : dirty_) {
    if (static_cast<btree::PageType>(buf.data[btree::kOffType]) == btree::PageType::kLeaf) {
      leaves.emplace_back(buf.touched, pg);
    }
  }
  const uint64_t target = budget_pages_ / 2;
  const uint64_t excess = dirty_.size() > target ? dirty_.size() - target : 0;
  const size_t n = std::min<size_t>(leaves.size(), excess);
  if (n == 0) return Status::ok();
  std::nth_element(leaves.begin(), leaves.begin() + (n - 1), leaves.end());
  leaves.resize(n);
  PageNo highest = 0;
  std::vector<io::WriteSpan> spans;
  spans.reserve(n);
  for (const auto& [touched, pg] : leaves) {
    spans.push_back({pg * page_size_, dirty_.at(pg).data, page_size_});
    highest = std::max(highest, pg);
  }
  ORDO_RETURN_IF_ERROR(file_.grow_to((highest + 1) * page_size_));
  ORDO_RETURN_IF_ERROR(file_.write(spans, false));
  for (const auto& [touched, pg] : leaves) {
    auto it = dirty_.find(pg);
    buffers_.give(it->second.data);
    dirty_.erase(it);
    set_spilled(pg, true);
  }
  pages_spilled_ += n;
  return Status::ok();
}

Result<bool> DirtyPages::reclaim_entry() {
  if (free_tree_.root == btree::kNullPage) return false;
  // Entries are gathered until they hold kReclaimBatchPages pages: deleting
  // them copies free-tree pages, which must not cost more than they yield.
  std::vector<std::string> keys;
  std::vector<PageNo> pages;
  {
    btree::Cursor cursor(*this, free_tree_);
    ORDO_RETURN_IF_ERROR(reclaim_from_.empty() ? cursor.first()
                                               : cursor.seek(ByteView(reclaim_from_)));
    // Entries a reader still pins are skipped, not waited for: pages written
    // after a reader's snapshot are reusable while it lives.
    while (cursor.valid() && pages.size() < kReclaimBatchPages) {
      ORDO_ASSIGN_OR_RETURN(const FreeEntry entry,
                            decode_free_entry(cursor.key(), cursor.value(), free_tree_.root));
      if (entry.freed_by > rule_.last_freeing_txn()) break;
      ORDO_ASSIGN_OR_RETURN(const bool reusable, rule_.reusable(entry));
      reclaim_from_ = cursor.key().str();
      reclaim_from_.push_back('\0');  // the least key after this one
      if (reusable) {
        keys.push_back(cursor.key().str());
        for (uint64_t i = 0; i < entry.page_count(); ++i) {
          const PageNo pg = entry.page(i);
          if (pg < kFirstDataPage || pg >= snapshot_high_water_) {
            return Status::corruption("free tree lists page " + std::to_string(pg) +
                                          " outside the database",
                                      free_tree_.root);
          }
          pages.push_back(pg);
        }
      }
      ORDO_RETURN_IF_ERROR(cursor.next());
    }
  }
  if (keys.empty()) return false;
  // The pages go to the pool first, so that deleting the entries (a
  // copy-on-write of free-tree pages) can use them rather than new pages.
  // Lowest page numbers are taken first, so reused pages stay adjacent.
  std::sort(pages.begin(), pages.end(), std::greater<>());
  pool_.insert(pool_.begin(), pages.begin(), pages.end());
  ++page_set_changes_;
  const bool was_in_op = in_free_tree_op_;
  in_free_tree_op_ = true;
  Status s;
  for (const std::string& key : keys) {
    bool found = false;
    s = btree::remove(*this, free_tree_, ByteView(key), &found);
    if (!s.is_ok()) break;
  }
  in_free_tree_op_ = was_in_op;
  ORDO_RETURN_IF_ERROR(s);
  free_pages_ -= std::min<uint64_t>(free_pages_, pages.size());
  pages_reused_ += pages.size();
  return true;
}

Status DirtyPages::record_free_pages() {
  // Chunks stay inline in the leaf, so the free tree never needs overflow runs.
  const size_t per_chunk = btree::max_inline_value_bytes(page_size_) / 8;
  std::vector<std::byte> value;
  // Editing the free tree may take pages from the pool and free others, which
  // changes the list being written: repeat until a round changes nothing. If
  // that takes long, stop taking pool pages, which always converges.
  for (int round = 0;; ++round) {
    if (round == 8) pool_locked_ = true;
    if (round == 16) return Status::corruption("free tree update did not converge");
    // Pages for this round's free-tree edits come from reusable ones where
    // possible; a page taken from the end here would be freed later and
    // add to the free tree for good. Reclaim before, never during, the edits.
    while (!pool_locked_ && !reclaim_exhausted_ && pool_.size() < kRecordReservePages) {
      ORDO_ASSIGN_OR_RETURN(bool got, reclaim_entry());
      if (!got) reclaim_exhausted_ = true;
    }
    // Pool pages no snapshot reaches: recorded as written by this txn, so
    // only the reuse rule's last-commit condition holds them.
    std::vector<std::pair<uint64_t, PageNo>> all(freed_);
    for (PageNo pg : pool_) all.emplace_back(txn_id_, pg);
    std::sort(all.begin(), all.end());
    const uint64_t changes_before = page_set_changes_;
    in_free_tree_op_ = true;
    std::vector<std::string> keys;
    for (size_t begin = 0; begin < all.size();) {
      const uint64_t writer = all[begin].first;
      size_t group_end = begin;
      while (group_end < all.size() && all[group_end].first == writer) ++group_end;
      for (uint32_t chunk = 0; begin < group_end; ++chunk) {
        const size_t end = std::min(group_end, begin + per_chunk);
        value.resize((end - begin) * 8);
        for (size_t i = begin; i < end; ++i) {
          btree::store_u64(value.data() + 8 * (i - begin), all[i].second);
        }
        keys.push_back(free_key(txn_id_, writer, chunk));
        ORDO_RETURN_IF_ERROR(
            btree::put(*this, free_tree_, ByteView(keys.back()), ByteView(value.data(), value.size())));
        begin = end;
      }
    }
    // Keys come out in key order: drop last round's entries not rewritten.
    for (const std::string& old : recorded_keys_) {
      if (std::binary_search(keys.begin(), keys.end(), old)) continue;
      bool found = false;
      ORDO_RETURN_IF_ERROR(btree::remove(*this, free_tree_, ByteView(old), &found));
    }
    recorded_keys_ = std::move(keys);
    in_free_tree_op_ = false;
    if (page_set_changes_ == changes_before) {
      free_pages_ += all.size();
      return Status::ok();
    }
  }
}

std::vector<io::WriteSpan> DirtyPages::write_spans() const {
  std::vector<io::WriteSpan> spans;
  spans.reserve(dirty_.size());
  for (const auto& [pg, buf] : dirty_) spans.push_back({pg * page_size_, buf.data, page_size_});
  return spans;
}

}  // namespace ordo::engine
