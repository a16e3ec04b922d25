// `ordo-bench commit`: the commit workload (commit_workload.h) on one engine.
#pragma once

#include "commit_workload.h"
#include "single_run.h"

namespace ordo::bench {

struct CommitCommand {
  CommitConfig config;
  CommandOutput output;
};

// Returns the process exit code: 0, or 1 after printing the failure on stderr.
int run_commit_command(const CommitCommand& command);

// The reports: a text table, or one JSON document {"workload": "commit",
// "engine", "figures": {p50_us_<N>, p99_us_<N>, max_us_<N> per preload N;
// commits_per_s_<T>t, concurrent_p50_us_<T>t, concurrent_p99_us_<T>t per
// thread count T (each of these prefixed nosync_ under --no-sync);
// fdatasync_floor_us (p50 of the interleaved probes); floor_overwrite_p50_us,
// floor_overwrite_p99_us, floor_unwritten_p50_us, floor_unwritten_p99_us (the
// floor burst, when floor_samples > 0)}, "latency_by_preload": [...],
// "concurrent": [...], ...}.
std::string commit_text(const CommitConfig& config, const CommitRun& run);
std::string commit_json(const CommitConfig& config, const CommitRun& run);

}  // namespace ordo::bench
