// The trees workload of docs/BENCHMARKS.md: create T named trees, each holding
// one key, one durable txn per tree (create_tree + put + commit), timing each
// txn; then create a batch of 100 more trees in one txn. Creating a tree must
// not create a file or sync a directory, and its cost must not grow with the
// number of trees.
//
// On ordo a tree is created inside the txn that puts its key (one commit).
// On a peer (--engine) each tree is a table made by KvEngine::open_table,
// then one write txn puts its key; what open_table does per new table is
// the peer's (kv_<engine>.cc): LMDB mdb_dbi_open(MDB_CREATE) in its own
// durable txn, RocksDB CreateColumnFamily (a MANIFEST record and a new
// OPTIONS file), LevelDB nothing (a key prefix), SQLite CREATE TABLE in its
// own durable transaction, WiredTiger WT_SESSION::create (a new file per
// table and the directory synced, the metadata's log record synced). The
// batch on a peer: 100 open_table calls, then one txn with the 100 puts. Files are counted in the
// store's directory (ordo: the directory holding the file).
//
// Tree i is named "tree-XXXXXXXX", eight hex digits of i * 0x9E3779B1 mod
// 2^32 (a bijection): names arrive in scattered byte order, so each create
// lands somewhere inside the catalog, not always at its right edge.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "commit_settings.h"
#include "latency.h"
#include "ordo/database.h"
#include "sync_probe.h"

namespace ordo::bench {

struct TreesConfig {
  std::string engine = "ordo";  // a name of kv_registry.h
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

// Create latency in microseconds (begin_write, on a peer open_table, to the
// end of commit) at one checkpoint T.
struct TreesCheckpoint {
  uint64_t at = 0;                      // T
  uint64_t from = 0;                    // the previous checkpoint (0 for the first)
  LatencySummary window;                // every create after `from`, up to and including T
  LatencySummary tail;                  // the last TreesConfig::tail creates up to T
  LatencySummary floor;                 // the sync probes taken in the window
  double pages_written_per_commit = 0;  // over the window
};

struct TreesRun {
  std::string engine;
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
  // ordo only (zero on peers): Stats since open, DatabaseInfo at the end.
  Stats stats;
  DatabaseInfo info;

  uint64_t syncs_after_open() const { return stats.syncs - syncs_at_open; }
  double syncs_per_commit() const;
  // p50 of the last checkpoint's window / p50 of the first's.
  double p50_ratio() const;
};

// Creates the store of config.engine at `path` (ordo: a file in its own or a
// shared directory; a peer: the directory `path`) and runs the workload.
// Corruption when a tree or its key does not read back.
Result<TreesRun> run_trees(const std::string& path, const TreesConfig& config);

// What the workload drives on one engine; the timed loop is the same.
class TreesTarget {
 public:
  virtual ~TreesTarget() = default;
  // Creates tree `name` holding kTreeKey -> tree_value(i), durably.
  virtual Status create_one(const std::string& name, uint64_t i) = 0;
  // Creates trees batch_name(0..count-1), each with its key, in one txn
  // where the engine can (see the top of this file).
  virtual Status create_batch(uint64_t count) = 0;
  // Pages written so far; 0 when the engine does not say.
  virtual uint64_t pages_written() const { return 0; }
  // Reads back every batch tree and a sample of about 1,000 of the others
  // (fills trees_checked, and trees_listed where the engine lists trees);
  // Corruption on the first that does not hold its key.
  virtual Status check(const TreesConfig& config, TreesRun& run) = 0;
};

inline constexpr std::string_view kTreeKey = "key";
// Trees read back at the end: about this many, spread over all of them.
inline constexpr uint64_t kTreeCheckSamples = 1000;
std::string tree_name(uint64_t i);
std::string batch_name(uint64_t i);
std::array<char, 8> tree_value(uint64_t i);
// Corruption unless `got` is tree_value(i) ("tree NAME does not hold its key").
Status check_tree_value(const Result<ByteView>& got, const std::string& name, uint64_t i);

// The shared timed loop over `target`, counting the entries of directory
// `dir`; fills `result` from the creates (the caller fills what only its
// engine knows). One probe per config.probe_every creates when `probe`.
Result<TreesRun> run_trees_on(TreesTarget& target, const std::string& dir,
                              const TreesConfig& config, SyncProbe* probe, TreesRun result);

// The peers' run (trees_kv.cc), same contract as run_trees.
Result<TreesRun> run_trees_kv(const std::string& path, const std::string& dir,
                              const TreesConfig& config, SyncProbe* probe, TreesRun result);

}  // namespace ordo::bench
