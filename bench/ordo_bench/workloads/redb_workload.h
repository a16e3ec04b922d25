// The redb workload of docs/BENCHMARKS.md: the phases of redb's own
// benchmark (crates/redb-bench, lmdb_benchmark; the table in redb's README)
// on one engine through KvEngine, in redb's order, on one store:
//   bulk load          `entries` pairs (redb_pairs.h) in one durable txn;
//   individual writes  `individual_writes` pairs, one durable commit each;
//   batch writes       `batch_writes` durable txns of `batch_size` pairs;
//   random reads       pairs 0..reads-1 looked up in the order they were
//                      written (random key order) on one snapshot, each value
//                      checked; `iterations` times, the median reported;
//   random range reads from the key of pair i, i = 0..range_reads-1, the
//                      next `range_length` entries (fewer only at the end);
//                      `iterations` times, the median reported;
//   random reads on T threads, for each T of read_threads: every pair written,
//                      each thread its contiguous share, each on its own
//                      snapshot, timed from the first start to the last end;
//   removals           the first half of the pairs written, one durable txn;
//   uncompacted size   bytes of every file of the store, closed, after that;
//   compaction         on the store reopened, KvEngine::compact; its time and
//                      the compacted bytes (the copy's, or the store's after
//                      it closes when compacted in place).
// redb's newer phases (nosync writes, len(), retain, extract_if, pop,
// sorted inserts) are not run: the commit workload has the nosync arm.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ordo/status.h"
#include "store_figures.h"

namespace ordo::bench {

struct RedbConfig {
  std::string engine = "ordo";
  uint64_t entries = 1'000'000;        // bulk load
  uint64_t individual_writes = 1'000;  // one durable commit each
  uint64_t batch_writes = 100;         // durable txns
  uint64_t batch_size = 1'000;         // pairs per batch txn
  uint64_t reads = 0;                  // per iteration; 0: every pair written
  uint64_t range_reads = 0;            // per iteration; 0: half the pairs written
  uint64_t range_length = 10;          // entries per range read
  uint64_t iterations = 3;             // of each one-thread read phase (median)
  std::vector<unsigned> read_threads = {1, 2, 4};
  uint64_t seed = 3;  // of the pairs (redb's RNG_SEED is 3)

  // Pairs written before the reads: bulk + individual + batches.
  uint64_t written() const { return entries + individual_writes + batch_writes * batch_size; }
  uint64_t reads_per_iteration() const { return reads != 0 ? reads : written(); }
  uint64_t range_reads_per_iteration() const {
    return range_reads != 0 ? range_reads : written() / 2;
  }
  uint64_t removals() const { return written() / 2; }
};

struct RedbRun {
  std::string engine;
  double bulk_load_ms = 0;
  double individual_writes_ms = 0;
  double batch_writes_ms = 0;
  double random_reads_ms = 0;                                  // median of the iterations
  double random_range_reads_ms = 0;                            // median of the iterations
  uint64_t range_entries = 0;                                  // visited by one iteration
  std::vector<std::pair<unsigned, double>> threaded_reads_ms;  // (threads, ms)
  double removals_ms = 0;
  uint64_t uncompacted_bytes = 0;
  double compaction_ms = 0;
  uint64_t compacted_bytes = 0;
  StoreFigures store;  // after compaction and close
};

// Runs the workload on a new store of config.engine at `path`; the engine
// may write its compact copy at `copy_path`. Corruption when a read misses
// or returns another value, or a range read comes back empty; otherwise any
// engine error as is. REQUIRES: entries, iterations, range_length > 0.
Result<RedbRun> run_redb(const std::string& path, const std::string& copy_path,
                         const RedbConfig& config);

}  // namespace ordo::bench
