#include "replicated_targets.h"

#include <charconv>
#include <cmath>
#include <string>

namespace ordo::bench {

Result<ReplicatedTarget> parse_target(std::string_view text) {
  const auto bad = [&] {
    return Status::invalid_argument("target '" + std::string(text) +
                                    "': expected FIGURE>=NUMBER or FIGURE<=NUMBER");
  };
  size_t op = text.find(">=");
  const bool at_least = op != std::string_view::npos;
  if (!at_least) op = text.find("<=");
  if (op == std::string_view::npos || op == 0) return bad();
  const std::string bound_text(text.substr(op + 2));
  double bound = 0;
  const char* first = bound_text.data();
  const char* last = first + bound_text.size();
  const auto [end, ec] = std::from_chars(first, last, bound);
  if (bound_text.empty() || ec != std::errc() || end != last || !std::isfinite(bound)) return bad();
  return ReplicatedTarget{std::string(text.substr(0, op)), at_least, bound};
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kMet:
      return "met";
    case Verdict::kMissed:
      return "missed";
    case Verdict::kUndecided:
      return "undecided";
    case Verdict::kNoData:
      break;
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

std::vector<TargetRow> target_rows(const StudyResult& result, std::string_view peer,
                                   const std::vector<ReplicatedTarget>& targets) {
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
