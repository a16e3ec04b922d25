#include "compare_report.h"

#include <fmt/core.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace ordo::bench {
namespace {

using json = nlohmann::ordered_json;

std::string number(double v) {
  if (std::isnan(v)) return "-";
  return std::fabs(v) >= 1000 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v);
}

std::string status_of(const Summary& s) { return s.unresolved() ? "unresolved" : "resolved"; }

std::string interval_text(const Summary& s, std::string (*fmt_value)(double)) {
  if (s.count == 0) return "no rounds";
  return fmt::format("{} [{} - {}] {:.1f}%{}", fmt_value(s.median), fmt_value(s.lo),
                     fmt_value(s.hi), s.width_fraction() * 100,
                     s.unresolved() ? " UNRESOLVED" : "");
}

std::string ratio_number(double v) { return fmt::format("{:.3f}", v); }

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : std::string(sep)) + item;
  return out;
}

void print_study(const CompareReport& report, const WorkloadStudy& study) {
  fmt::print("\n== {}: {} rounds, round 0 dropped; interval: {}\n", study.spec.name, report.rounds,
             report.interval.method == IntervalMethod::kBootstrap
                 ? fmt::format("bootstrap 95% of the median, seed {}, {} resamples",
                               report.interval.seed, report.interval.resamples)
                 : std::string("min-max of the kept rounds"));
  fmt::print("   child: {}\n", join(study.example_argv, " "));
  fmt::print("{:<10} {:<28} {:<44} {}\n", "engine", "figure", "median [interval] width",
             "ordo/peer median [interval] width (reads)");
  for (const FigureRow& row : study.result.rows) {
    const std::string ratio = row.has_ratio
                                  ? fmt::format("{} ({})", interval_text(row.ratio, ratio_number),
                                                ratio_reading(row.better))
                                  : "";
    fmt::print("{:<10} {:<28} {:<44} {}\n", row.label, row.figure, interval_text(row.value, number),
               ratio);
  }
  for (const RunRecord& run : study.runs) {
    if (!run.ok) {
      fmt::print("FAILED run: round {} {}: {}\n", run.plan.round, run.label, run.error);
    }
  }
  if (study.result.aa_ok()) {
    fmt::print("A/A control (ordo/ordo-aa): every ratio interval contains 1.0\n");
  } else {
    fmt::print("A/A control (ordo/ordo-aa): the ratio interval excludes 1.0 for: {}\n",
               join(study.result.aa_failures, ", "));
  }
}

json summary_json(const Summary& s) {
  return {{"n", s.count},
          {"median", s.median},
          {"lo", s.lo},
          {"hi", s.hi},
          {"width_fraction", s.width_fraction()},
          {"unresolved", s.unresolved()}};
}

json study_json(const WorkloadStudy& study) {
  json j;
  j["workload"] = study.spec.name;
  j["child_argv_example"] = study.example_argv;
  j["runs"] = json::array();
  for (const RunRecord& run : study.runs) {
    json r = {{"round", run.plan.round},
              {"pair", run.plan.pair},
              {"arm", run.plan.arm == Arm::kA ? "A" : "B"},
              {"engine", run.label},
              {"kept", is_kept_round(run.plan.round)},
              {"seconds", run.seconds},
              {"ok", run.ok}};
    if (!run.ok) r["error"] = run.error;
    j["runs"].push_back(std::move(r));
  }
  j["rows"] = json::array();
  for (const FigureRow& row : study.result.rows) {
    json r = {{"engine", row.label},
              {"figure", row.figure},
              {"better", better_name(row.better)},
              {"values", row.values},
              {"value", summary_json(row.value)}};
    if (row.has_ratio) {
      r["ratio"] = summary_json(row.ratio);
      r["ratio"]["reads"] = ratio_reading(row.better);
      r["ratio"]["values"] = row.ratios;
    }
    j["rows"].push_back(std::move(r));
  }
  j["aa_ok"] = study.result.aa_ok();
  j["aa_failures"] = study.result.aa_failures;
  j["curves"] = json::object();
  for (const CurveLine& line : study.result.curves) {
    json points = json::array();
    for (const auto& [x, y] : line.points) points.push_back({x, y});
    j["curves"][line.label] = std::move(points);
  }
  return j;
}

}  // namespace

