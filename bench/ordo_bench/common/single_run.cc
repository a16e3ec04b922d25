#include "single_run.h"

#include <fmt/core.h>

#include "bench_dir.h"
#include "run_failure.h"

namespace ordo::bench {

int run_single(
    const CommandOutput& output, std::string_view what, const std::vector<std::string>& names,
    const std::function<Result<std::string>(const std::vector<std::string>& paths)>& run) {
  Result<BenchDir> dir = BenchDir::open(output.dir, output.keep);
  if (!dir.is_ok()) {
    report_failure("setup", output.dir, dir.status());
    return kExitError;
  }
  std::vector<std::string> paths;
  for (const std::string& name : names) {
    Result<std::string> path = dir->new_file(name);
    if (!path.is_ok()) {
      report_failure("setup", dir->path(), path.status());
      return kExitError;
    }
    paths.push_back(*path);
  }
  Result<std::string> report = run(paths);
  if (!report.is_ok()) {
    report_failure(what, paths.empty() ? dir->path() : paths.front(), report.status());
    return kExitError;
  }
  fmt::print("{}\n", *report);
  if (output.keep) fmt::print(stderr, "ordo-bench: kept the files in {}\n", dir->path());
  return 0;
}

}  // namespace ordo::bench
