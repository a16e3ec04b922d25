// Targets given to a study built on `ordo-bench compare` (`ordo-bench
// replicated`, `ordo-bench python`: --target FIGURE>=BOUND or FIGURE<=BOUND;
// docs/BENCHMARKS.md names the ones studied) and their verdicts from the
// study's ratios ordo/peer: a target is met only when the whole 95% interval
// of the ratio lies beyond it, missed when the whole interval lies short of
// it, and undecided otherwise. Pure functions but report_targets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compare_analysis.h"
#include "compare_command.h"
#include "compare_stats.h"
#include "ordo/status.h"

namespace ordo::bench {

struct StudyTarget {
  std::string figure;    // e.g. "puts_per_s_1"
  bool at_least = true;  // ratio >= bound (else ratio <= bound)
  double bound = 0;
};

// "puts_per_s_1>=2.0" -> {figure, at_least, bound}; InvalidArgument naming
// the text when it is not FIGURE>=NUMBER or FIGURE<=NUMBER.
Result<StudyTarget> parse_target(std::string_view text);
// Each of `texts`; the first error.
Result<std::vector<StudyTarget>> parse_targets(const std::vector<std::string>& texts);

enum class Verdict { kMet, kMissed, kUndecided, kNoData };
std::string_view verdict_name(Verdict v);  // "met", "missed", "undecided", "no data"

// The verdict of `target` for a ratio summary.
Verdict judge(const StudyTarget& target, const Summary& ratio);

// One row per figure of the peer `peer` in `result`, with its target among
// `targets` if any.
struct TargetRow {
  std::string figure;
  Summary ratio;  // ordo/peer per round
  bool has_target = false;
  StudyTarget target;
  Verdict verdict = Verdict::kNoData;
};
std::vector<TargetRow> target_rows(const StudyResult& result, std::string_view peer,
                                   const std::vector<StudyTarget>& targets);

// After write_compare_outputs: prints every study's ratios ordo/`peer` with
// their bootstrap intervals and the verdicts of `targets`, and writes
// OUT/targets.csv and OUT/targets.json. Returns `code` (write_compare_outputs'
// exit code), or kExitError when the files cannot be written.
int report_targets(const CompareCommand& compare, const CompareReport& report,
                   std::string_view peer, const std::vector<StudyTarget>& targets, int code);

// A study judged by targets (`ordo-bench replicated`, `ordo-bench python`):
// parses `target_texts`, runs `compare` with bootstrap intervals (its seed
// kept), writes compare's outputs, then report_targets against `peer`.
// Returns 2 before any run for a target that does not parse (named on
// stderr after `name`), else compare's exit codes.
int run_targeted_study(CompareCommand compare, std::string_view peer,
                       const std::vector<std::string>& target_texts, std::string_view name);

}  // namespace ordo::bench
