// Reports of the trees workload: text, or one JSON document.
#pragma once

#include <string>

#include "trees_workload.h"

namespace ordo::bench {

// Text on stdout: a latency table per checkpoint, the p50 ratio, the batch
// txn, files and syncs counted.
void print_trees_text(const TreesConfig& config, const TreesRun& run, bool kept);

// {"workload": "trees", "engine", "per_new_table" (what the engine does per
//  new tree), "figures": {p50_us_<T>, p99_us_<T>
//  for each checkpoint T (its window), batch_us, files_created}, trees, batch,
//  tail, durable, "checkpoints": [{at, from,
//  count, p50_us, p99_us, max_us, tail_count, tail_p50_us, tail_p99_us,
//  pages_written_per_commit}], p50_ratio, batch_trees, batch_txn_us,
//  files_created_after_open, directory_entries_*, commits, syncs_after_open,
//  syncs_per_commit, ...}; the Stats/DatabaseInfo fields (commits, syncs_*,
//  pages_written, file_*, io_backend, commit_protocol) only for ordo.
std::string trees_json(const TreesConfig& config, const TreesRun& run, bool kept);

}  // namespace ordo::bench
