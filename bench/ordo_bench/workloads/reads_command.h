// `ordo-bench reads`: the reads workload (reads_workload.h) on one engine.
#pragma once

#include "reads_workload.h"
#include "single_run.h"

namespace ordo::bench {

struct ReadsCommand {
  ReadsConfig config;
  CommandOutput output;
};

// Returns the process exit code: 0, or 1 after printing the failure on stderr.
int run_reads_command(const ReadsCommand& command);

// The reports: text, or one JSON document {"workload": "reads", "engine",
// "figures": {point_lookups_per_s_<T>t and request_lookups_per_s_<T>t (a
// read txn per lookup) for each thread count T, scans_per_s}, "lookups":
// [...], "request_lookups": [...], ...}.
std::string reads_text(const ReadsConfig& config, const ReadsRun& run);
std::string reads_json(const ReadsConfig& config, const ReadsRun& run);

}  // namespace ordo::bench
