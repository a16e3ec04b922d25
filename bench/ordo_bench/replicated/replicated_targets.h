// Targets given to `ordo-bench replicated` (--target FIGURE>=BOUND or
// FIGURE<=BOUND; docs/BENCHMARKS.md names the ones studied) and their
// verdicts from the study's ratios ordo/etcd: a target is met only when the
// whole 95% interval of the ratio lies beyond it, missed when the whole
// interval lies short of it, and undecided otherwise. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compare_analysis.h"
#include "compare_stats.h"
#include "ordo/status.h"

namespace ordo::bench {

struct ReplicatedTarget {
  std::string figure;    // e.g. "puts_per_s_1"
  bool at_least = true;  // ratio >= bound (else ratio <= bound)
  double bound = 0;
};

// "puts_per_s_1>=2.0" -> {figure, at_least, bound}; InvalidArgument naming
// the text when it is not FIGURE>=NUMBER or FIGURE<=NUMBER.
Result<ReplicatedTarget> parse_target(std::string_view text);

enum class Verdict { kMet, kMissed, kUndecided, kNoData };
std::string_view verdict_name(Verdict v);  // "met", "missed", "undecided", "no data"

// The verdict of `target` for a ratio summary.
Verdict judge(const ReplicatedTarget& target, const Summary& ratio);

// One row per figure of the peer `peer` in `result`, with its target among
// `targets` if any.
struct TargetRow {
  std::string figure;
  Summary ratio;  // ordo/peer per round
  bool has_target = false;
  ReplicatedTarget target;
  Verdict verdict = Verdict::kNoData;
};
std::vector<TargetRow> target_rows(const StudyResult& result, std::string_view peer,
                                   const std::vector<ReplicatedTarget>& targets);

}  // namespace ordo::bench
