// Reports of the churn workload: one text table per run, or one JSON
// document.
#pragma once

#include <string>
#include <vector>

#include "churn_workload.h"

namespace ordo::bench {

// Text on stdout: per run, one line after the load and after each round, then
// the ratio of used bytes after the last round to used bytes after the load.
void print_churn_text(const ChurnConfig& config, const std::vector<ChurnRun>& runs, bool kept);

// {"workload": "churn", keys, rounds, txn_size, value_bytes, durable,
//  reader_first, reader_last, "runs": [{reader, path, rows: [{round, reader_held,
//  seconds, file_bytes, used_bytes, free_pages, pending_free_pages, pages_reused,
//  pages_reused_in_round}], used_ratio, file_ratio, commits, syncs_after_open,
//  syncs_per_commit, ...}]}. Row 0 is the state after the load.
std::string churn_json(const ChurnConfig& config, const std::vector<ChurnRun>& runs, bool kept);

}  // namespace ordo::bench
