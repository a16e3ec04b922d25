#include "compare_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "latency.h"

namespace ordo::bench {
namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

// The successful run of (pair, arm) in `round`, if any.
const RunRecord* find_run(const std::vector<RunRecord>& runs, size_t pair, Arm arm, int round) {
  for (const RunRecord& r : runs) {
    if (r.ok && r.plan.pair == pair && r.plan.arm == arm && r.plan.round == round) return &r;
  }
  return nullptr;
}

std::optional<double> figure_of(const RunRecord& run, const std::string& figure) {
  for (const auto& [name, value] : run.report.figures) {
    if (name == figure) return value;
  }
  return std::nullopt;
}

// Figure names in the order the successful runs first give them.
std::vector<std::string> figure_names(const std::vector<RunRecord>& runs) {
  std::vector<std::string> names;
  for (const RunRecord& run : runs) {
    if (!run.ok) continue;
    for (const auto& [name, value] : run.report.figures) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

// One figure of one arm of one pair, per kept round (kMissing where absent).
std::vector<double> arm_values(const std::vector<RunRecord>& runs, size_t pair, Arm arm, int rounds,
                               const std::string& figure) {
  std::vector<double> values;
  for (int r = 0; r < rounds; ++r) {
    if (!is_kept_round(r)) continue;
    const RunRecord* run = find_run(runs, pair, arm, r);
    const std::optional<double> v = run != nullptr ? figure_of(*run, figure) : std::nullopt;
    values.push_back(v.value_or(kMissing));
  }
  return values;
}

std::vector<double> present(const std::vector<double>& values) {
  std::vector<double> out;
  for (double v : values) {
    if (!std::isnan(v)) out.push_back(v);
  }
  return out;
}

// The curve of `label`: per point index, x of the first run that has it and
// the median y over the kept runs that have it.
std::optional<CurveLine> median_curve(const std::vector<RunRecord>& runs,
                                      const std::string& label) {
  std::vector<std::pair<double, std::vector<double>>> points;
  for (const RunRecord& run : runs) {
    if (!run.ok || run.label != label || !is_kept_round(run.plan.round)) continue;
    for (size_t i = 0; i < run.report.curve.size(); ++i) {
      if (i == points.size()) points.push_back({run.report.curve[i].first, {}});
      points[i].second.push_back(run.report.curve[i].second);
    }
  }
  if (points.empty()) return std::nullopt;
  CurveLine line;
  line.label = label;
  for (const auto& [x, ys] : points) line.points.emplace_back(x, nearest_rank_percentile(ys, 50));
  return line;
}

FigureRow make_row(std::string label, const std::string& figure) {
  FigureRow row;
  row.label = std::move(label);
  row.figure = figure;
  row.better = figure_direction(figure);
  return row;
}

}  // namespace

StudyResult analyze_study(const StudyPairs& pairs, int rounds, const std::vector<RunRecord>& runs,
                          const IntervalSpec& spec) {
  StudyResult result;
  const std::vector<std::string> figures = figure_names(runs);
  for (const std::string& figure : figures) {
    FigureRow ordo = make_row("ordo", figure);
    for (size_t p = 0; p < pairs.size(); ++p) {
      const std::vector<double> a = present(arm_values(runs, p, Arm::kA, rounds, figure));
      ordo.values.insert(ordo.values.end(), a.begin(), a.end());
    }
    ordo.value = summarize(ordo.values, spec);
    result.rows.push_back(std::move(ordo));
  }
  for (size_t p = 0; p < pairs.size(); ++p) {
    for (const std::string& figure : figures) {
      FigureRow row = make_row(pairs.label(p, Arm::kB), figure);
      const Paired rounds_of{arm_values(runs, p, Arm::kA, rounds, figure),
                             arm_values(runs, p, Arm::kB, rounds, figure)};
      row.values = present(rounds_of.b);
      row.value = summarize(row.values, spec);
      row.has_ratio = true;
      row.ratios = per_round_ratios(rounds_of);
      row.ratio = summarize(row.ratios, spec);
      if (p == 0 && !row.ratio.contains(1.0)) result.aa_failures.push_back(figure);
      result.rows.push_back(std::move(row));
    }
  }
  if (figures.empty()) result.aa_failures.push_back("(no figures)");
  std::vector<std::string> labels = {"ordo"};
  for (size_t p = 0; p < pairs.size(); ++p) labels.push_back(pairs.label(p, Arm::kB));
  for (const std::string& label : labels) {
    if (std::optional<CurveLine> line = median_curve(runs, label)) {
      result.curves.push_back(std::move(*line));
    }
  }
  return result;
}

}  // namespace ordo::bench
