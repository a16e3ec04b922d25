#include "trees_command.h"

#include <fmt/core.h>

#include "bench_dir.h"
#include "run_failure.h"
#include "trees_report.h"

namespace ordo::bench {

int run_trees_command(const TreesCommand& command) {
  Result<BenchDir> dir = BenchDir::open(command.dir, command.keep);
  if (!dir.is_ok()) {
    report_failure("setup", command.dir, dir.status());
    return kExitError;
  }
  Result<std::string> path = dir->new_file("trees." + command.config.engine);
  if (!path.is_ok()) {
    report_failure("setup", dir->path(), path.status());
    return kExitError;
  }
  fmt::print(stderr, "ordo-bench: trees, {}, {} trees, {} -> {}\n", command.config.engine,
             command.config.trees, command.config.commits.sync ? "durable" : "not durable", *path);
  Result<TreesRun> run = run_trees(*path, command.config);
  if (!run.is_ok()) {
    report_failure("trees", *path, run.status());
    return kExitError;
  }
  if (command.json) {
    fmt::print("{}\n", trees_json(command.config, *run, command.keep));
    if (command.keep) fmt::print(stderr, "ordo-bench: kept the file {}\n", *path);
  } else {
    print_trees_text(command.config, *run, command.keep);
  }
  return 0;
}

}  // namespace ordo::bench
