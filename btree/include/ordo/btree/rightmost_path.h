// RightmostPath: a write txn's cache of one tree's rightmost root-to-leaf path, so
// that a put of a key at the right edge (sequential IDs) goes straight to the last
// leaf without a root-to-leaf search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ordo/btree/page_format.h"
#include "ordo/byte_view.h"

namespace ordo::btree {

struct TreeRoot;
class PageWriter;

// Filled by put() whenever its descent took the last child at every level, and used
// by the next put() whose key is at least the smallest key the last leaf may hold.
// Every page it names is a dirty page of the txn that filled it (copied on that
// descent), so using it changes nothing the normal descent would not have changed.
//
// Validity: put() checks that the tree's root page and depth are the ones it was
// filled for, and drops the cache itself after any split. Everything else that can
// change the tree's pages must invalidate() it: remove(), append(), drop(), or the
// txn ending (abort or commit; keep one cache per tree per write txn). Spilling pages
// is harmless: a spilled page keeps its page number and is read back when written.
// It also keeps the bytes writable() returned for each branch of the path when
// it was filled, and writes their entry counts there: a dirty branch stays
// where it is until freed (PageWriter implementations never move one; the
// engine never spills a branch). Whatever changes what writable() would
// return for a dirty page (a savepoint that copies pages before they change)
// must invalidate() it.
//
// Deferred counts: a put() through the cache adds its key to the count it
// holds rather than to each branch on the path (one add instead of one per
// level, at every put at the right edge). Until flush() writes them, the
// path's branches count fewer entries than their subtrees hold, so flush()
// comes before anything else reads the tree's pages or changes them: count(),
// rank(), at(), a cursor, a walk or check, finalize(), a savepoint's copies.
// invalidate() flushes; discard() drops the counts with the pages they were for.
// Memory: a few hundred bytes, plus a copy of the leaf's lower bound key; put() does not
// allocate for it once the key's capacity is reached.
// Thread-safety: used by the one writer, like the txn's PageWriter.
class RightmostPath {
 public:
  // Writes the deferred counts (above) into the path's branches, through the
  // bytes kept for them; nothing when there are none. `pw`: the write txn's
  // PageWriter that filled the path.
  void flush(PageWriter& pw);
  // flush(), then forgets the path; the next put() descends from the root.
  void invalidate(PageWriter& pw) {
    flush(pw);
    valid_ = false;
  }
  // Forgets the path and its deferred counts, without writing them: only for
  // a path whose pages are given up (a rollback to before the puts, the txn's
  // abort).
  void discard() {
    valid_ = false;
    deferred_entries_ = 0;
  }
  bool valid() const { return valid_; }
  // Whether flush() has counts to write.
  bool has_deferred() const { return deferred_entries_ != 0; }

  // True when the cache holds the rightmost path of `tree` (same root page and depth)
  // and `key` belongs in its last leaf: key >= the leaf's lower bound.
  bool covers(const TreeRoot& tree, ByteView key) const;

 private:
  friend class RightmostPathAccess;  // tree_write.cc fills and reads it

  bool valid_ = false;
  // Keys put() added to the last leaf through the cache and not yet counted in
  // the path's branches; nonzero only while valid_.
  uint64_t deferred_entries_ = 0;
  PageNo root_ = kNullPage;
  uint32_t depth_ = 0;
  PageNo leaf_ = kNullPage;
  // branches_[level] for level < depth_ - 1: the branch page at that level and the
  // child index taken (its last entry).
  PageNo branches_[kMaxDepth] = {};
  uint32_t indexes_[kMaxDepth] = {};
  std::byte* branch_data_[kMaxDepth] = {};
  // The smallest key the last leaf may hold: the key of the last entry of the deepest
  // branch on the path whose last entry is not entry 0; none (minus infinity) when the
  // path has no such branch.
  bool has_low_key_ = false;
  std::string low_key_;
  // New keys put into the last leaf since one went below its last key; kept
  // across invalidate(). A recent one says that keys at the right edge arrive
  // out of order, which the split policy weighs (btree/src/split_point.h).
  uint32_t puts_since_unordered_ = UINT32_MAX;
};

}  // namespace ordo::btree
