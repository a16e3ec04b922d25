// `ordo-bench redb`: the redb workload (redb_workload.h) on one engine.
#pragma once

#include <string>
#include <vector>

#include "redb_workload.h"
#include "single_run.h"

namespace ordo::bench {

struct RedbCommand {
  RedbConfig config;
  CommandOutput output;
};

// Returns the process exit code: 0, or 1 after printing the failure on stderr.
int run_redb_command(const RedbCommand& command);

// One row of the report: redb's label, the figure's name, its value
// (milliseconds, or bytes for the sizes).
struct RedbRow {
  std::string label;   // "bulk load", "random reads (2 threads)", ...
  std::string figure;  // bulk_load_ms, random_reads_2t_ms, compacted_bytes, ...
  double value = 0;
  bool bytes = false;
};

// The rows in redb's table order: bulk_load_ms, individual_writes_ms,
// batch_writes_ms, random_reads_ms, random_range_reads_ms,
// random_reads_<T>t_ms per thread count T, removals_ms, compaction_ms,
// uncompacted_bytes, compacted_bytes.
std::vector<RedbRow> redb_rows(const RedbRun& run);

// The reports: a table shaped like redb's README table (one engine column),
// or one JSON document {"workload": "redb", "engine", "figures": {every row's
// figure}, the sizes and the seed, ...}.
std::string redb_text(const RedbConfig& config, const RedbRun& run);
std::string redb_json(const RedbConfig& config, const RedbRun& run);

}  // namespace ordo::bench
