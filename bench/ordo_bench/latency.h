// Percentiles of a set of latencies.
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

// {"count", "p50_us", "p99_us", "max_us"}.
nlohmann::ordered_json latency_json(const LatencySummary& s);

}  // namespace ordo::bench
