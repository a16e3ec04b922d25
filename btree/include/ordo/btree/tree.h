// The copy-on-write B+-tree algorithms over a PageReader/PageWriter.
//
// A tree is named by its TreeRoot (root page, depth, entry count, root page
// checksum); the caller stores the TreeRoot (in the meta page or the catalog).
// Writes copy every page on the path they change (COW) and update the caller's
// TreeRoot; nothing a committed snapshot can reach is modified.
//
// Splits (btree/src/split_point.h): an insert past the last entry of a page
// starts a new page holding just the new entry, leaving the old page full
// (sequential loads fill leaves to ~100%). In the last leaf of the tree, an
// insert inside the newest prefix group moves that group to the new page and
// leaves the old one full (keys that ascend by prefix, such as (time-ordered
// ID, anything), fill leaves to ~95%). Any other insert splits near the middle
// by bytes. A leaf split's separator is the shortest key that divides the two
// pages.
//
// Thread-safety: functions taking a PageWriter are for the one writer; the
// read functions may run in many threads, each with its own PageReader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ordo/btree/page_access.h"
#include "ordo/btree/rightmost_path.h"
#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::btree {

struct TreeRoot {
  PageNo root = kNullPage;     // kNullPage for an empty tree
  uint32_t depth = 0;          // levels: 0 empty, 1 root is a leaf
  uint64_t entries = 0;        // key count
  uint64_t root_checksum = 0;  // XXH3-64 of the root page, set by finalize()
  bool operator==(const TreeRoot&) const = default;
};

// Size limits for a page size; see page_format.h.
Status check_key_value(uint32_t page_size, ByteView key, ByteView value);

// Looks `key` up. *found tells whether it exists; *value views the stored
// bytes (valid as PageReader::read documents). Corruption on a damaged page.
Status find(PageReader& pages, const TreeRoot& tree, ByteView key, bool* found, ByteView* value);

// Inserts or overwrites. InvalidArgument for an oversized key or value;
// Corruption on a damaged page; Full/IOError from page allocation.
// `rightmost`, when given, is this tree's cache for this write txn (see
// RightmostPath): a key it covers skips the root-to-leaf search and defers the
// new key's count in the path's branches to RightmostPath::flush(); a descent
// along the last child at every level refills it; a split invalidates it.
Status put(PageWriter& pages, TreeRoot& tree, ByteView key, ByteView value,
           RightmostPath* rightmost = nullptr);

// A write decided at the leaf (update()): the descent reads the entry for the
// key, checks `when` against it, and makes the change only when it holds.
struct Update {
  enum class When : uint8_t {
    kAlways,  // whatever the key holds
    kAbsent,  // only when the key is absent
    kEquals,  // only when the key is present and holds exactly `expected`
  };
  When when = When::kAlways;
  ByteView expected;  // kEquals only
  // What the key is set to when `when` holds; nullopt removes it.
  std::optional<ByteView> value;
  // When non-null, and `when` holds and the key was present: receives a copy
  // of the value it held (read from its overflow run for a large one).
  std::string* old_value = nullptr;
};

// What update() found and did.
struct UpdateOutcome {
  bool found = false;    // the key was present
  bool applied = false;  // `when` held
  // Applied, and the tree was written: a put, or the removal of a present key.
  bool changed = false;
};

// One descent for a conditional write: searches the key read-only, decides
// at the leaf, and only when the tree changes copies the path it found (no
// second search) and puts or removes there as put() and remove() do, freeing
// a replaced or removed overflow run after its value was read. When nothing
// changes no page is copied. `rightmost` as for put(); a removal invalidates
// it. Errors as put(); InvalidArgument (oversized key or value) before
// anything is read.
Result<UpdateOutcome> update(PageWriter& pages, TreeRoot& tree, ByteView key, const Update& update,
                             RightmostPath* rightmost = nullptr);

// Removes `key`; *found tells whether it existed. A page left under a quarter
// full merges with a neighbour when the two fit one page; empty pages are
// freed and a root branch with one child is collapsed.
Status remove(PageWriter& pages, TreeRoot& tree, ByteView key, bool* found);

// Appends `key`, which must sort after every key of the tree (else
// InvalidArgument before anything changes). Pages fill to `fill` (0.5..1.0)
// of the page size, then a new page starts, at every level.
Status append(PageWriter& pages, TreeRoot& tree, ByteView key, ByteView value, double fill);

// Frees every page of the tree (and its overflow runs); leaves it empty.
//
// remove(), append(), drop() and every read (count(), a cursor, finalize())
// do not know the tree's RightmostPath: a caller that keeps one must
// invalidate() it before them, or at least flush() it before a read.
Status drop(PageWriter& pages, TreeRoot& tree);

// Computes, bottom-up over the txn's dirty pages, every branch entry's child
// checksum and the root checksum. Call once before the pages are written.
Status finalize(PageWriter& pages, TreeRoot& tree);

// XXH3-64 of one page.
uint64_t page_checksum(const std::byte* page, uint32_t page_size);

// Counting and positions (btree/src/tree_count.cc): each branch entry records
// the entries of its child's subtree, so these read one root-to-leaf path
// (O(depth) pages), summing the counts left of the path. They read dirty
// pages as they stand: a write txn's edits keep every count exact. Corruption
// on a damaged page, or counts that disagree with the pages they describe.

// Entries whose key sorts before `key`: the position `key` holds, or would
// take if it were put.
Result<uint64_t> rank(PageReader& pages, const TreeRoot& tree, ByteView key);

// Entries with from <= key < *end (no end when `end` is null): rank(end) -
// rank(from), 0 when end <= from.
Result<uint64_t> count_range(PageReader& pages, const TreeRoot& tree, ByteView from,
                             const ByteView* end);

// The key of the entry at position `i` (0-based, key order); the view is valid
// as PageReader::read documents. NotFound when i >= tree.entries.
Result<ByteView> key_at(PageReader& pages, const TreeRoot& tree, uint64_t i);

// Page counts, byte sums and leaf fill of one tree, from a full walk; the engine
// reports them as ordo::TreeStats.
struct TreeShape {
  uint64_t entries = 0;
  uint32_t depth = 0;
  uint64_t leaf_pages = 0;
  uint64_t branch_pages = 0;
  uint64_t overflow_pages = 0;
  uint64_t overflow_values = 0;  // values stored in overflow runs
  uint64_t key_bytes = 0;        // sum of key lengths
  uint64_t value_bytes = 0;      // sum of value lengths (inline and overflow)
  uint64_t leaf_used_bytes = 0;  // header, slots and cells of all leaves
  uint32_t page_size_bytes = 0;
  // Leaf bytes in use over leaf bytes allocated, 0..1 (0 for an empty tree).
  double leaf_fill() const;
};

// Walks every page of the tree, checking each page's structure and key order
// and each child's depth; counts pages. Corruption names the first bad page.
Status collect_stats(PageReader& pages, const TreeRoot& tree, TreeShape* stats);

// Corruption when a walk found `found` entries where `tree` records another
// count; it names the root page (no page for an empty tree).
Status check_entry_count(const TreeRoot& tree, uint64_t found);

}  // namespace ordo::btree
