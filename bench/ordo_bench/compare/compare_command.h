// `ordo-bench compare`: the interleaved study of docs/BENCHMARKS.md. For each
// workload, ordo against itself (the A/A control) and against each peer, in
// ABBA rounds of fresh child processes on fresh directories; then the
// results table, DIR/compare.csv, DIR/compare.json and the plots.
#pragma once

#include <string>
#include <vector>

#include "compare_report.h"
#include "compare_stats.h"
#include "ordo/status.h"

namespace ordo::bench {

struct CompareCommand {
  std::vector<std::string> workloads;  // names for expand_workloads
  // Engines to compare; "ordo" in it is implied and dropped. Empty: every
  // engine the child's --engine accepts (parse_engine_choices).
  std::vector<std::string> engines;
  int rounds = 5;  // including round 0, which is dropped
  std::string out = "bench-results";
  IntervalSpec interval;
  std::string runner;  // the child binary; empty: this one
  // Another build's ordo-bench: its ordo runs as the peer kBaselineEngine
  // (the build before a change against the build after it). Empty: none.
  std::string baseline;
  std::vector<std::string> extra_args;  // passed to every child run
  std::vector<std::string> command;     // our own argv, for the record
};

// The peer name of --baseline's runs in the tables and files.
inline constexpr const char* kBaselineEngine = "baseline";

// Exit codes beyond run_failure.h's: the study ran but its A/A control failed.
inline constexpr int kExitNoisy = 3;

// Runs the study, prints the table and writes the files; progress and failed
// runs (with their stderr) on stderr. A failed child run is a missing round,
// and the study goes on; a pair whose round-0 run fails is dropped from the
// rest of the study. Returns 0; 1 after a setup error or any failed run
// (files still written); kExitNoisy when every run succeeded but an A/A
// interval excludes 1.0.
int run_compare_command(const CompareCommand& command);

// The two halves of run_compare_command, for commands built on the study
// (`ordo-bench replicated`). run_compare_studies runs every child (progress
// on stderr) and analyzes them; InvalidArgument for an unknown workload,
// IOError when the output directory or the child's --help cannot be had.
// write_compare_outputs prints the table, writes the plots, compare.csv and
// compare.json and returns the exit code as run_compare_command does.
Result<CompareReport> run_compare_studies(const CompareCommand& command);
int write_compare_outputs(const CompareCommand& command, CompareReport& report);

}  // namespace ordo::bench
