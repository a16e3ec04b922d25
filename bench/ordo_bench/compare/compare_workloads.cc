#include "compare_workloads.h"

#include <algorithm>
#include <sstream>

namespace ordo::bench {
namespace {

void add_once(std::vector<WorkloadSpec>& specs, WorkloadSpec spec) {
  const bool seen = std::any_of(specs.begin(), specs.end(),
                                [&](const WorkloadSpec& s) { return s.name == spec.name; });
  if (!seen) specs.push_back(std::move(spec));
}

std::string python_groups() {
  std::string out;
  for (const std::string& g : kPythonGroups) out += (out.empty() ? "" : ", ") + g;
  return out;
}

}  // namespace

Result<std::vector<WorkloadSpec>> expand_workloads(const std::vector<std::string>& names) {
  std::vector<WorkloadSpec> specs;
  for (const std::string& name : names) {
    if (name == "nodes" || name == "nodes-seq") {
      add_once(specs, {"nodes-seq", "nodes", {"--ids", "seq"}});
    }
    if (name == "nodes" || name == "nodes-random") {
      add_once(specs, {"nodes-random", "nodes", {"--ids", "random"}});
    }
    if (name == "nodes-edges") add_once(specs, {"nodes-edges", "nodes", {"--ids", "edges"}});
    if (name == "nodes" || name == "nodes-seq" || name == "nodes-random" || name == "nodes-edges") {
      continue;
    }
    if (name == "commit" || name == "reads" || name == "trees" || name == "linkbench" ||
        name == "redb") {
      add_once(specs, {name, name, {}});
      continue;
    }
    if (name == "replicated") {
      add_once(specs, {name, "replicated-run", {}});
      continue;
    }
    // The Python study's child is bench/python/ordo_py_bench.py: its phase
    // groups are its subcommands.
    const std::string_view python = "python-";
    if (name.starts_with(python) && std::find(kPythonGroups.begin(), kPythonGroups.end(),
                                              name.substr(python.size())) != kPythonGroups.end()) {
      add_once(specs, {name, name.substr(python.size()), {}});
      continue;
    }
    return Status::invalid_argument(
        "unknown workload '" + name +
        "': nodes, nodes-seq, nodes-random, nodes-edges, commit, reads, trees, linkbench, "
        "redb, replicated or python-GROUP (" +
        python_groups() + ")");
  }
  if (specs.empty()) return Status::invalid_argument("no workload given");
  return specs;
}

std::vector<std::string> child_argv(const std::string& runner, const WorkloadSpec& spec,
                                    const std::string& engine, const std::string& dir,
                                    const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {runner, spec.subcommand};
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  argv.emplace_back("--engine");
  argv.push_back(engine);
  argv.emplace_back("--json");
  argv.emplace_back("--path");
  argv.push_back(dir);
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

std::vector<std::string> parse_engine_choices(std::string_view help_text) {
  const size_t option = help_text.find("--engine");
  if (option == std::string_view::npos) return {};
  const size_t line_end = std::min(help_text.find('\n', option), help_text.size());
  const std::string_view line = help_text.substr(option, line_end - option);
  const size_t open = line.find('{');
  const size_t close = line.find('}', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return {};
  std::vector<std::string> engines;
  std::istringstream items(std::string(line.substr(open + 1, close - open - 1)));
  std::string item;
  while (std::getline(items, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) engines.push_back(item);
  }
  return engines;
}

}  // namespace ordo::bench
