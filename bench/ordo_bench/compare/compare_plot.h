// The plots of `ordo-bench compare`, drawn by gnuplot run as a child process:
// per nodes workload, nodes/s against nodes created (the median curve, one
// line per engine); for commit, p50 latency against preload size (log x).
#pragma once

#include <string>

#include "compare_report.h"

namespace ordo::bench {

// For each study that has something to plot, writes into `dir` a data file
// NAME.dat and a script NAME.gp (NAME: "<workload>-curve" or "commit-p50";
// the script reads its data relative to `dir`), then runs gnuplot on it,
// which writes NAME.png. Adds the PNGs to report.plots. When gnuplot is not
// on $PATH, or fails, says so in report.plot_note and leaves the .dat and
// .gp files: not an error. IOError when a file cannot be written.
Status write_plots(const std::string& dir, CompareReport& report);

}  // namespace ordo::bench
