// The statistics of `ordo-bench compare` (docs/BENCHMARKS.md): the ABBA run
// order, the median and interval of a figure over the kept rounds, the
// per-round ratio ordo/peer, the 10% unresolved rule and the A/A check.
// Pure functions: no I/O, no clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ordo::bench {

// Which way a figure is better, from its name (a unit may be followed by a
// suffix, as in p50_us_10000): *_per_s and *_leaf_fill higher; *_us, *_ms,
// *_bytes, *_leaf_pages, bytes_per_node and files_created lower; anything
// else unknown.
enum class Better { kHigher, kLower, kUnknown };
Better figure_direction(std::string_view figure);
// "higher", "lower" or "unknown".
std::string_view better_name(Better better);
// How the ratio ordo/peer of such a figure reads: "ordo/peer: >1 = ordo
// better", "ordo/peer: <1 = ordo better" or "ordo/peer" (no commas: it is a
// CSV field).
std::string_view ratio_reading(Better better);

enum class IntervalMethod {
  kMinMax,     // the smallest and largest kept round
  kBootstrap,  // 2.5th and 97.5th percentile of the medians of resamples
};

struct IntervalSpec {
  IntervalMethod method = IntervalMethod::kMinMax;
  uint64_t seed = 1;       // of the bootstrap resampling (std::mt19937_64)
  int resamples = 10'000;  // bootstrap resamples
};

// "minmax" or "bootstrap".
std::string_view interval_name(IntervalMethod method);

// The wider-than-this-fraction-of-the-median rule for "unresolved".
inline constexpr double kUnresolvedWidth = 0.10;

// Median and interval of one figure (or ratio) over the kept rounds.
struct Summary {
  size_t count = 0;
  double median = 0;  // nearest-rank p50 (latency.h): a value that occurred
  double lo = 0;
  double hi = 0;

  // (hi - lo) / |median|; 0 when the median is 0 and the interval empty.
  double width_fraction() const;
  // Wider than kUnresolvedWidth of the median, or no values at all.
  bool unresolved() const;
  bool contains(double x) const { return count > 0 && lo <= x && x <= hi; }
};

// All zero for no values. Bootstrap: `spec.resamples` resamples of
// values.size() draws with replacement, each index rng() % n, so the same
// seed gives the same interval on every standard library.
Summary summarize(std::span<const double> values, const IntervalSpec& spec);

// One figure of both arms of a pair, index = kept round; NaN where that
// round's run failed.
struct Paired {
  std::vector<double> a;
  std::vector<double> b;
};
// a[i] / b[i] for each i where both are present; 1 where both are 0 (the
// arms agree); no ratio where only b[i] is 0. Extra entries of the longer
// side are ignored.
std::vector<double> per_round_ratios(const Paired& rounds);

// One arm of a pair: A is ordo, B the peer (or ordo again for the A/A control).
enum class Arm { kA, kB };

// One planned child run.
struct PlannedRun {
  int round = 0;
  size_t pair = 0;  // index into the study's pairs
  Arm arm = Arm::kA;
};

// The run order: round-major, and within a round every pair in turn, A then B
// in even rounds and B then A in odd ones, so each pair runs A B B A A B ...
// and every pair sees the same drift of the machine. The pairs go in order in
// rounds 0 and 1 (mod 4) and in reverse in rounds 2 and 3, so no arm always
// opens a round or always follows the same run (what a run leaves behind,
// such as a large file being freed, then falls on every arm alike).
std::vector<PlannedRun> plan_study(size_t pairs, int rounds);

// Round 0 is a warm-up and dropped from every figure.
inline bool is_kept_round(int round) { return round > 0; }

}  // namespace ordo::bench
