// The results of `ordo-bench compare`: the text table on stdout, compare.csv
// and compare.json.
#pragma once

#include <string>
#include <vector>

#include "compare_analysis.h"
#include "compare_workloads.h"

namespace ordo::bench {

// One workload's study: its runs in the order they ran, and their analysis.
struct WorkloadStudy {
  WorkloadSpec spec;
  std::vector<std::string> example_argv;  // a child command line, for the record
  std::vector<RunRecord> runs;
  StudyResult result;
};

// Everything one `ordo-bench compare` invocation found.
struct CompareReport {
  std::vector<std::string> command;  // its own argv
  std::string runner;                // the child binary
  std::vector<std::string> peers;
  int rounds = 0;
  IntervalSpec interval;
  std::vector<WorkloadStudy> studies;
  std::vector<std::string> plots;  // PNG files written
  std::string plot_note;           // e.g. "gnuplot not found: ..."

  size_t failed_runs() const;
  bool aa_ok() const;  // every study's A/A control contains 1.0
};

// The verdict line: "A/A control ok" or "machine too noisy: rerun".
std::string verdict(const CompareReport& report);

// Per study: the table of engine x figure with median, interval, ratio and
// the unresolved marks; the failed runs with their errors; then the A/A
// verdict (loud when it fails). On stdout.
void print_compare_text(const CompareReport& report);

// One header line, then one line per workload x engine x figure:
// workload,engine,figure,better,n,median,lo,hi,width_pct,status,
// ratio_n,ratio_median,ratio_lo,ratio_hi,ratio_width_pct,ratio_status,ratio_reads
// (ratio fields empty on the "ordo" rows; status "resolved"/"unresolved").
std::string compare_csv(const CompareReport& report);

// The whole report as one JSON document: settings, per study the run order
// (round, pair, arm, engine, seconds, ok, error), the rows with their
// per-round values and ratios, the A/A result and the median curves.
std::string compare_json(const CompareReport& report);

}  // namespace ordo::bench
