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
// Memory: a few hundred bytes, plus a copy of the leaf's lower bound key; put() does not
// allocate for it once the key's capacity is reached.
// Thread-safety: used by the one writer, like the txn's PageWriter.
class RightmostPath {
 public:
  // Forgets the path; the next put() descends from the root.
  void invalidate() { valid_ = false; }
  bool valid() const { return valid_; }

  // True when the cache holds the rightmost path of `tree` (same root page and depth)
  // and `key` belongs in its last leaf: key >= the leaf's lower bound.
  bool covers(const TreeRoot& tree, ByteView key) const;

 private:
  friend class RightmostPathAccess;  // tree_write.cc fills and reads it

  bool valid_ = false;
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
