// Helpers for the tests of the command-line programs: run a program and
// capture what it printed, and a temporary directory per test.
#pragma once

#include <string>
#include <vector>

namespace ordo::testing {

struct ProcessResult {
  int exit_code = -1;  // valid when signal == 0
  int signal = 0;      // the signal that ended the process, 0 when it exited
  std::string out;     // stdout
  std::string err;     // stderr
};

// Runs argv[0] with the arguments argv[1..] (no shell) and waits for it
// (bench::run_child). A failure to start shows as exit code 127, the reason in err.
ProcessResult run_process(const std::vector<std::string>& argv);

// `name` usable as a GoogleTest parameter name: '-' becomes '_'.
std::string test_param_name(std::string name);

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on
// destruction.

class ScopedTempDir {
 public:
  ScopedTempDir();
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace ordo::testing
