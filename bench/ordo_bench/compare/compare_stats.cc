#include "compare_stats.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "latency.h"

namespace ordo::bench {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Names like p50_us_10000 carry a suffix after the unit.
bool has_unit(std::string_view s, std::string_view unit) {
  return ends_with(s, unit) || s.find(std::string(unit) + "_") != std::string_view::npos;
}

Summary bootstrap(std::span<const double> values, const IntervalSpec& spec) {
  std::mt19937_64 rng(spec.seed);
  const size_t n = values.size();
  std::vector<double> medians;
  medians.reserve(static_cast<size_t>(spec.resamples));
  std::vector<double> draw(n);
  for (int r = 0; r < spec.resamples; ++r) {
    for (double& d : draw) d = values[rng() % n];
    medians.push_back(nearest_rank_percentile(draw, 50));
  }
  Summary s;
  s.count = n;
  s.median = nearest_rank_percentile(values, 50);
  s.lo = nearest_rank_percentile(medians, 2.5);
  s.hi = nearest_rank_percentile(medians, 97.5);
  return s;
}

}  // namespace

Better figure_direction(std::string_view figure) {
  if (has_unit(figure, "_per_s") || has_unit(figure, "_leaf_fill")) return Better::kHigher;
  if (has_unit(figure, "_leaf_pages")) return Better::kLower;
  if (has_unit(figure, "_us") || has_unit(figure, "_ms") || ends_with(figure, "_bytes") ||
      ends_with(figure, "_mib") || figure == "bytes_per_node" || figure == "files_created") {
    return Better::kLower;
  }
  return Better::kUnknown;
}

std::string_view better_name(Better better) {
  switch (better) {
    case Better::kHigher:
      return "higher";
    case Better::kLower:
      return "lower";
    case Better::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view ratio_reading(Better better) {
  switch (better) {
    case Better::kHigher:
      return "ordo/peer: >1 = ordo better";
    case Better::kLower:
      return "ordo/peer: <1 = ordo better";
    case Better::kUnknown:
      break;
  }
  return "ordo/peer";
}

std::string_view interval_name(IntervalMethod method) {
  return method == IntervalMethod::kBootstrap ? "bootstrap" : "minmax";
}

double Summary::width_fraction() const {
  const double width = hi - lo;
  if (median == 0) return width == 0 ? 0 : INFINITY;
  return width / std::fabs(median);
}

bool Summary::unresolved() const { return count == 0 || width_fraction() > kUnresolvedWidth; }

Summary summarize(std::span<const double> values, const IntervalSpec& spec) {
  if (values.empty()) return {};
  if (spec.method == IntervalMethod::kBootstrap && spec.resamples > 0) {
    return bootstrap(values, spec);
  }
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return Summary{values.size(), nearest_rank_percentile(values, 50), *lo, *hi};
}

std::vector<double> per_round_ratios(const Paired& rounds) {
  std::vector<double> ratios;
  for (size_t i = 0; i < rounds.a.size() && i < rounds.b.size(); ++i) {
    if (std::isnan(rounds.a[i]) || std::isnan(rounds.b[i])) continue;
    if (rounds.b[i] == 0) {
      if (rounds.a[i] == 0) ratios.push_back(1.0);  // e.g. 0 files created on both arms
      continue;
    }
    ratios.push_back(rounds.a[i] / rounds.b[i]);
  }
  return ratios;
}

std::vector<PlannedRun> plan_study(size_t pairs, int rounds) {
  std::vector<PlannedRun> plan;
  for (int r = 0; r < rounds; ++r) {
    const bool a_first = r % 2 == 0;
    const bool reversed = r % 4 >= 2;
    for (size_t i = 0; i < pairs; ++i) {
      const size_t p = reversed ? pairs - 1 - i : i;
      plan.push_back({r, p, a_first ? Arm::kA : Arm::kB});
      plan.push_back({r, p, a_first ? Arm::kB : Arm::kA});
    }
  }
  return plan;
}

}  // namespace ordo::bench
