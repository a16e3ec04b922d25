// `ordo-bench trees`: the trees workload on a fresh store ("trees.<engine>").
#pragma once

#include <string>

#include "trees_workload.h"

namespace ordo::bench {

struct TreesCommand {
  TreesConfig config;
  std::string dir;    // empty: a fresh temporary directory
  bool keep = false;  // keep the database file (and print its path)
  bool json = false;  // one JSON document on stdout instead of the text report
};

// Returns the process exit code: 0, or 1 after printing the failure on stderr.
int run_trees_command(const TreesCommand& command);

}  // namespace ordo::bench
