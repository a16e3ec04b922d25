// From the child runs of one study to its results: per engine and figure the
// median and interval over the kept rounds, per peer the ratio ordo/peer of
// the same round, the A/A verdict, and the median speed curve per engine.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compare_stats.h"
#include "compare_study.h"

namespace ordo::bench {

// One engine x figure.
struct FigureRow {
  std::string label;  // "ordo" (the A arms of every pair), "ordo-aa" or a peer
  std::string figure;
  Better better = Better::kUnknown;
  std::vector<double> values;  // kept rounds whose run succeeded, in run order
  Summary value;
  bool has_ratio = false;      // every row but "ordo"
  std::vector<double> ratios;  // per kept round: ordo (A of this pair) / this row's engine
  Summary ratio;
};

struct CurveLine {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (nodes created, median nodes/s)
};

struct StudyResult {
  std::vector<FigureRow> rows;  // engines in pair order ("ordo" first), figures as first seen
  // Figures whose A/A ratio interval does not contain 1.0, or that have no
  // A/A ratio at all.
  std::vector<std::string> aa_failures;
  bool aa_ok() const { return aa_failures.empty(); }
  std::vector<CurveLine> curves;  // engines with a curve only
};

// Analyzes `runs` (any order; failed runs count as missing rounds) of a study
// of `pairs` over `rounds` rounds; round 0 is dropped.
StudyResult analyze_study(const StudyPairs& pairs, int rounds, const std::vector<RunRecord>& runs,
                          const IntervalSpec& spec);

}  // namespace ordo::bench
