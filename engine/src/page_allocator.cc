#include "page_allocator.h"

#include <algorithm>
#include <iterator>

#include "ordo/assert.h"

namespace ordo::engine {

using btree::PageNo;

PageNo PageAllocator::take() {
  if (pool_pages_ == 0 || pool_locked_) {
    log(Undo::Kind::kGrew, next_page_, 1);
    return next_page_++;
  }
  ORDO_ASSERT(!by_size_.empty());  // pool_pages_ counts the extents' pages
  return take_from(by_size_.begin()->second, 1);
}

PageNo PageAllocator::take_run(uint64_t pages) {
  ORDO_ASSERT(pages > 0);
  PageNo first;
  auto fit = by_size_.lower_bound({pages, 0});
  if (!pool_locked_ && fit != by_size_.end()) {
    first = take_from(fit->second, pages);
  } else if (!pool_locked_ && !extents_.empty() &&
             extents_.rbegin()->first + extents_.rbegin()->second == next_page_) {
    // The last free extent ends at the high-water mark: the run starts there
    // and only its rest is new, so a run too big for any extent still takes
    // the free space at the end of the file.
    const auto [tail, tail_pages] = *extents_.rbegin();
    first = take_from(tail, tail_pages);
    log(Undo::Kind::kGrew, next_page_, pages - tail_pages);
    next_page_ += pages - tail_pages;
  } else {
    first = next_page_;
    log(Undo::Kind::kGrew, next_page_, pages);
    next_page_ += pages;
  }
  own_runs_.emplace(first, pages);
  log(Undo::Kind::kRunOwned, first, pages);
  ORDO_ASSERT(first + pages <= next_page_);
  return first;
}

PageNo PageAllocator::take_from(PageNo first, uint64_t pages) {
  auto it = extents_.find(first);
  ORDO_ASSERT(it != extents_.end() && it->second >= pages);
  const uint64_t size = it->second;
  // The tail stays in the same nodes: no allocation per page taken.
  auto by_size = by_size_.extract({size, first});
  auto extent = extents_.extract(it);
  if (size > pages) {
    extent.key() = first + pages;
    extent.mapped() = size - pages;
    extents_.insert(std::move(extent));
    by_size.value() = {size - pages, first + pages};
    by_size_.insert(std::move(by_size));
  }
  ORDO_ASSERT(pool_pages_ >= pages);
  pool_pages_ -= pages;
  ++pool_changes_;
  log(Undo::Kind::kTaken, first, pages);
  return first;
}

void PageAllocator::add_extent(PageNo first, uint64_t pages) {
  // Only pages below the high-water mark were ever handed out or are listed free.
  ORDO_ASSERT(pages > 0 && first + pages <= next_page_);
  log(Undo::Kind::kAdded, first, pages);
  PageNo end = first + pages;
  auto next = extents_.lower_bound(first);
  // A page given back twice would be handed out twice: never go on.
  ORDO_ASSERT(next == extents_.end() || end <= next->first);
  if (next != extents_.end() && next->first == end) {
    end += next->second;
    by_size_.erase({next->second, next->first});
    next = extents_.erase(next);
  }
  if (next != extents_.begin()) {
    auto prev = std::prev(next);
    ORDO_ASSERT(prev->first + prev->second <= first);
    if (prev->first + prev->second == first) {
      first = prev->first;
      by_size_.erase({prev->second, prev->first});
      extents_.erase(prev);
    }
  }
  extents_.emplace(first, end - first);
  by_size_.emplace(end - first, first);
  pool_pages_ += pages;
  ++pool_changes_;
}

bool PageAllocator::give_back_run(PageNo first, uint64_t pages) {
  auto it = own_runs_.find(first);
  if (it == own_runs_.end()) return false;
  ORDO_ASSERT(it->second == pages);
  own_runs_.erase(it);
  log(Undo::Kind::kRunGone, first, pages);
  add_extent(first, pages);
  return true;
}

bool PageAllocator::add_reclaimed(std::vector<PageNo> pages) {
  std::sort(pages.begin(), pages.end());
  // The pages come from the file: a damaged free tree may list one twice.
  for (size_t i = 0; i < pages.size(); ++i) {
    if (i > 0 && pages[i] == pages[i - 1]) return false;
    auto next = extents_.upper_bound(pages[i]);
    if (next != extents_.begin() && std::prev(next)->first + std::prev(next)->second > pages[i]) {
      return false;
    }
  }
  for (size_t begin = 0; begin < pages.size();) {
    size_t end = begin + 1;
    while (end < pages.size() && pages[end] == pages[end - 1] + 1) ++end;
    add_extent(pages[begin], end - begin);
    begin = end;
  }
  ORDO_ASSERT(pool_pages_ >= pages.size());
  ++pool_changes_;
  return true;
}

void PageAllocator::remove_extent(PageNo first, uint64_t pages) {
  auto it = extents_.upper_bound(first);
  // The pages were added as one piece: one extent holds them all.
  ORDO_ASSERT(it != extents_.begin());
  --it;
  const PageNo start = it->first;
  const uint64_t size = it->second;
  ORDO_ASSERT(start <= first && first + pages <= start + size);
  by_size_.erase({size, start});
  extents_.erase(it);
  // The pieces left stay maximal: the extent touched no other.
  if (first > start) {
    extents_.emplace(start, first - start);
    by_size_.emplace(first - start, start);
  }
  const PageNo end = start + size;
  if (first + pages < end) {
    extents_.emplace(first + pages, end - first - pages);
    by_size_.emplace(end - first - pages, first + pages);
  }
  ORDO_ASSERT(pool_pages_ >= pages);
  pool_pages_ -= pages;
  ++pool_changes_;
}

void PageAllocator::undo_to(size_t mark) {
  ORDO_ASSERT(recording_ && mark <= undo_.size());
  // The inverses are not logged: they remove what they undo.
  recording_ = false;
  while (undo_.size() > mark) {
    const Undo u = undo_.back();
    undo_.pop_back();
    switch (u.kind) {
      case Undo::Kind::kAdded:
        remove_extent(u.first, u.pages);
        break;
      case Undo::Kind::kTaken:
        add_extent(u.first, u.pages);
        break;
      case Undo::Kind::kGrew:
        // Changes are undone newest first: these pages are the last ones.
        ORDO_ASSERT(next_page_ == u.first + u.pages);
        next_page_ = u.first;
        break;
      case Undo::Kind::kRunOwned:
        ORDO_ASSERT(own_runs_.count(u.first) == 1);
        own_runs_.erase(u.first);
        break;
      case Undo::Kind::kRunGone:
        own_runs_.emplace(u.first, u.pages);
        break;
    }
  }
  recording_ = true;
}

std::vector<PageNo> PageAllocator::pool_pages() const {
  std::vector<PageNo> out;
  out.reserve(pool_pages_);
  for (const auto& [first, pages] : extents_) {
    for (uint64_t i = 0; i < pages; ++i) out.push_back(first + i);
  }
  ORDO_ASSERT(out.size() == pool_pages_);
  return out;
}

}  // namespace ordo::engine
