// The reports a database gives about itself: what an open database holds
// (DatabaseInfo, with its meta pages and log area), the counters since open
// (Stats), the shape of one tree and of the free tree (TreeStats,
// FreeSpace), and what a whole-snapshot check found (CheckReport). The
// functions that fill them are in ordo/database.h (Database::info,
// Database::stats, Txn::tree_stats, Txn::free_space, Txn::check), which
// includes this header. Plain values: copies own everything they hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ordo/id64.h"
#include "ordo/uuid.h"

namespace ordo {

// Shape and fill of one tree, from a full walk of its pages.
struct TreeStats {
  std::string name;
  uint64_t entries = 0;
  uint32_t depth = 0;  // 0 for an empty tree, 1 when the root is a leaf
  uint64_t leaf_pages = 0;
  uint64_t branch_pages = 0;
  double leaf_fill = 0;          // leaf bytes in use / leaf bytes, 0..1
  uint64_t overflow_pages = 0;   // pages of the overflow runs of its large values
  uint64_t overflow_values = 0;  // values stored in overflow runs
  uint64_t key_bytes = 0;        // sum of the key lengths
  uint64_t value_bytes = 0;      // sum of the value lengths, in leaves and overflow runs
};

// Pages in the free tree, from a walk of it.
struct FreeSpace {
  uint64_t free_pages = 0;  // all pages recorded as free
  // Of those, pages the next write txn may not reuse yet: freed by the last
  // commit, or still reachable from a live read snapshot.
  uint64_t pending_pages = 0;
  uint64_t entries = 0;  // free-tree entries (freeing txn, chunk)
};

// One problem found by Txn::check().
struct CheckProblem {
  uint64_t page_number = 0;  // the page concerned (0 and 1 are the meta pages)
  std::string what;
};

// What Txn::check() found.
struct CheckReport {
  bool clean() const { return problems.empty(); }
  std::vector<CheckProblem> problems;  // in walk order; at most kMaxProblems
  bool truncated = false;              // more problems than were kept
  uint64_t high_water_pages = 0;       // pages below the high-water mark
  uint64_t tree_pages = 0;             // leaf and branch pages, every tree
  uint64_t overflow_pages = 0;
  uint64_t free_pages = 0;  // listed in the free tree
  // User trees (the default tree plus the named trees) and their entries:
  // the same counts as the catalog and the meta hold (inspect::trees). The
  // internal trees are counted apart.
  uint64_t trees = 0;
  uint64_t entries = 0;
  uint64_t catalog_entries = 0;    // internal: one per named tree
  uint64_t free_tree_entries = 0;  // internal: free-tree entries
  uint64_t log_pages = 0;          // the log area's pages
  // Log records after the snapshot's checkpoint up to the snapshot (each
  // checked: whole, checksummed, decodable, the last naming the snapshot's
  // roots), and their bytes in the log area.
  uint64_t log_records = 0;
  uint64_t log_bytes = 0;
  static constexpr size_t kMaxProblems = 1000;
};

// One of the two meta pages as found on disk.
struct MetaInfo {
  // Magic, version, page size and checksum verify, and the fields are
  // consistent with each other, with the slot (txn id parity) and with the
  // file's length (see DatabaseInfo::recovery); on a read-only handle, also
  // not a newer commit still in progress in another handle (problem: "txn N
  // is being committed").
  bool valid = false;
  std::string problem;  // why not valid; empty when valid
  uint64_t txn_id = 0;
  uint64_t page_high_water = 0;  // pages ever used (next never-used page number)
  uint64_t file_bytes = 0;       // file length the meta's commit allocated
  uint64_t free_pages = 0;       // pages recorded in the free tree
  uint64_t tree_count = 0;       // named trees in the catalog
};

// The log area and what it holds (docs/FORMAT.md, "The log").
struct LogInfo {
  uint64_t first_page = 0;      // first page of the log area
  uint64_t area_bytes = 0;      // its length (Options::log_bytes when created)
  uint64_t epoch = 0;           // checkpoints taken since the file was made
  uint64_t checkpoint_txn = 0;  // txn of the last checkpoint (durable with its pages)
  // Records written since that checkpoint: they start at byte 0 of the area
  // (the tail) and end at head_bytes (where the next one goes).
  uint64_t records = 0;
  uint64_t head_bytes = 0;
  uint64_t last_txn = 0;  // txn of the last of them (checkpoint_txn when none)
  // What open did with the log, when a crash of the machine had lost pages
  // of logged txns: "replayed txns 8..12 (5 log records, 20480 bytes) after
  // checkpoint txn 7 (...)". Empty otherwise.
  std::string replayed;
  uint64_t replayed_records = 0;  // the records that open replayed (0: none)
  uint64_t replayed_bytes = 0;    // their bytes in the log area
};

// The state of an open database, from Database::info().
struct DatabaseInfo {
  std::string path;
  uint32_t page_size_bytes = 0;
  uint32_t format_version = 0;
  uint64_t file_bytes = 0;  // current file length
  uint64_t txn_id = 0;      // last committed txn
  int current_meta = 0;     // 0 or 1: the meta page of the last checkpoint
  // The last commit's state (its meta, from the log when it is past the
  // checkpoint): valid, txn_id, page_high_water, file_bytes, free_pages,
  // tree_count.
  MetaInfo current;
  LogInfo log;
  MetaInfo metas[2];
  uint64_t pages_used = 0;  // high-water pages minus free pages
  Uuid id_high_water;       // last UUIDv7 issued by a committed txn
  Id64 id64_high_water;     // last 64-bit ID issued by a committed txn
  std::string io_backend;   // "io_uring", "posix", or "none" (read-only)
  // Non-empty when open did not use the meta with the newest txn and used
  // the other one; says which and why. Two causes: the newest commit is
  // incomplete (a crash during a one-sync commit: a page it wrote does not
  // read back intact), or the newest meta page was written whole (its
  // checksum matches) but its fields cannot be right, e.g. a page high-water
  // past the end of the file or a tree root at or past the high-water
  // ("meta 1 (txn 8) is unusable: ...; using meta 0 (txn 7)"). Both commit
  // protocols, writable and read-only opens alike; a read-only open writes
  // nothing, a writable one overwrites the unusable slot at its next commit.
  std::string recovery;
};

// Counters since open (Database::stats()): what commits cost in pages, bytes,
// system calls, syncs and file growth. Each is read atomically, not all
// together. What a steady-state commit costs (Database::stats() before and after):
// a logged commit (the default), 1 sync (its record's, by RWF_DSYNC) and a checkpoint's
// 2 now and then; one-sync with io_uring, 1 write_calls and 1 syncs; two-sync, 2 and
// 2; with POSIX, write_calls counts each pwritev (one per run of adjacent pages, plus
// the meta page or the record) and each fdatasync; file_growths stays 0 until the
// preallocated extent is used up.
struct Stats {
  uint64_t commits = 0;        // successful commits
  uint64_t pages_written = 0;  // data and meta pages written by commits
  uint64_t bytes_written = 0;  // bytes of successful writes: commits, spills, overflow runs
  // System calls that handed writes or syncs to the kernel: io_uring_enter calls with
  // io_uring (a one-sync commit is one), pwritev and fdatasync calls with POSIX. Failed
  // calls count too.
  uint64_t write_calls = 0;
  uint64_t syncs = 0;                   // successful fdatasyncs (io_uring or POSIX)
  uint64_t file_growths = 0;            // extent preallocations (fallocate) that grew the file
  uint64_t pages_reused = 0;            // allocations served from the free tree
  uint64_t pages_spilled = 0;           // dirty pages written before commit (memory budget)
  uint64_t overflow_pages_written = 0;  // pages of large values
  // Database::batch: groups its callers formed (each committed at most once,
  // which `commits` counts when it succeeds), the calls those groups carried,
  // and group txns rolled back because a member failed (the rest of the
  // group then ran again). batch_members / batch_groups is the mean group
  // size.
  uint64_t batch_groups = 0;
  uint64_t batch_members = 0;
  uint64_t batch_rollbacks = 0;
};

}  // namespace ordo
