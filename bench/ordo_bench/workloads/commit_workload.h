// The commit workload of docs/BENCHMARKS.md: one-row durable commits after
// preloading N rows, for each N of a list, beside the machine's own
// fdatasync latency for a 4 KiB write measured in the same run.
//
// One store per run, grown to each N in turn (rows of rows.h, 8-byte keys,
// 64-byte values, 10,000 per durable commit, not timed). At each N, K
// commits are timed, begin to end of commit, each an overwrite of one row
// picked at random among the N (seeded), so the row count stays N. After
// every `probe_every` commits one SyncProbe (4 KiB pwrite + fdatasync on a
// scratch file beside the store) samples the floor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "latency.h"
#include "ordo/status.h"
#include "store_figures.h"

namespace ordo::bench {

struct CommitConfig {
  std::string engine = "ordo";
  std::vector<uint64_t> preloads = {10'000, 100'000, 1'000'000};  // ascending
  uint64_t commits = 1000;      // K, timed at each preload size
  uint64_t probe_every = 10;    // commits per sync probe; 0: none
  uint64_t seed = 42;           // of the rows picked
  uint64_t load_batch = 10'000;  // preload rows per commit
};

// Latencies in microseconds at one preload size N.
struct CommitAtSize {
  uint64_t rows = 0;       // N
  double preload_seconds = 0;  // growing the store to N rows (from the previous N)
  LatencySummary commit;   // the K one-row commits
  LatencySummary floor;    // the probes taken between them
};

struct CommitRun {
  std::string engine;
  std::vector<CommitAtSize> sizes;
  LatencySummary floor;  // every probe of the run
  StoreFigures store;
};

// Runs the workload on a new store of config.engine at `path`, probing with
// a scratch file at `probe_path`. Corruption when a committed row does not
// read back; otherwise any engine or I/O error as is.
Result<CommitRun> run_commit(const std::string& path, const std::string& probe_path,
                             const CommitConfig& config);

}  // namespace ordo::bench
