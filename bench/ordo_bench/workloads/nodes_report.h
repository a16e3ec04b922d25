// Reports of the nodes workload: a side-by-side text table, or one JSON
// document.
#pragma once

#include <string>
#include <vector>

#include "nodes_workload.h"

namespace ordo::bench {

// Text on stdout: one column per run, then the curve; with a seq and a random
// run, the random/seq ratios of nodes/s and file bytes.
void print_nodes_text(const NodesConfig& config, const std::vector<NodesRun>& runs, bool kept);

// {"workload": "nodes", "engine", "figures": {nodes_per_s, file_bytes,
// allocated_bytes, bytes_per_node, first_window_nodes_per_s,
// last_window_nodes_per_s; each with the suffix _seq/_random when the run
// has both ID kinds}, "curve": [[at, nodes_per_s], ...] (one ID kind),
// "curves": {"seq": [...], "random": [...]}, ..., "runs": [{engine, ids, nodes, seconds,
// nodes_per_s, curve: [{at, nodes_per_s}], file_bytes, allocated_bytes, bytes_per_node, leaf_fill
// (ordo), ...}], "ratios": {...}} ("ratios" only with both ID kinds).
std::string nodes_json(const NodesConfig& config, const std::vector<NodesRun>& runs, bool kept);

}  // namespace ordo::bench
