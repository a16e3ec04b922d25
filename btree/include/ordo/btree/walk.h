// One depth-first walk over the pages of a tree, for every caller that reads
// or frees a whole tree: stats, drop, check, recovery, copies, inspection.
//
// For each page the walk asks the visitor whether to read it (enter), reads
// it, hashes it against the checksum its parent (or the root record) holds,
// checks its header and cells against the page bounds (and, optionally, its
// keys for order) and its type against its level, then hands it to the
// visitor (page) before its children, then each overflow reference of a leaf
// (overflow), then the page again after its children (leave). Problems go to
// the visitor (damaged), which either ends the walk with them or goes on.
//
// The walk trusts nothing it reads: a damaged page, a cycle deeper than
// kMaxDepth or a bad reference is a Status, never a wild read.
// Thread-safety: as the PageReader; a walk is used by one thread.
#pragma once

#include <cstdint>
#include <optional>

#include "ordo/btree/node.h"
#include "ordo/btree/overflow_ref.h"
#include "ordo/btree/page_access.h"
#include "ordo/btree/tree.h"
#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::btree {

// Where a page sits in the tree being walked.
struct PageRef {
  PageNo page = kNullPage;
  PageNo parent = kNullPage;       // kNullPage for the root
  uint32_t index = 0;              // the parent entry naming the page (0 for the root)
  uint32_t level = 0;              // 0 at the root
  uint32_t depth = 0;              // levels of the tree
  uint64_t expected_checksum = 0;  // what the parent (or the root record) records
  // The entries the parent's cell (or the root record) records for the
  // subtree. The walk checks a non-root page against it: a leaf's count, or
  // the sum of a branch's cells (each checked in turn at its child), so a
  // whole walk proves every count exact. (The root against the root record
  // is left to the caller: check_entry_count.)
  uint64_t expected_entries = 0;
  // The key range the parent allows: keys >= lower (none: no lower bound)
  // and < upper (none: no upper bound). The views point into pages of the
  // walk's PageReader and stay valid as its reads do.
  std::optional<ByteView> lower;
  std::optional<ByteView> upper;
  bool leaf() const { return level + 1 == depth; }
};

// What to do after a page was visited.
enum class WalkStep {
  kDescend,  // go on into the page: its children or its overflow references
  kSkip,     // leave out its children and overflow references, go on with the next page
  kStop,     // end the walk, successfully
};

// Callbacks of walk_tree(). Each default keeps the walk going (or, for
// damaged, ends it with the problem). A non-ok Status returned by any of them
// ends the walk and is returned by walk_tree().
class PageVisitor {
 public:
  virtual ~PageVisitor() = default;
  // Before a page is read: false leaves it (and its subtree) out.
  virtual bool enter(const PageRef& ref) { return true; }
  // A problem with a page: Corruption naming it (or, when its parent's entry
  // names page 0 or 1, naming the parent), or PageReader::read's error.
  // ok goes on: past a checksum mismatch with this page; past any other
  // problem with the next page, this one's subtree left out.
  virtual Status damaged(const PageRef& ref, Status problem) { return problem; }
  // A page that passed the walk's checks, before its children.
  virtual Result<WalkStep> page(const PageRef& ref, const NodeView& node) {
    return WalkStep::kDescend;
  }
  // Leaf entry i of a leaf the visitor descended into holds an overflow
  // reference; `run` is decoded (a bad one goes to damaged() instead).
  // The run itself is not read.
  virtual Status overflow(const PageRef& leaf, const NodeView& node, uint32_t i,
                          const OverflowRun& run) {
    return Status::ok();
  }
  // A page the visitor descended into, after its children and overflow
  // references: the last time the walk touches it (it may be freed here).
  // Not called for the pages still open when the walk stops or fails.
  virtual Status leave(const PageRef& ref, const NodeView& node) { return Status::ok(); }
};

struct WalkOptions {
  // Hash every page the txn does not own a dirty copy of (see
  // PageReader::is_dirty) against the checksum its parent records.
  bool verify_checksums = true;
  // Check that each page's keys ascend (check_node_order) on top of its
  // bounds (check_node).
  bool check_order = true;
};

// Walks `root` depth first, children in key order. An empty tree visits
// nothing. Corruption (naming the root) for a depth outside 1..kMaxDepth;
// otherwise the first error the visitor returns.
Status walk_tree(PageReader& pages, const TreeRoot& root, PageVisitor& visitor,
                 const WalkOptions& options = {});

}  // namespace ordo::btree
