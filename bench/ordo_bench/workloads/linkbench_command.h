// `ordo-bench linkbench`: the linkbench workload (linkbench_workload.h) on
// one engine.
#pragma once

#include <string>

#include "linkbench_workload.h"
#include "single_run.h"

namespace ordo::bench {

struct LinkbenchCommand {
  LinkbenchConfig config;
  CommandOutput output;
};

// Returns the process exit code: 0, or 1 after printing the failure on stderr.
int run_linkbench_command(const LinkbenchCommand& command);

// The reports: a text table, or one JSON document {"workload": "linkbench",
// "engine", "figures": {<op>_p50_us_<N>, <op>_p99_us_<N>, <op>_max_us_<N>
// for each op (add_node, add_link, update_link, delete_link, get_node,
// get_links) and N, <op>_p99_growth (p99 at the largest N / p99 at the
// smallest)}, "sizes": [{nodes, links, preload_seconds, ops: {...},
// links_read, groups_checked, path, file_bytes, ...}], ...}.
std::string linkbench_text(const LinkbenchConfig& config, const LinkbenchRun& run);
std::string linkbench_json(const LinkbenchConfig& config, const LinkbenchRun& run);

}  // namespace ordo::bench
