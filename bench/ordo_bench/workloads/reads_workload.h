// The reads workload of docs/BENCHMARKS.md: load N rows (rows.h: 8- or 16-byte
// keys in ascending order, 64-byte values, 100,000 per durable commit, timed
// apart), then
//   - random point lookups of existing keys (uniform, seeded) with 1 thread
//     and with 2 threads, each thread on its own read snapshot, for a fixed
//     count per thread or for a fixed time; every value is checked to be the
//     row asked for;
//   - the same lookups as a server answering one request per read txn makes
//     them: each lookup in a snapshot of its own, taken and ended around it
//     (KvEngine::begin_request_reads);
//   - range scans of `scan_length` consecutive keys from random existing
//     keys, one thread; each must visit exactly scan_length rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ordo/status.h"
#include "store_figures.h"

namespace ordo::bench {

struct ReadsConfig {
  std::string engine = "ordo";
  uint64_t keys = 1'000'000;
  size_t key_bytes = 8;          // 8 or 16
  uint64_t lookups = 1'000'000;  // per thread, when seconds == 0
  double seconds = 0;            // > 0: each lookup phase runs this long instead
  uint64_t scans = 1000;
  uint64_t scan_length = 1000;  // keys per scan
  uint64_t seed = 42;
  uint64_t load_batch = 100'000;  // rows per commit of the load
  std::vector<unsigned> threads = {1, 2};
};

// One lookup phase with `threads` threads.
struct LookupFigures {
  unsigned threads = 0;
  uint64_t lookups = 0;  // all threads
  double seconds = 0;    // wall time, first thread start to last thread end
  double per_s() const { return seconds > 0 ? static_cast<double>(lookups) / seconds : 0; }
};

struct ReadsRun {
  std::string engine;
  double load_seconds = 0;
  std::vector<LookupFigures> lookups;
  std::vector<LookupFigures> request_lookups;  // a snapshot per lookup
  uint64_t scans = 0;
  uint64_t scanned_keys = 0;
  double scan_seconds = 0;
  StoreFigures store;

  double scans_per_s() const {
    return scan_seconds > 0 ? static_cast<double>(scans) / scan_seconds : 0;
  }
};

// Runs the workload on a new store of config.engine at `path`. Corruption
// when a lookup misses or reads another row, or a scan comes back short;
// otherwise any engine error as is.
// REQUIRES: config.keys >= config.scan_length > 0.
Result<ReadsRun> run_reads(const std::string& path, const ReadsConfig& config);

}  // namespace ordo::bench
