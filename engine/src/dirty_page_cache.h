// DirtyPageCache: the pages a write txn has written and not yet committed.
// Each is in memory (a PageBuffers buffer) or, once spilled, on disk at its
// own page number, which no snapshot reaches; touching a spilled page reads
// it back into memory.
//
// Used only by the txn holding the writer lock.
#pragma once

#include <tsl/robin_map.h>

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ordo/assert.h"
#include "ordo/btree/page_format.h"
#include "ordo/io/backend.h"
#include "ordo/io/page_file.h"
#include "ordo/status.h"
#include "page_buffers.h"
#include "spill_policy.h"

namespace ordo::engine {

// The dirty page table's hash. The table's slot is the hash's low bits: page
// numbers are mixed first (Fibonacci hashing), or pages a stride apart (every
// other page, every 1024th) would crowd a few slots and make each lookup a
// long probe.
struct DirtyPageHash {
  size_t operator()(btree::PageNo pg) const {
    return static_cast<size_t>((pg * 0x9E3779B97F4A7C15ull) >> 32);
  }
};

class DirtyPageCache {
 public:
  // `high_water`: the snapshot's page high-water mark. `file` and `buffers`
  // must outlive the cache.
  DirtyPageCache(io::PageFile& file, PageBuffers& buffers, uint32_t page_size, uint64_t high_water)
      : file_(file), buffers_(buffers), page_size_(page_size), high_water_(high_water) {}
  // Gives every buffer back to `buffers`.
  ~DirtyPageCache();
  DirtyPageCache(const DirtyPageCache&) = delete;
  DirtyPageCache& operator=(const DirtyPageCache&) = delete;

  // The in-memory copy of `pg`, or nullptr when it is not in memory.
  const std::byte* find(btree::PageNo pg) const {
    auto it = dirty_.find(pg);
    return it == dirty_.end() ? nullptr : it->second.data;
  }
  bool is_spilled(btree::PageNo pg) const {
    if (pg < high_water_) return spilled_reused_.count(pg) != 0;
    const uint64_t i = pg - high_water_;
    return i < spilled_new_.size() && spilled_new_[i];
  }
  // True when this txn wrote `pg` (in memory or spilled).
  bool contains(btree::PageNo pg) const { return dirty_.count(pg) != 0 || is_spilled(pg); }

  // Makes newly allocated page `pg` dirty; its contents are undefined.
  std::byte* add(btree::PageNo pg) {
    auto [it, added] = dirty_.emplace(pg, Buffer{buffers_.take(), 0, 0});
    ORDO_ASSERT(added);  // A page allocated twice; its new buffer would leak.
    Buffer& b = it.value();
    b.touched = ++touch_clock_;
    if (!levels_.empty()) {
      // New since the innermost savepoint: a rollback forgets it (unless it
      // had a state there already, which this keeps).
      levels_.back().prior.try_emplace(pg, nullptr);
      b.level_tag = levels_.back().tag;
    }
    return b.data;
  }
  // The writable copy of dirty page `pg`, read back first if spilled.
  // REQUIRES: contains(pg).
  std::byte* writable(btree::PageNo pg);
  // writable(pg) when contains(pg), else nullptr: one lookup for both.
  std::byte* writable_if_contained(btree::PageNo pg);
  // True when writable(pg) would return `data` with nothing to do first: the
  // page is in memory and the innermost savepoint level has its prior state.
  bool writable_in_place(btree::PageNo pg, const std::byte* data) const {
    auto it = dirty_.find(pg);
    return it != dirty_.end() && it->second.data == data && prior_kept(it->second);
  }
  // Forgets `pg`: true when it was this txn's page (its memory is released),
  // false when it is not in the cache.
  bool drop(btree::PageNo pg);

  // Pages in memory.
  uint64_t size() const { return dirty_.size(); }
  // Writes the leaves `policy` chooses to their page numbers and releases
  // their memory. `next_page`: the allocator's high-water mark (sizes the
  // spill bookkeeping). Call only where no page pointer is held. Returns
  // Full/IOError as io::PageFile::write.
  Status spill(const SpillPolicy& policy, uint64_t next_page);
  uint64_t pages_spilled() const { return pages_spilled_; }

  // One span per in-memory page; the write backend sorts and coalesces them.
  std::vector<io::WriteSpan> write_spans() const;

  // Savepoints (WriteTxn::savepoint). Each level keeps, for every page whose
  // state changed since it began, the state it had then: absent, or its bytes
  // (a copy made on the first change; a spilled page's read back from the
  // file, since a later spill may overwrite it). Pages a level never touched
  // cost nothing. The copies are in memory, outside the spill budget.
  void push_level();
  // Gives every page the innermost level touched its state at that level's
  // start; the level stays, now empty.
  void rollback_level();
  // Ends the innermost level keeping the changes: its states go to the level
  // around it (where that one has none of its own), or are freed.
  void release_level();
  size_t levels() const { return levels_.size(); }
  // Pages whose earlier states the levels hold.
  uint64_t level_pages() const {
    uint64_t n = 0;
    for (const Level& l : levels_) n += l.prior.size();
    return n;
  }

 private:
  struct Buffer {
    std::byte* data;
    uint64_t touched;    // value of touch_clock_ at the last access
    uint64_t level_tag;  // the level whose `prior` has this page, if it is that level's tag
  };
  struct Level {
    uint64_t tag;
    // Page -> its bytes when the level began (a buffer of buffers_), or
    // nullptr when it was no page of this txn then.
    std::unordered_map<btree::PageNo, std::byte*> prior;
  };
  // True when the innermost savepoint level (if any) has `b`'s page's state
  // at its start, so a write through `b` needs no copy first (writable()).
  bool prior_kept(const Buffer& b) const {
    return levels_.empty() || b.level_tag == levels_.back().tag;
  }
  void set_spilled(btree::PageNo pg, bool spilled, uint64_t next_page);
  // Before `pg` (currently `bytes`: in memory or spilled) changes: keeps a
  // copy in the innermost level unless that level has its state already.
  void keep_prior(btree::PageNo pg, const std::byte* bytes);
  // Forgets the current state of `pg`, in memory or spilled.
  void forget(btree::PageNo pg);

  io::PageFile& file_;
  PageBuffers& buffers_;
  const uint32_t page_size_;
  const uint64_t high_water_;
  // Looked up for every page of every put's path: open addressing keeps a
  // lookup to about one cache miss (a node-based map takes two, a bucket and
  // a node). Entries are mutated through iterator::value().
  tsl::robin_map<btree::PageNo, Buffer, DirtyPageHash> dirty_;
  // Spilled pages nearly all lie past the snapshot's high-water mark: one bit
  // each there, so the bookkeeping of a huge txn stays small next to its
  // memory budget.
  std::vector<bool> spilled_new_;                     // index pg - high_water_
  std::unordered_set<btree::PageNo> spilled_reused_;  // reused pages below it
  uint64_t touch_clock_ = 0;
  uint64_t pages_spilled_ = 0;
  std::vector<Level> levels_;
  uint64_t next_level_tag_ = 1;  // 0 tags no level
};

}  // namespace ordo::engine
