// Helpers for the tests of the command-line programs: run a program and
// capture what it printed, and a temporary directory per test.
#pragma once

#include <string>
#include <vector>

#include "temp_dir.h"

namespace ordo::testing {

struct ProcessResult {
  int exit_code = -1;  // valid when signal == 0
  int signal = 0;      // the signal that ended the process, 0 when it exited
  std::string out;     // stdout
  std::string err;     // stderr
};

// Runs argv[0] with the arguments argv[1..] (no shell) and waits for it
// (sys::run_child). A failure to start shows as exit code 127, the reason in err.
ProcessResult run_process(const std::vector<std::string>& argv);

// `name` usable as a GoogleTest parameter name: '-' becomes '_'.
std::string test_param_name(std::string name);

}  // namespace ordo::testing
