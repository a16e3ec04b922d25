// Percentiles of a set of samples (latencies, or the rounds of a study).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>

namespace ordo::bench {

struct LatencySummary {
  uint64_t count = 0;
  double p50_us = 0;
  double p99_us = 0;
  double max_us = 0;
};

// Nearest-rank percentiles (the smallest sample with at least p% of the
// samples at or below it) of `samples_us`; all zero when it is empty.
LatencySummary summarize_latency(std::span<const double> samples_us);

// The nearest-rank percentile `p` (0 < p <= 100) of `samples`, in any order:
// the smallest sample with at least p% of them at or below it. 0 when empty.
// p = 50 is the median of `ordo-bench compare` (of an even count, the lower
// of the middle two).
double nearest_rank_percentile(std::span<const double> samples, double p);

// {"count", "p50_us", "p99_us", "max_us"}.
nlohmann::ordered_json latency_json(const LatencySummary& s);

}  // namespace ordo::bench
