// `ordo-bench churn`: the churn workload without and with a held reader,
// each on its own fresh database file.
#pragma once

#include <string>

#include "churn_workload.h"

namespace ordo::bench {

struct ChurnCommand {
  ChurnConfig config;
  std::string dir;    // empty: a fresh temporary directory
  bool keep = false;  // keep the database files (and print their paths)
  bool json = false;  // one JSON document on stdout instead of the text report
};

// Returns the process exit code: 0, or 1 after printing the failure on stderr.
int run_churn_command(const ChurnCommand& command);

}  // namespace ordo::bench
