// Running another program and capturing what it printed: the child runs of
// `ordo-bench compare` and the gnuplot call.
#pragma once

#include <string>
#include <vector>

#include "ordo/status.h"

namespace ordo::bench {

struct ChildResult {
  int exit_code = -1;  // valid when signal == 0
  int signal = 0;      // the signal that ended the child, 0 when it exited
  std::string out;     // all of its stdout
  std::string err;     // all of its stderr
  double seconds = 0;  // wall time from spawn to exit

  bool ok() const { return signal == 0 && exit_code == 0; }
  // "exit code N" or "signal N".
  std::string how_it_ended() const;
};

// Runs argv[0] (a path; no PATH search, no shell) with arguments argv[1..],
// stdin inherited, stdout and stderr captured through temporary files, and
// waits for it. IOError when the temporary files cannot be made or the
// program cannot be started (errno inside); a child that starts and fails is
// a result, not an error.
// REQUIRES: argv is not empty.
Result<ChildResult> run_child(const std::vector<std::string>& argv);

// The first executable file named `name` in the directories of $PATH, or ""
// when there is none.
std::string find_in_path(const std::string& name);

}  // namespace ordo::bench
