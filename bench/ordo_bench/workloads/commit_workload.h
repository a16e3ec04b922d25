// The commit workload of docs/BENCHMARKS.md: one-row durable commits after
// preloading N rows, for each N of a list, beside the machine's own
// fdatasync latency for a 4 KiB write measured in the same run.
//
// One store per run, grown to each N in turn (rows of rows.h, 8-byte keys,
// 64-byte values, 10,000 per durable commit, not timed). At each N, K
// commits are timed, begin to end of commit, each an overwrite of one row
// picked at random among the N (seeded), so the row count stays N. After
// every `probe_every` commits one SyncProbe (4 KiB pwrite + fdatasync on a
// scratch file beside the store, overwriting 16 written blocks in turn)
// samples the floor.
//
// Then, at the largest N, for each T of `threads`: T threads each make
// `thread_commits` one-row commits of random rows at once through
// KvEngine::put_concurrent; the arm reports commits/s (all threads, wall
// time) and the latency of each commit. Last, `floor_samples` probes of each
// kind of block (sync_probe.h), alternating: overwrites of 256 written
// blocks in turn, and writes into fallocated blocks never written.
//
// sync = false (--no-sync) opens the store without durable commits (ordo
// Options::sync_commits=false, LMDB MDB_NOSYNC, RocksDB/LevelDB sync=false,
// SQLite synchronous=OFF, WiredTiger transaction_sync method=none); every
// commit figure is then named nosync_*.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kv_engine.h"
#include "latency.h"
#include "ordo/status.h"
#include "store_figures.h"

namespace ordo::bench {

struct CommitConfig {
  std::string engine = "ordo";
  std::vector<uint64_t> preloads = {10'000, 100'000, 1'000'000};  // ascending
  uint64_t commits = 1000;                                        // K, timed at each preload size
  uint64_t probe_every = 10;                                      // commits per sync probe; 0: none
  uint64_t seed = 42;                                             // of the rows picked
  uint64_t load_batch = 10'000;                                   // preload rows per commit
  bool sync = true;                        // false: commits not durable (figures nosync_*)
  std::vector<unsigned> threads = {1, 8};  // concurrent-commit arms; empty: none
  uint64_t thread_commits = 100;           // per thread per arm
  uint64_t floor_samples = 100;            // per kind of block; 0: none
};

// Latencies in microseconds at one preload size N.
struct CommitAtSize {
  uint64_t rows = 0;           // N
  double preload_seconds = 0;  // growing the store to N rows (from the previous N)
  LatencySummary commit;       // the K one-row commits
  LatencySummary floor;        // the probes taken between them
};

// T threads committing at once.
struct ConcurrentCommits {
  unsigned threads = 0;
  uint64_t commits = 0;   // all threads
  double seconds = 0;     // first thread start to last thread end
  LatencySummary commit;  // each commit, call to return
  double per_s() const { return seconds > 0 ? static_cast<double>(commits) / seconds : 0; }
};

// The floors measured in one burst after the commits.
struct CommitFloors {
  LatencySummary overwrite;  // 4 KiB pwrite + fdatasync over written blocks
  LatencySummary unwritten;  // the same into fallocated, never written blocks
};

struct CommitRun {
  std::string engine;
  std::vector<CommitAtSize> sizes;
  LatencySummary floor;  // every probe of the run
  std::vector<ConcurrentCommits> concurrent;
  CommitFloors floors;
  StoreFigures store;
};

// The probes' scratch files: beside the commits, and the two of the floors.
struct CommitProbePaths {
  std::string interleaved;
  std::string overwrite;
  std::string unwritten;
};

// Runs the workload on a new store of config.engine at `path`, probing with
// scratch files at `probes`. Corruption when a committed row does not read
// back; otherwise any engine or I/O error as is.
Result<CommitRun> run_commit(const std::string& path, const CommitProbePaths& probes,
                             const CommitConfig& config);

// The concurrent arm with `threads` threads on rows [0, rows) of `table`.
Result<ConcurrentCommits> run_concurrent_commits(KvEngine& db, TableId table, uint64_t rows,
                                                 unsigned threads, const CommitConfig& config);

// config.floor_samples probes of each kind, alternating, on new scratch files.
Result<CommitFloors> measure_floors(const CommitProbePaths& probes, const CommitConfig& config);

}  // namespace ordo::bench
