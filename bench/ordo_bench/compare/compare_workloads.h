// What `ordo-bench compare` asks of the child binary: the subcommand and
// arguments of each workload it compares, and which engines the child offers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ordo/status.h"

namespace ordo::bench {

// One workload of a study and the child command line that runs it.
struct WorkloadSpec {
  std::string name;               // as in the results: "nodes-seq", "commit", ...
  std::string subcommand;         // of the child: "nodes", "commit", ...
  std::vector<std::string> args;  // before the common ones, e.g. {"--ids", "seq"}
};

// Expands the --workload names: "nodes" is nodes-seq then nodes-random
// (child `nodes --ids seq|random`); nodes-edges is `nodes --ids edges`, in no
// group; nodes-seq, nodes-random, commit, reads,
// trees, linkbench and redb map to the subcommand of that name; replicated to
// `replicated-run` (a cluster per run: ordo-node or etcd); python-GROUP,
// for each GROUP of kPythonGroups, to GROUP (a subcommand of the Python
// study's child script). Duplicates are kept once. InvalidArgument for any
// other name or an empty list.
Result<std::vector<WorkloadSpec>> expand_workloads(const std::vector<std::string>& names);

// The phase groups of the Python study's child, bench/python/ordo_py_bench.py.
inline const std::vector<std::string> kPythonGroups = {"calls",    "ingest",  "columns",
                                                       "ingest5m", "getmany", "scan"};

// The child's argv for one run: runner, subcommand, spec args, --engine E,
// --json, --path DIR, then `extra` (what followed `--` on the compare line).
std::vector<std::string> child_argv(const std::string& runner, const WorkloadSpec& spec,
                                    const std::string& engine, const std::string& dir,
                                    const std::vector<std::string>& extra);

// The engines the child's `--engine` accepts, read from its `--help` text
// (CLI11 prints an IsMember check as "--engine TEXT:{a,b,c}"). Empty when
// the text has no such option or no choice set.
std::vector<std::string> parse_engine_choices(std::string_view help_text);

}  // namespace ordo::bench
