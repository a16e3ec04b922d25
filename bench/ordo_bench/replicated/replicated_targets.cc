#include "replicated_targets.h"

namespace ordo::bench {

std::vector<ReplicatedTarget> replicated_targets() {
  return {{"puts_per_s_1", true, 2.0},
          {"puts_per_s_16", true, 2.0},
          {"p50_us_1", false, 0.5},
          {"p50_us_16", false, 0.5}};
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kMet: return "met";
    case Verdict::kMissed: return "missed";
    case Verdict::kUndecided: return "undecided";
    case Verdict::kNoData: break;
  }
  return "no data";
}

Verdict judge(const ReplicatedTarget& target, const Summary& ratio) {
  if (ratio.count == 0) return Verdict::kNoData;
  if (target.at_least) {
    if (ratio.lo >= target.bound) return Verdict::kMet;
    if (ratio.hi < target.bound) return Verdict::kMissed;
  } else {
    if (ratio.hi <= target.bound) return Verdict::kMet;
    if (ratio.lo > target.bound) return Verdict::kMissed;
  }
  return Verdict::kUndecided;
}

std::vector<TargetRow> target_rows(const StudyResult& result, std::string_view peer) {
  const std::vector<ReplicatedTarget> targets = replicated_targets();
  std::vector<TargetRow> rows;
  for (const FigureRow& row : result.rows) {
    if (row.label != peer || !row.has_ratio) continue;
    TargetRow t;
    t.figure = row.figure;
    t.ratio = row.ratio;
    for (const ReplicatedTarget& target : targets) {
      if (target.figure == row.figure) {
        t.has_target = true;
        t.target = target;
        t.verdict = judge(target, row.ratio);
      }
    }
    rows.push_back(std::move(t));
  }
  return rows;
}

}  // namespace ordo::bench
