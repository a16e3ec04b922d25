// `ordo-bench nodes`: runs the nodes workload once per ID kind, each on its
// own fresh database file, verifies each file, and reports.
#pragma once

#include <string>
#include <vector>

#include "nodes_workload.h"

namespace ordo::bench {

struct NodesCommand {
  NodesConfig config;
  std::vector<IdKind> kinds = {IdKind::kSeq, IdKind::kRandom};
  std::string dir;    // empty: a fresh temporary directory
  bool keep = false;  // keep the database files (and print their paths)
  bool json = false;  // one JSON document on stdout instead of the text report
};

// Returns the process exit code: 0, or 1 after printing the failure (an
// engine error, or a file that does not hold what was written) on stderr.
int run_nodes_command(const NodesCommand& command);

}  // namespace ordo::bench
