// `ordo-bench recovery`: open times after a crash with a full log (ordo only).
#pragma once

#include <string>

#include "recovery_workload.h"

namespace ordo::bench {

struct RecoveryCommand {
  RecoveryConfig config;
  std::string dir;    // empty: a fresh temporary directory
  bool keep = false;  // keep the database file (and print its path)
  bool json = false;  // one JSON document on stdout instead of the text report
};

// Returns the process exit code: 0, or 1 after printing the failure on stderr.
int run_recovery_command(const RecoveryCommand& command);

}  // namespace ordo::bench
