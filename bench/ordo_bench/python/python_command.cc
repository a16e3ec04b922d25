#include "python_command.h"

#include <fmt/core.h>

#include <filesystem>

#include "compare_command.h"
#include "study_targets.h"

namespace ordo::bench {

std::string default_python_script() {
#ifdef ORDO_BENCH_PYTHON_SCRIPT
  return ORDO_BENCH_PYTHON_SCRIPT;
#else
  return "";
#endif
}

std::string default_python_module_dir() {
#ifdef ORDO_BENCH_PYTHON_MODULE_DIR
  // Where python/ puts the package in this build tree, when it built one.
  std::error_code ec;
  if (std::filesystem::exists(ORDO_BENCH_PYTHON_MODULE_DIR "/ordo/__init__.py", ec)) {
    return ORDO_BENCH_PYTHON_MODULE_DIR;
  }
#endif
  return "";
}

int run_python_command(const PythonCommand& command) {
  CompareCommand compare;
  for (const std::string& group : command.groups) compare.workloads.push_back("python-" + group);
  compare.engines = {"lmdb"};
  compare.rounds = command.rounds;
  compare.out = command.out;
  compare.interval.seed = command.seed;
  compare.runner = command.script;
  compare.extra_args = {"--rows", fmt::format("{}", command.rows)};
  if (!command.module_dir.empty()) {
    compare.extra_args.insert(compare.extra_args.end(), {"--module-path", command.module_dir});
  }
  compare.command = command.command;
  return run_targeted_study(std::move(compare), "lmdb", command.targets, "python");
}

}  // namespace ordo::bench
