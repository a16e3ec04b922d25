// The inspection API: what a snapshot's pages, trees, free tree and reader
// slots hold, decoded from the file format (docs/FORMAT.md). For tools and
// monitoring; programs that only store data never need it. The
// shapes follow the format: they change when the format version does.
//
// Every function but reader_slots reads the committed snapshot of a ReadTxn
// (a WriteTxn is InvalidArgument) and may be called while other txns run;
// like every txn call, one thread at a time per txn. Errors: TxnEnded for an
// ended txn; Corruption (naming the
// page) when the walk meets a damaged page, except where a function says it
// reports damage in its result instead.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ordo/database.h"

namespace ordo::inspect {

enum class TreeKind : uint8_t {
  kDefault,  // the default tree (user data; not in the catalog)
  kNamed,    // a named tree (user data)
  kCatalog,  // internal: tree name -> root
  kFree,     // internal: pages no tree uses
  kKept,     // internal: the kept snapshots (listed only when there are some)
};
const char* tree_kind_name(TreeKind kind);  // "default", "named", "catalog", "free", "kept"

// One tree as its root record says, without walking it.
struct TreeSummary {
  TreeKind kind = TreeKind::kDefault;
  std::string name;        // empty for the default, catalog and free trees
  uint64_t entries = 0;    // from the root record (the meta or the catalog)
  uint32_t depth = 0;      // 0 when empty, 1 when the root is a leaf
  uint64_t root_page = 0;  // 0 when empty
};

// The default tree, every named tree in name order, then the catalog and the
// free tree. Work: one walk of the catalog (not of the trees: entry counts
// live in the root records, as LMDB keeps md_entries). Corruption for a
// malformed catalog entry.
Result<std::vector<TreeSummary>> trees(Txn& txn);

enum class PageKind : uint8_t {
  kMeta,
  kBranch,
  kLeaf,
  kOverflow,     // an overflow run (first page or a later one)
  kFree,         // listed in the free tree
  kUnreachable,  // below the high-water mark, but neither in a tree nor free (a leak)
  kLog,          // the log area (docs/FORMAT.md, "The log")
};
// "meta", "branch", "leaf", "overflow", "free", "unreachable", "log"
const char* page_kind_name(PageKind kind);

// One page below the snapshot's high-water mark.
struct PageSummary {
  uint64_t page = 0;
  PageKind kind = PageKind::kUnreachable;
  // Index into PageMap::trees of the tree owning the page; -1 for meta,
  // free and unreachable pages.
  int32_t tree = -1;
  uint32_t level = 0;          // branch and leaf: 0 at the root
  uint32_t entries = 0;        // branch and leaf: cells on the page
  uint32_t used_bytes = 0;     // branch and leaf: header, slots and live cells
  uint32_t overflow_refs = 0;  // leaf: entries whose value is in an overflow run
  uint64_t txn_id = 0;         // tree pages and a run's first page: the txn that wrote it
  uint64_t run_first = 0;      // overflow: the run's first page
  uint64_t run_pages = 0;      // overflow: the run's length in pages
  uint64_t freed_by = 0;       // free: the txn that freed it
};

// Every page of the snapshot, in page-number order, from one walk of every
// tree (user trees, catalog, free tree). Pages the walk could not read are
// kUnreachable and the walk goes on past damage: `problems` says what it
// met. Memory: one PageSummary (~64 bytes) per page.
struct PageMap {
  uint32_t page_size = 0;
  uint64_t high_water = 0;
  std::vector<TreeSummary> trees;  // as trees() returns them
  std::vector<PageSummary> pages;  // pages[i].page == i
  std::vector<std::string> problems;
};
// `progress(pages_done, pages_total)` every few thousand pages; may be empty.
Result<PageMap> page_map(Txn& txn, const std::function<void(uint64_t, uint64_t)>& progress = {});

// One cell of a branch or leaf page, decoded.
struct CellDetail {
  std::string key;  // raw bytes (empty for a branch's entry 0)
  // Leaf.
  uint64_t value_len = 0;
  bool overflow = false;
  std::string value;                         // inline value bytes (empty for an overflow value)
  uint64_t run_first = 0, run_checksum = 0;  // overflow reference
  // Branch.
  uint64_t child = 0;
  uint64_t child_checksum = 0;         // what this entry records
  uint64_t child_entries = 0;          // entries under the child, as this entry records
  uint64_t child_actual_checksum = 0;  // XXH3-64 of the child page as it is
  bool child_checksum_ok = false;
};

// One page, decoded.
struct PageDetail {
  uint64_t page = 0;
  PageKind kind = PageKind::kUnreachable;
  std::string tree;  // owner's name ("" for the default tree); see tree_kind
  TreeKind tree_kind = TreeKind::kDefault;
  bool owned = false;  // a tree (or a free-tree entry) was found to reach it
  // Header of a tree or overflow page, as stored.
  uint8_t type_byte = 0;
  uint8_t flags = 0;
  uint32_t count = 0;
  uint32_t cell_start = 0;
  uint64_t txn_id = 0;
  uint32_t cell_bytes = 0;
  uint32_t level = 0;
  std::vector<CellDetail> cells;  // branch and leaf
  // Whether the page matches the checksum its parent (or root record) holds.
  bool has_parent = false;  // false for meta, free and unreachable pages, overflow tails
  uint64_t parent = 0;      // the parent page; 0 when the meta/catalog holds the root
  uint64_t expected_checksum = 0;
  uint64_t actual_checksum =
      0;  // XXH3-64 of the page (of the run for an overflow run's first page)
  bool checksum_ok = false;
  uint64_t run_first = 0, run_pages = 0;  // overflow
  uint64_t freed_by = 0, written_by = 0;  // free
  std::string problem;                    // structural damage found decoding it; empty when none
  std::string bytes;                      // the page's raw bytes
};
// Decodes page `page_number`: which tree reaches it (one walk, stopping
// there), its header, every cell, its checksum against its parent's record
// and, for a branch, each child's. InvalidArgument when the number is at or
// past the high-water mark. Damage is reported in `problem`, not as an error.
Result<PageDetail> describe_page(Txn& txn, uint64_t page_number);

enum class FreeState : uint8_t {
  kReusable,  // the next write txn may take these pages
  kRecent,    // freed by the last commit: kept whole for recovery
  kPinned,    // a live read snapshot (this process or a reader slot) can reach them
};
const char* free_state_name(FreeState state);  // "reusable", "recent", "pinned"

// One free-tree entry.
struct FreeEntryInfo {
  uint64_t freed_by = 0;    // the txn that freed the pages
  uint64_t written_by = 0;  // the txn that wrote them (0: unknown)
  uint32_t chunk = 0;
  std::vector<uint64_t> pages;
  FreeState state = FreeState::kReusable;  // for a write txn starting now
};
// Every entry, oldest first. Pinned is judged against this process's read
// txns (the caller's own snapshot included, so a caller that wants other
// readers only ends its txns first: free_entries takes the rule at call
// time) and other processes' reader slots. IOError when the reader-slot
// query fails.
Result<std::vector<FreeEntryInfo>> free_entries(Txn& txn);

// One reader slot held in the file (docs/FORMAT.md "Page reuse rule").
struct ReaderSlot {
  uint64_t snapshot_txn = 0;  // the snapshot the reader reads
  std::vector<int> pids;      // processes holding it, when /proc tells; may be empty
};
// The reader slots other handles hold on the database file at `path`
// (read-only handles of any process; a writable handle's own read txns take
// no slot and are not listed), by snapshot, ascending; at most the lowest
// 1,000,000. Opens `path` read-only for the query and closes it. NotFound
// when missing; IOError when open or fcntl fails.
// Linux: holders are found through /proc/<pid>/fdinfo (only processes the
// caller may inspect).
Result<std::vector<ReaderSlot>> reader_slots(const std::string& path);

}  // namespace ordo::inspect
