#include "compare_command.h"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <set>

#include "bench_dir.h"
#include "compare_plot.h"
#include "compare_report.h"
#include "ordo/sys/child_process.h"
#include "run_failure.h"

namespace ordo::bench {
namespace {

namespace fs = std::filesystem;

// The most of a failed child's stderr kept in the report.
constexpr size_t kMaxErrorBytes = 4000;

std::string own_binary() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : self.string();
}

// The peers: the given engines, or the child's --engine choices; without ordo.
Result<std::vector<std::string>> resolve_peers(const CompareCommand& command,
                                               const std::string& runner,
                                               const WorkloadSpec& first) {
  std::vector<std::string> engines = command.engines;
  if (engines.empty()) {
    ORDO_ASSIGN_OR_RETURN(const sys::ChildResult help,
                          sys::run_child({runner, first.subcommand, "--help"}));
    engines = parse_engine_choices(help.out);
    if (engines.empty()) {
      fmt::print(stderr,
                 "ordo-bench compare: `{} {} --help` lists no --engine choices: ordo only\n",
                 runner, first.subcommand);
    }
  }
  if (!command.baseline.empty()) engines.emplace_back(kBaselineEngine);
  std::vector<std::string> peers;
  for (const std::string& e : engines) {
    if (e != "ordo" && std::find(peers.begin(), peers.end(), e) == peers.end()) {
      peers.push_back(e);
    }
  }
  return peers;
}

std::string tail_of(const std::string& text) {
  return text.size() <= kMaxErrorBytes ? text : "..." + text.substr(text.size() - kMaxErrorBytes);
}

// Runs one child on a fresh directory (removed after) and records what came of it.
RunRecord run_one(const CompareCommand& command, const std::string& runner, const StudyPairs& pairs,
                  const WorkloadSpec& spec, const PlannedRun& plan, const std::string& raw_path) {
  RunRecord record;
  record.plan = plan;
  record.label = pairs.label(plan.pair, plan.arm);
  Result<BenchDir> dir = BenchDir::open("", /*keep=*/false);
  if (!dir.is_ok()) {
    record.error = "no fresh directory: " + dir.status().to_string();
    return record;
  }
  // The baseline is the other build's ordo: its binary, engine ordo.
  const std::string& engine = pairs.engine(plan.pair, plan.arm);
  const bool baseline = engine == kBaselineEngine && !command.baseline.empty();
  const std::vector<std::string> argv =
      child_argv(baseline ? command.baseline : runner, spec, baseline ? "ordo" : engine,
                 dir->path(), command.extra_args);
  Result<sys::ChildResult> child = sys::run_child(argv);
  if (!child.is_ok()) {
    record.error = child.status().to_string();
    return record;
  }
  record.seconds = child->seconds;
  (void)write_text_file(raw_path, child->out);  // a record only: the study does not need it
  if (!child->ok()) {
    record.error = child->how_it_ended() + "; stderr:\n" + tail_of(child->err);
    return record;
  }
  Result<ChildReport> report = parse_child_report(child->out);
  if (!report.is_ok()) {
    record.error = report.status().to_string() + "; stderr:\n" + tail_of(child->err);
    return record;
  }
  record.ok = true;
  record.report = std::move(*report);
  return record;
}

WorkloadStudy run_study(const CompareCommand& command, const std::string& runner,
                        const StudyPairs& pairs, const WorkloadSpec& spec,
                        const std::string& raw_dir) {
  WorkloadStudy study;
  study.spec = spec;
  study.example_argv = child_argv(runner, spec, "E", "DIR", command.extra_args);
  const std::vector<PlannedRun> plan = plan_study(pairs.size(), command.rounds);
  std::set<size_t> dropped;
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedRun& p = plan[i];
    if (dropped.count(p.pair)) continue;
    const std::string raw = fmt::format("{}/{}-{:03}-r{}-{}.json", raw_dir, spec.name, i, p.round,
                                        pairs.label(p.pair, p.arm));
    RunRecord run = run_one(command, runner, pairs, spec, p, raw);
    fmt::print(stderr, "[{} {}/{}] round {} {}: {}\n", spec.name, i + 1, plan.size(), p.round,
               run.label, run.ok ? fmt::format("{:.2f} s", run.seconds) : "FAILED");
    if (!run.ok) {
      fmt::print(stderr, "ordo-bench compare: run FAILED ({} {}, round {}): {}\n", spec.name,
                 run.label, p.round, run.error);
      if (p.round == 0) {
        dropped.insert(p.pair);
        fmt::print(stderr, "ordo-bench compare: dropping the pair ordo/{} from {}\n",
                   pairs.label(p.pair, Arm::kB), spec.name);
      }
    }
    study.runs.push_back(std::move(run));
  }
  study.result = analyze_study(pairs, command.rounds, study.runs, command.interval);
  return study;
}

}  // namespace

Result<CompareReport> run_compare_studies(const CompareCommand& command) {
  const std::string runner = command.runner.empty() ? own_binary() : command.runner;
  ORDO_ASSIGN_OR_RETURN(const std::vector<WorkloadSpec> specs, expand_workloads(command.workloads));
  ORDO_ASSIGN_OR_RETURN(const std::vector<std::string> peers,
                        resolve_peers(command, runner, specs.front()));
  const std::string raw_dir = command.out + "/runs";
  std::error_code ec;
  fs::create_directories(raw_dir, ec);
  if (ec) return Status::io_error("cannot create " + raw_dir, ec.value());
  CompareReport report;
  report.command = command.command;
  report.runner = runner;
  report.peers = peers;
  report.rounds = command.rounds;
  report.interval = command.interval;
  const StudyPairs pairs{peers};
  for (const WorkloadSpec& spec : specs) {
    report.studies.push_back(run_study(command, runner, pairs, spec, raw_dir));
  }
  return report;
}

int write_compare_outputs(const CompareCommand& command, CompareReport& report) {
  const Status plotted = write_plots(command.out, report);
  Status written = write_text_file(command.out + "/compare.csv", compare_csv(report));
  if (written.is_ok()) {
    written = write_text_file(command.out + "/compare.json", compare_json(report));
  }
  print_compare_text(report);
  fmt::print("\nwrote {0}/compare.csv, {0}/compare.json; the child outputs in {0}/runs\n",
             command.out);
  for (const std::string& png : report.plots) fmt::print("plot: {}\n", png);
  if (!report.plot_note.empty()) fmt::print("plots: {}\n", report.plot_note);
  for (const Status& s : {plotted, written}) {
    if (!s.is_ok()) {
      report_failure("compare output", command.out, s);
      return kExitError;
    }
  }
  if (report.failed_runs() > 0) return kExitError;
  return report.aa_ok() ? 0 : kExitNoisy;
}

int run_compare_command(const CompareCommand& command) {
  Result<CompareReport> report = run_compare_studies(command);
  if (!report.is_ok()) {
    report_failure("compare setup", command.out, report.status());
    return kExitError;
  }
  return write_compare_outputs(command, *report);
}

}  // namespace ordo::bench
