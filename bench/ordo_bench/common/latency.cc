#include "latency.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ordo::bench {
namespace {

// REQUIRES: sorted is sorted and not empty; 0 < p <= 100.
double nearest_rank(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

LatencySummary summarize_latency(std::span<const double> samples_us) {
  LatencySummary s;
  if (samples_us.empty()) return s;
  std::vector<double> sorted(samples_us.begin(), samples_us.end());
  std::sort(sorted.begin(), sorted.end());
  s.count = sorted.size();
  s.p50_us = nearest_rank(sorted, 50);
  s.p99_us = nearest_rank(sorted, 99);
  s.max_us = sorted.back();
  return s;
}

double nearest_rank_percentile(std::span<const double> samples, double p) {
  if (samples.empty()) return 0;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return nearest_rank(sorted, p);
}

nlohmann::ordered_json latency_json(const LatencySummary& s) {
  return {{"count", s.count}, {"p50_us", s.p50_us}, {"p99_us", s.p99_us}, {"max_us", s.max_us}};
}

}  // namespace ordo::bench