size_t CompareReport::failed_runs() const {
  size_t n = 0;
  for (const WorkloadStudy& study : studies) {
    for (const RunRecord& run : study.runs) n += run.ok ? 0 : 1;
  }
  return n;
}

bool CompareReport::aa_ok() const {
  for (const WorkloadStudy& study : studies) {
    if (!study.result.aa_ok()) return false;
  }
  return true;
}

std::string verdict(const CompareReport& report) {
  return report.aa_ok() ? "A/A control ok" : "machine too noisy: rerun";
}

void print_compare_text(const CompareReport& report) {
  fmt::print("ordo-bench compare: ordo against {}; ratio = ordo/peer of the same round\n",
             report.peers.empty() ? std::string("itself only (A/A)") : join(report.peers, ", "));
  fmt::print("unresolved: an interval wider than {:.0f}% of its median\n", kUnresolvedWidth * 100);
  for (const WorkloadStudy& study : report.studies) print_study(report, study);
  fmt::print("\n");
  if (report.aa_ok()) {
    fmt::print("verdict: {}: every A/A ratio interval contains 1.0\n", verdict(report));
  } else {
    const std::string bar(72, '!');
    fmt::print(
        "{}\n!!! MACHINE TOO NOISY: RERUN\n!!! verdict: {}: an A/A ratio interval does "
        "not contain 1.0; do not report these figures\n{}\n",
        bar, verdict(report), bar);
  }
  if (report.failed_runs() > 0) fmt::print("{} run(s) FAILED (above)\n", report.failed_runs());
}

std::string compare_csv(const CompareReport& report) {
  std::string csv =
      "workload,engine,figure,better,n,median,lo,hi,width_pct,status,"
      "ratio_n,ratio_median,ratio_lo,ratio_hi,ratio_width_pct,ratio_status,ratio_reads\n";
  for (const WorkloadStudy& study : report.studies) {
    for (const FigureRow& row : study.result.rows) {
      const Summary& v = row.value;
      csv += fmt::format("{},{},{},{},{},{},{},{},{:.3f},{},", study.spec.name, row.label,
                         row.figure, better_name(row.better), v.count, v.median, v.lo, v.hi,
                         v.width_fraction() * 100, status_of(v));
      const Summary& r = row.ratio;
      csv += row.has_ratio
                 ? fmt::format("{},{},{},{},{:.3f},{},{}\n", r.count, r.median, r.lo, r.hi,
                               r.width_fraction() * 100, status_of(r), ratio_reading(row.better))
                 : ",,,,,,\n";
    }
  }
  return csv;
}

std::string compare_json(const CompareReport& report) {
  json j;
  j["tool"] = "ordo-bench compare";
  j["command"] = report.command;
  j["runner"] = report.runner;
  j["peers"] = report.peers;
  j["rounds"] = report.rounds;
  j["dropped_rounds"] = {0};
  j["order"] =
      "round-major; per pair A B in even rounds, B A in odd rounds (ABBA); pairs in order in "
      "rounds 0-1 mod 4, reversed in rounds 2-3";
  j["ratio"] = "ordo/peer of the same round (A/A: ordo/ordo-aa)";
  j["interval"] = interval_name(report.interval.method);
  if (report.interval.method == IntervalMethod::kBootstrap) {
    j["bootstrap_seed"] = report.interval.seed;
    j["bootstrap_resamples"] = report.interval.resamples;
  }
  j["unresolved_width_fraction"] = kUnresolvedWidth;
  j["verdict"] = verdict(report);
  j["failed_runs"] = report.failed_runs();
  j["studies"] = json::array();
  for (const WorkloadStudy& study : report.studies) j["studies"].push_back(study_json(study));
  j["plots"] = report.plots;
  if (!report.plot_note.empty()) j["plot_note"] = report.plot_note;
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace ordo::bench
