#include "page_allocator.h"

#include <algorithm>
#include <functional>

namespace ordo::engine {

btree::PageNo PageAllocator::take_run(uint64_t pages) {
  // A run needs adjacent pages: always past the high-water mark.
  const btree::PageNo first = next_page_;
  next_page_ += pages;
  own_runs_.emplace(first, pages);
  return first;
}

bool PageAllocator::give_back_run(btree::PageNo first, uint64_t pages) {
  if (own_runs_.erase(first) == 0) return false;
  for (uint64_t i = 0; i < pages; ++i) give_back(first + i);
  return true;
}

void PageAllocator::add_reclaimed(std::vector<btree::PageNo> pages) {
  std::sort(pages.begin(), pages.end(), std::greater<>());
  pool_.insert(pool_.begin(), pages.begin(), pages.end());
  ++pool_changes_;
}

}  // namespace ordo::engine
