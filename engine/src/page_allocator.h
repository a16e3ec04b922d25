// PageAllocator: hands out the page numbers of a write txn. Pages reusable now
// (given back in this txn, or reclaimed from the free list) come first, lowest
// reclaimed page first; then new pages at the file's end (the high-water
// mark). Bookkeeping only: it owns no page memory and does no I/O.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ordo/btree/page_format.h"

namespace ordo::engine {

class PageAllocator {
 public:
  // `high_water`: the snapshot's page high-water mark, the first new page.
  explicit PageAllocator(uint64_t high_water) : next_page_(high_water) {}

  // A page number: the newest reusable page, or, when there is none or the
  // pool is locked, a new one.
  btree::PageNo take() {
    if (!pool_.empty() && !pool_locked_) {
      const btree::PageNo pg = pool_.back();
      pool_.pop_back();
      ++pool_changes_;
      return pg;
    }
    return next_page_++;
  }
  // `pages` adjacent new pages at the end; the first one's number. Given back
  // whole with give_back_run(), they are reusable at once.
  btree::PageNo take_run(uint64_t pages);

  // A page of this txn no snapshot can reach: reusable at once.
  void give_back(btree::PageNo pg) {
    pool_.push_back(pg);
    ++pool_changes_;
  }
  // True when [first, first + pages) is a run from take_run(): its pages
  // become reusable. False (nothing changes) for any other run.
  bool give_back_run(btree::PageNo first, uint64_t pages);
  // Pages reclaimed from the free list, reusable now: taken after those
  // given back, lowest first, so reused pages stay adjacent.
  void add_reclaimed(std::vector<btree::PageNo> pages);

  // From now on every take() is a new page: used to make the free list's
  // commit-time update converge.
  void lock_pool() { pool_locked_ = true; }
  bool pool_locked() const { return pool_locked_; }
  // True when take() would make a new page although reclaiming might help.
  bool wants_reclaim() const { return pool_.empty() && !pool_locked_; }
  // Reusable pages not taken (in taking order reversed: back() goes first).
  const std::vector<btree::PageNo>& pool() const { return pool_; }
  // Changes every time the pool does: equal values mean an unchanged pool.
  uint64_t pool_changes() const { return pool_changes_; }
  // The page high-water mark after this txn: the next new page.
  uint64_t next_page() const { return next_page_; }

 private:
  std::vector<btree::PageNo> pool_;  // back() is taken first
  std::unordered_map<btree::PageNo, uint64_t> own_runs_;  // first page -> pages
  uint64_t next_page_;
  uint64_t pool_changes_ = 0;
  bool pool_locked_ = false;
};

}  // namespace ordo::engine
