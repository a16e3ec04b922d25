// The shell of a subcommand that runs one workload once: its bench
// directory, the paths it needs there, the failure report and the output.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/status.h"

namespace ordo::bench {

// --path, --keep and --json.
struct CommandOutput {
  std::string dir;    // empty: a fresh temporary directory
  bool keep = false;  // keep the files (and print where)
  bool json = false;  // one JSON document on stdout instead of the text report
};

// Opens the bench directory of `output`, makes the new paths `names` in it
// and calls `run` with them; `run` returns the report to print (text or JSON,
// as output.json says). Returns the exit code: 0, or 1 after printing the
// failure ("ordo-bench: WHAT FAILED for PATH: ...") on stderr.
int run_single(
    const CommandOutput& output, std::string_view what, const std::vector<std::string>& names,
    const std::function<Result<std::string>(const std::vector<std::string>& paths)>& run);

}  // namespace ordo::bench
