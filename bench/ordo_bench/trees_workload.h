// The trees workload of BENCHMARKING.md: create T named trees, each holding
// one key, one durable txn per tree (create_tree + put + commit), timing each
// txn; then create a batch of 100 more trees in one txn. Creating a tree must
// not create a file or sync a directory, and its cost must not grow with the
// number of trees.
//
// Tree i is named "tree-XXXXXXXX", eight hex digits of i * 0x9E3779B1 mod
// 2^32 (a bijection): names arrive in scattered byte order, so each create
// lands somewhere inside the catalog, not always at its right edge.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "commit_settings.h"
#include "latency.h"
#include "ordo/database.h"

namespace ordo::bench {

struct TreesConfig {
  uint64_t trees = 100'000;
  uint64_t batch = 100;  // trees created in one txn after the timed creates
  uint64_t tail = 100;   // creates in the "last N" window before each checkpoint
  CommitSettings commits;
  // After every this many creates, one SyncProbe (4 KiB pwrite + fdatasync
  // on a scratch file beside the database): the machine's sync latency in
  // each window, to tell a slower engine from a slower disk. 0, or
  // --no-sync: no probes.
  uint64_t probe_every = 10;

  // Tree counts at which latency is reported: 100, 1,000, 10,000, ... up to
  // `trees`, and `trees` itself.
  std::vector<uint64_t> checkpoints() const;
};

// Create latency in microseconds (begin_write to the end of commit) at one
// checkpoint T.
struct TreesCheckpoint {
  uint64_t at = 0;                      // T
  uint64_t from = 0;                    // the previous checkpoint (0 for the first)
  LatencySummary window;                // every create after `from`, up to and including T
  LatencySummary tail;                  // the last TreesConfig::tail creates up to T
  LatencySummary floor;                 // the sync probes taken in the window
  double pages_written_per_commit = 0;  // over the window
};

struct TreesRun {
  std::string path;
  double seconds = 0;  // all one-tree txns
  std::vector<TreesCheckpoint> checkpoints;
  uint64_t batch_trees = 0;
  double batch_txn_us = 0;  // the one txn that creates the batch
  uint64_t batch_pages_written = 0;
  // Entries of the database's directory before open, once open, at the end.
  uint64_t dir_entries_before_open = 0;
  uint64_t dir_entries_after_open = 0;
  uint64_t dir_entries_at_end = 0;
  std::vector<std::string> files_created_after_open;  // names, expected none
  uint64_t syncs_at_open = 0;                         // Stats::syncs once open (creating the file)
  uint64_t trees_listed = 0;                          // list_trees() at the end
  uint64_t trees_checked = 0;                         // trees whose key was read back
  Stats stats;                                        // since open
  DatabaseInfo info;

  uint64_t syncs_after_open() const { return stats.syncs - syncs_at_open; }
  double syncs_per_commit() const;
  // p50 of the last checkpoint's window / p50 of the first's.
  double p50_ratio() const;
};

// Creates the database at `path` (in its own or a shared directory) and runs
// the workload. Corruption when a tree or its key does not read back.
Result<TreesRun> run_trees(const std::string& path, const TreesConfig& config);

}  // namespace ordo::bench
