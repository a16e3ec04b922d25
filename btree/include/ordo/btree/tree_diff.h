// The changes between two versions of one copy-on-write tree, in key order.
//
// Both versions must be readable through one PageReader: an older snapshot
// whose pages are still held (no page it reaches was reused) and a newer
// one. A subtree reached from both with the same page number and checksum is
// the same bytes, so holds the same entries, and is skipped without being
// read: the work is about the pages that differ between the two versions
// times the depth, not the size of the tree.
//
// Thread-safety: as the PageReader; one diff is used by one thread.
#pragma once

#include <cstdint>
#include <vector>

#include "ordo/btree/node.h"
#include "ordo/btree/page_access.h"
#include "ordo/btree/tree.h"
#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::btree {

// One changed key: present before and/or after, with different values.
struct TreeChange {
  ByteView key;
  bool had_old = false;  // false: the key was inserted
  bool has_new = false;  // false: the key was deleted
  ByteView old_value;    // valid when had_old
  ByteView new_value;    // valid when has_new
};

class TreeDiff {
 public:
  // `old_tree` and `new_tree`: roots of the two versions (either may be
  // empty). The views a change holds stay valid as PageReader::read's pages
  // do (until the reading txn ends).
  TreeDiff(PageReader& pages, const TreeRoot& old_tree, const TreeRoot& new_tree);

  // The next change in key order into *change; false once there is none.
  // Corruption names a damaged page (checksums are checked as the reader
  // says); the diff cannot go on after an error.
  Result<bool> next(TreeChange* change);

  // Pages read so far (tree pages, not overflow runs): what the diff cost.
  uint64_t pages_read() const { return pages_read_; }

 private:
  // One side's position: a stack of pages being read, each with the index of
  // its next item (a child for a branch, an entry for a leaf).
  struct Frame {
    PageNo page = kNullPage;
    const std::byte* bytes = nullptr;
    uint32_t index = 0;
    uint32_t height = 0;  // 1 for a leaf
    ByteView lower;       // keys of the page are >= lower (empty: no bound)
  };
  struct Side {
    std::vector<Frame> stack;
    // The root before it was read: an unopened item like a branch child.
    TreeRoot root;
    bool root_pending = false;
  };
  // What a side shows next: nothing, an unopened page, or a leaf entry.
  struct Head {
    enum Kind { kEnd, kPage, kEntry } kind = kEnd;
    PageNo page = kNullPage;
    uint64_t checksum = 0;
    uint32_t height = 0;
    ByteView lower;  // kPage: lower bound of its keys; kEntry: the key
  };

  Result<Head> head(Side& side);
  // Opens the page `h` names (a kPage head): consumes it and pushes it.
  Status open(Side& side, const Head& h);
  // Consumes the head (an entry or a page skipped).
  void advance(Side& side);
  Result<ByteView> value_of(const Frame& f) const;

  PageReader& pages_;
  Side old_;
  Side new_;
  uint64_t pages_read_ = 0;
  bool failed_ = false;
};

}  // namespace ordo::btree
