// `ordo-bench replicated-run` (one run of one arm: a fresh 3-node cluster of
// ordo-node or etcd on 127.0.0.1, the workload of replicated_workload.h) and
// `ordo-bench replicated` (the interleaved study of ordo against etcd on the
// machinery of `ordo-bench compare`, with the A/A control ordo/ordo, then the
// targets' verdicts).
#pragma once

#include <string>
#include <vector>

#include "replicated_workload.h"
#include "single_run.h"

namespace ordo::bench {

// The binaries' defaults: etcd from Debian's etcd-server; ordo-node as built
// beside this ordo-bench (empty when this build has none).
std::string default_etcd_binary();
std::string default_ordo_node_binary();

struct ReplicatedRunCommand {
  std::string engine = "ordo";  // "ordo" or "etcd"
  int nodes = 3;
  bool tls = false;  // mutual TLS on both engines (replicated_store.h)
  ReplicatedConfig config;
  std::string etcd_binary = default_etcd_binary();
  std::string node_binary = default_ordo_node_binary();
  CommandOutput output;
};

// Prints the figures (a table, or with --json one document: "workload":
// "replicated", "engine", "figures", "counts", "settings"). Returns 0; 1 after
// printing why the cluster or a phase failed; 2 when the engine is not
// available in this build.
int run_replicated_run_command(const ReplicatedRunCommand& command);

struct ReplicatedCommand {
  int rounds = 8;        // round 0 included and dropped
  double seconds = 3.0;  // per client count, per run
  double warmup_seconds = 0.5;
  std::string out = "bench-results/replicated";
  uint64_t seed = 1;                 // of the bootstrap
  bool tls = false;                  // every run with --tls
  std::string etcd_binary;           // empty: the default
  std::string node_binary;           // empty: the default
  std::vector<std::string> targets;  // "FIGURE>=BOUND" or "FIGURE<=BOUND" (study_targets.h)
  std::vector<std::string> command;  // own argv, for the record
};

// Runs the study (ABBA rounds: A/A pair ordo/ordo-aa, then ordo/etcd), prints
// compare's table, then the ratios ordo/etcd with their bootstrap 95%
// intervals and the verdicts of the targets given; writes DIR/compare.csv,
// DIR/compare.json, DIR/runs/, DIR/targets.csv and DIR/targets.json.
// Returns compare's exit codes (0, 1 a run failed, 3 the A/A control failed),
// or 2 before any run for a target that does not parse.
int run_replicated_command(const ReplicatedCommand& command);

}  // namespace ordo::bench
