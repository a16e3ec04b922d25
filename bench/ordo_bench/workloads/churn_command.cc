#include "churn_command.h"

#include <fmt/core.h>

#include <utility>
#include <vector>

#include "bench_dir.h"
#include "churn_report.h"
#include "run_failure.h"

namespace ordo::bench {

int run_churn_command(const ChurnCommand& command) {
  Result<BenchDir> dir = BenchDir::open(command.dir, command.keep);
  if (!dir.is_ok()) {
    report_failure("setup", command.dir, dir.status());
    return kExitError;
  }
  const ChurnConfig& config = command.config;
  std::vector<ChurnRun> runs;
  for (bool with_reader : {false, true}) {
    Result<std::string> path =
        dir->new_file(with_reader ? "churn-reader.ordo" : "churn-no-reader.ordo");
    if (!path.is_ok()) {
      report_failure("setup", dir->path(), path.status());
      return kExitError;
    }
    fmt::print(stderr, "ordo-bench: churn, {}, {} keys x {} rounds -> {}\n",
               with_reader ? "reader held" : "no reader", config.keys, config.rounds, *path);
    Result<ChurnRun> run = run_churn(*path, config, with_reader);
    if (!run.is_ok()) {
      report_failure("churn", *path, run.status());
      return kExitError;
    }
    runs.push_back(std::move(run).value());
  }
  if (command.json) {
    fmt::print("{}\n", churn_json(config, runs, command.keep));
    if (command.keep) fmt::print(stderr, "ordo-bench: kept the files in {}\n", dir->path());
  } else {
    print_churn_text(config, runs, command.keep);
  }
  return 0;
}

}  // namespace ordo::bench
