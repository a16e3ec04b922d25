// PageAllocator: hands out the page numbers of a write txn. Pages reusable now
// (given back in this txn, or reclaimed from the free list) come first; then
// new pages at the file's end (the high-water mark). Bookkeeping only: it owns
// no page memory and does no I/O.
//
// Reusable pages are kept as extents (runs of adjacent page numbers, merged
// whenever they touch), so an overflow run can reuse freed space. A run takes
// the smallest extent that holds it (best fit); a single page comes from the
// smallest extent, its lowest page first. Small extents are used up first and
// big ones survive for big values, and pages taken one after another stay
// adjacent, as their writes then coalesce.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ordo/assert.h"
#include "ordo/btree/page_format.h"

namespace ordo::engine {

class PageAllocator {
 public:
  // `high_water`: the snapshot's page high-water mark, the first new page.
  explicit PageAllocator(uint64_t high_water) : next_page_(high_water) {}

  // A page number: the lowest page of the smallest reusable extent, or, when
  // there is none or the pool is locked, a new one.
  btree::PageNo take();
  // The first of `pages` adjacent pages: from the smallest reusable extent
  // that holds them, else from the last extent when it ends at the
  // high-water mark (with new pages for the rest), else new ones at the end. Given back whole with
  // give_back_run(), they are reusable at once.
  btree::PageNo take_run(uint64_t pages);

  // A page of this txn no snapshot can reach: reusable at once.
  void give_back(btree::PageNo pg) {
    ORDO_ASSERT(pg < next_page_);  // a page handed out or reclaimed, below the high-water
    add_extent(pg, 1);
  }
  // True when [first, first + pages) is a run from take_run(): its pages
  // become reusable. False (nothing changes) for any other run.
  bool give_back_run(btree::PageNo first, uint64_t pages);
  // Pages reclaimed from the free list, reusable now. False (nothing
  // changes) when a page is listed twice or is reusable already.
  [[nodiscard]] bool add_reclaimed(std::vector<btree::PageNo> pages);

  // From now on every take() and take_run() is new pages: used to make the
  // free list's commit-time update converge.
  void lock_pool() {
    ORDO_ASSERT(!pool_locked_);  // locked once, by the free list's last rounds
    pool_locked_ = true;
  }
  bool pool_locked() const { return pool_locked_; }
  // True when take() would make a new page although reclaiming might help.
  bool wants_reclaim() const { return pool_pages_ == 0 && !pool_locked_; }
  // True when take_run(pages) would make new pages although reclaiming might help.
  bool wants_reclaim_run(uint64_t pages) const {
    ORDO_ASSERT(pages >= 1);
    return !pool_locked_ && !fits_run(pages);
  }
  // Reusable pages not taken.
  uint64_t pool_size() const {
    // One by-size entry per extent, and every extent holds a page at least.
    ORDO_ASSERT(by_size_.size() == extents_.size() && pool_pages_ >= extents_.size());
    return pool_pages_;
  }
  // The reusable pages not taken, lowest first.
  std::vector<btree::PageNo> pool_pages() const;
  // The reusable extents: first page -> pages, disjoint and never adjacent.
  const std::map<btree::PageNo, uint64_t>& extents() const { return extents_; }
  // Changes every time the pool does: equal values mean an unchanged pool.
  uint64_t pool_changes() const { return pool_changes_; }
  // The page high-water mark after this txn: the next new page.
  uint64_t next_page() const { return next_page_; }
  // Whether [first, first + pages) is a run from take_run() not given back.
  bool owns_run(btree::PageNo first, uint64_t pages) const {
    auto it = own_runs_.find(first);
    return it != own_runs_.end() && it->second == pages;
  }

  // Savepoints: while recording, every change to the pool, the high-water
  // mark and the runs is logged, so that undo_to() can take the allocator
  // back to an earlier undo_mark() exactly. Cost: one entry per change.
  // Turning recording off forgets the log.
  void set_recording(bool on) {
    recording_ = on;
    if (!on) undo_.clear();
  }
  bool recording() const { return recording_; }
  size_t undo_mark() const {
    ORDO_ASSERT(recording_);  // a mark means nothing without the log
    return undo_.size();
  }
  // Reverses every change logged since `mark`, newest first.
  void undo_to(size_t mark);

 private:
  // One logged change; undo_to() applies its inverse.
  struct Undo {
    enum class Kind : uint8_t {
      kAdded,     // [first, first + pages) joined the pool
      kTaken,     // [first, first + pages) left the pool
      kGrew,      // the high-water mark rose by `pages`
      kRunOwned,  // own_runs_ gained first -> pages
      kRunGone,   // own_runs_ lost first -> pages
    };
    Kind kind;
    btree::PageNo first;
    uint64_t pages;
  };
  void log(Undo::Kind kind, btree::PageNo first, uint64_t pages) {
    if (recording_) undo_.push_back({kind, first, pages});
  }
  // Takes [first, first + pages), which lies inside one extent, out of the pool.
  void remove_extent(btree::PageNo first, uint64_t pages);

  bool fits_run(uint64_t pages) const {
    ORDO_ASSERT(by_size_.size() == extents_.size());  // the two indexes of one pool
    return !by_size_.empty() && by_size_.rbegin()->first >= pages;
  }
  // Makes [first, first + pages) reusable, merged with the extents it touches.
  void add_extent(btree::PageNo first, uint64_t pages);
  // Takes the lowest `pages` pages of the extent starting at `first`.
  btree::PageNo take_from(btree::PageNo first, uint64_t pages);

  std::map<btree::PageNo, uint64_t> extents_;             // first page -> pages
  std::set<std::pair<uint64_t, btree::PageNo>> by_size_;  // (pages, first page)
  std::unordered_map<btree::PageNo, uint64_t> own_runs_;  // first page -> pages
  uint64_t pool_pages_ = 0;
  uint64_t next_page_;
  uint64_t pool_changes_ = 0;
  bool pool_locked_ = false;
  bool recording_ = false;
  std::vector<Undo> undo_;
};

}  // namespace ordo::engine
