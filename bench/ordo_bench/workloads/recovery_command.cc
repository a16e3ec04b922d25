#include "recovery_command.h"

#include <fmt/core.h>

#include <filesystem>

#include "bench_dir.h"
#include "run_failure.h"

namespace ordo::bench {

int run_recovery_command(const RecoveryCommand& command) {
  Result<BenchDir> dir = BenchDir::open(command.dir, command.keep);
  if (!dir.is_ok()) {
    report_failure("setup", command.dir, dir.status());
    return kExitError;
  }
  // Every file of the run goes in a directory of its own.
  Result<std::string> path = dir->new_file("recovery");
  if (!path.is_ok()) {
    report_failure("setup", dir->path(), path.status());
    return kExitError;
  }
  std::error_code ec;
  if (!std::filesystem::create_directory(*path, ec)) {
    report_failure("setup", *path, Status::io_error("mkdir: " + ec.message(), ec.value()));
    return kExitError;
  }
  fmt::print(stderr, "ordo-bench: recovery, {} rows, txns of {} rows -> {}\n",
             command.config.preload, command.config.rows_per_commit, *path);
  Result<RecoveryRun> run = run_recovery(*path, command.config);
  if (!run.is_ok()) {
    report_failure("recovery", *path, run.status());
    return kExitError;
  }
  if (command.json) {
    fmt::print("{}\n", recovery_json(command.config, *run));
  } else {
    print_recovery_text(command.config, *run);
  }
  if (command.keep) fmt::print(stderr, "ordo-bench: kept {}\n", *path);
  return 0;
}

}  // namespace ordo::bench
