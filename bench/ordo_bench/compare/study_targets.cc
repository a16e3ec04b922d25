#include "study_targets.h"

#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_dir.h"
#include "run_failure.h"

namespace ordo::bench {

Result<StudyTarget> parse_target(std::string_view text) {
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
  return StudyTarget{std::string(text.substr(0, op)), at_least, bound};
}

Result<std::vector<StudyTarget>> parse_targets(const std::vector<std::string>& texts) {
  std::vector<StudyTarget> targets;
  for (const std::string& text : texts) {
    ORDO_ASSIGN_OR_RETURN(StudyTarget target, parse_target(text));
    targets.push_back(std::move(target));
  }
  return targets;
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

Verdict judge(const StudyTarget& target, const Summary& ratio) {
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
                                   const std::vector<StudyTarget>& targets) {
  std::vector<TargetRow> rows;
  for (const FigureRow& row : result.rows) {
    if (row.label != peer || !row.has_ratio) continue;
    TargetRow t;
    t.figure = row.figure;
    t.ratio = row.ratio;
    for (const StudyTarget& target : targets) {
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

namespace {

using json = nlohmann::ordered_json;

std::string ratio_text(const Summary& s) {
  if (s.count == 0) return "no rounds";
  return fmt::format("{:.3f} [{:.3f} - {:.3f}]{}", s.median, s.lo, s.hi,
                     s.unresolved() ? " (noisy: wider than 10%)" : "");
}

std::string target_text(const TargetRow& row) {
  if (!row.has_target) return "-";
  return fmt::format("{} {:.1f}", row.target.at_least ? ">=" : "<=", row.target.bound);
}

}  // namespace

int report_targets(const CompareCommand& compare, const CompareReport& report,
                   std::string_view peer, const std::vector<StudyTarget>& targets, int code) {
  std::string csv = "workload,figure,ratio_n,ratio_median,ratio_lo,ratio_hi,target,verdict\n";
  json rows_json = json::array();
  bool aa_ok = true;
  for (const WorkloadStudy& study : report.studies) {
    const StudyResult& result = study.result;
    aa_ok = aa_ok && result.aa_ok();
    fmt::print(
        "\n== {}: ordo/{} per round (bootstrap 95% interval of the median, {} rounds, round 0 "
        "dropped)\n",
        study.spec.name, peer, compare.rounds);
    fmt::print("{:<32} {:<44} {:<8} {}\n", "figure",
               fmt::format("ratio ordo/{} [95% interval]", peer), "target", "verdict");
    for (const TargetRow& row : target_rows(result, peer, targets)) {
      const std::string verdict = row.has_target ? std::string(verdict_name(row.verdict)) : "-";
      fmt::print("{:<32} {:<44} {:<8} {}\n", row.figure, ratio_text(row.ratio), target_text(row),
                 verdict);
      csv += fmt::format("{},{},{},{},{},{},{},{}\n", study.spec.name, row.figure, row.ratio.count,
                         row.ratio.median, row.ratio.lo, row.ratio.hi, target_text(row), verdict);
      json t = {{"workload", study.spec.name},
                {"figure", row.figure},
                {"ratio",
                 {{"n", row.ratio.count},
                  {"median", row.ratio.median},
                  {"lo", row.ratio.lo},
                  {"hi", row.ratio.hi}}}};
      if (row.has_target) {
        t["target"] = target_text(row);
        t["verdict"] = verdict;
      }
      rows_json.push_back(std::move(t));
    }
  }
  fmt::print("A/A control (ordo/ordo-aa): {}\n",
             aa_ok ? "every ratio interval contains 1.0"
                   : "FAILED for some figure: machine too noisy, rerun");
  json doc = {{"command", compare.command},
              {"ratio", fmt::format("ordo/{} of the same round", peer)},
              {"interval", "bootstrap 95% of the median"},
              {"rule",
               "met when the whole interval lies beyond the bound, missed when it lies "
               "wholly short, else undecided"},
              {"aa_ok", aa_ok},
              {"targets", rows_json}};
  Status written = write_text_file(compare.out + "/targets.csv", csv);
  if (written.is_ok()) written = write_text_file(compare.out + "/targets.json", doc.dump(2) + "\n");
  if (!written.is_ok()) {
    report_failure("targets output", compare.out, written);
    return kExitError;
  }
  fmt::print("wrote {0}/targets.csv, {0}/targets.json\n", compare.out);
  return code;
}

int run_targeted_study(CompareCommand compare, std::string_view peer,
                       const std::vector<std::string>& target_texts, std::string_view name) {
  constexpr int kExitUsage = 2;
  Result<std::vector<StudyTarget>> wanted = parse_targets(target_texts);
  if (!wanted.is_ok()) {
    fmt::print(stderr, "ordo-bench {}: {}\n", name, wanted.status().message());
    return kExitUsage;
  }
  compare.interval.method = IntervalMethod::kBootstrap;
  Result<CompareReport> report = run_compare_studies(compare);
  if (!report.is_ok()) {
    report_failure(std::string(name) + " setup", compare.out, report.status());
    return kExitError;
  }
  const int code = write_compare_outputs(compare, *report);
  return report_targets(compare, *report, peer, *wanted, code);
}

}  // namespace ordo::bench
