// `ordo-bench python`: the interleaved study of ordo's Python package against
// py-lmdb on the machinery of `ordo-bench compare` (ABBA rounds of fresh
// child processes, the A/A control ordo/ordo, bootstrap intervals), the
// child being bench/python/ordo_py_bench.py run by Debian's python3; then the
// targets' verdicts (study_targets.h). docs/BENCHMARKS.md, "From Python".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compare_workloads.h"

namespace ordo::bench {

// The child script in this source tree, and the directory of the ordo
// module this build made (empty when it made none: the child then imports
// an installed one).
std::string default_python_script();
std::string default_python_module_dir();

struct PythonCommand {
  int rounds = 6;  // round 0 included and dropped
  uint64_t rows = 1'000'000;
  std::vector<std::string> groups = kPythonGroups;
  std::string out = "bench-results/python";
  uint64_t seed = 1;  // of the bootstrap
  std::string script = default_python_script();
  std::string module_dir = default_python_module_dir();
  std::vector<std::string> targets;  // "FIGURE>=BOUND" or "FIGURE<=BOUND"
  std::vector<std::string> command;  // own argv, for the record
};

// Runs the study of each group (workload python-GROUP), prints compare's table, then the ratios
// ordo/lmdb with their intervals and the targets' verdicts; writes DIR/compare.csv,
// DIR/compare.json, DIR/runs/, DIR/targets.csv and DIR/targets.json.
// Returns compare's exit codes (0, 1 a run failed, 3 the A/A control
// failed), or 2 before any run for a target that does not parse.
int run_python_command(const PythonCommand& command);

}  // namespace ordo::bench
