#include "replicated_command.h"

#include <fmt/core.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench_dir.h"
#include "compare_command.h"
#include "replicated_targets.h"
#include "run_failure.h"

namespace ordo::bench {
namespace {

using json = nlohmann::ordered_json;

constexpr int kExitUsage = 2;

std::unique_ptr<ReplicatedStore> make_store(const ReplicatedRunCommand& c,
                                            const std::string& root) {
  if (c.engine == "etcd") return make_etcd_store(c.etcd_binary, root, c.nodes, c.tls);
  if (c.node_binary.empty()) return nullptr;
  return make_ordo_store(c.node_binary, root, c.nodes, c.tls);
}

std::string text_report(const ReplicatedRunCommand& c, const json& doc) {
  std::string out =
      fmt::format("replicated writes: {}, {} nodes on 127.0.0.1\n", c.engine, c.nodes);
  for (const auto& s : doc["settings"]) out += "  " + s.get<std::string>() + "\n";
  for (const auto& [name, value] : doc["figures"].items()) {
    out += fmt::format("{:<20} {:.1f}\n", name, value.get<double>());
  }
  out += "counts: " + doc["counts"].dump() + "\n";
  return out;
}

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

std::string default_etcd_binary() { return "/usr/bin/etcd"; }

std::string default_ordo_node_binary() {
#ifdef ORDO_BENCH_ORDO_NODE_PATH
  return ORDO_BENCH_ORDO_NODE_PATH;
#else
  return "";
#endif
}

int run_replicated_run_command(const ReplicatedRunCommand& command) {
  {
    std::unique_ptr<ReplicatedStore> probe = make_store(command, "/nonexistent");
    if (probe == nullptr) {
      std::fprintf(stderr,
                   "ordo-bench: engine ordo needs ordo-node, which this build does not have "
                   "(give --ordo-node PATH of a build that has it)\n");
      return kExitUsage;
    }
  }
  return run_single(command.output, "replicated run", {"cluster"},
                    [&](const std::vector<std::string>& paths) -> Result<std::string> {
                      std::unique_ptr<ReplicatedStore> store = make_store(command, paths[0]);
                      ORDO_RETURN_IF_ERROR(store->start());
                      ORDO_ASSIGN_OR_RETURN(json result, run_replicated(*store, command.config));
                      json doc;
                      doc["workload"] = "replicated";
                      doc["engine"] = command.engine;
                      doc["nodes"] = command.nodes;
                      doc["tls"] = command.tls;
                      doc["seconds"] = command.config.seconds;
                      doc["warmup_seconds"] = command.config.warmup_seconds;
                      doc["key_bytes"] = kReplicatedKeyBytes;
                      doc["value_bytes"] = kReplicatedValueBytes;
                      doc["figures"] = std::move(result["figures"]);
                      doc["counts"] = std::move(result["counts"]);
                      doc["settings"] = store->settings();
                      store.reset();  // every node killed before the directory goes
                      if (command.output.json) return doc.dump() + "\n";
                      return text_report(command, doc);
                    });
}

int run_replicated_command(const ReplicatedCommand& command) {
  std::vector<ReplicatedTarget> wanted;
  for (const std::string& text : command.targets) {
    Result<ReplicatedTarget> target = parse_target(text);
    if (!target.is_ok()) {
      std::fprintf(stderr, "ordo-bench replicated: %s\n", target.status().message().c_str());
      return kExitUsage;
    }
    wanted.push_back(std::move(*target));
  }
  CompareCommand compare;
  compare.workloads = {"replicated"};
  compare.engines = {"etcd"};
  compare.rounds = command.rounds;
  compare.out = command.out;
  compare.interval.method = IntervalMethod::kBootstrap;
  compare.interval.seed = command.seed;
  compare.extra_args = {"--seconds", fmt::format("{}", command.seconds), "--warmup",
                        fmt::format("{}", command.warmup_seconds)};
  if (command.tls) compare.extra_args.push_back("--tls");
  if (!command.etcd_binary.empty()) {
    compare.extra_args.insert(compare.extra_args.end(), {"--etcd", command.etcd_binary});
  }
  if (!command.node_binary.empty()) {
    compare.extra_args.insert(compare.extra_args.end(), {"--ordo-node", command.node_binary});
  }
  compare.command = command.command;
  Result<CompareReport> report = run_compare_studies(compare);
  if (!report.is_ok()) {
    report_failure("replicated setup", command.out, report.status());
    return kExitError;
  }
  const int code = write_compare_outputs(compare, *report);

  const StudyResult& result = report->studies.front().result;
  const std::vector<TargetRow> rows = target_rows(result, "etcd", wanted);
  fmt::print(
      "\n== ordo/etcd per round (bootstrap 95% interval of the median, {} rounds, round 0 "
      "dropped)\n",
      command.rounds);
  fmt::print("{:<16} {:<44} {:<8} {}\n", "figure", "ratio ordo/etcd [95% interval]", "target",
             "verdict");
  std::string csv = "figure,ratio_n,ratio_median,ratio_lo,ratio_hi,target,verdict\n";
  json targets = json::array();
  for (const TargetRow& row : rows) {
    const std::string verdict = row.has_target ? std::string(verdict_name(row.verdict)) : "-";
    fmt::print("{:<16} {:<44} {:<8} {}\n", row.figure, ratio_text(row.ratio), target_text(row),
               verdict);
    csv += fmt::format("{},{},{},{},{},{},{}\n", row.figure, row.ratio.count, row.ratio.median,
                       row.ratio.lo, row.ratio.hi, target_text(row), verdict);
    json t = {{"figure", row.figure},
              {"ratio",
               {{"n", row.ratio.count},
                {"median", row.ratio.median},
                {"lo", row.ratio.lo},
                {"hi", row.ratio.hi}}}};
    if (row.has_target) {
      t["target"] = target_text(row);
      t["verdict"] = verdict;
    }
    targets.push_back(std::move(t));
  }
  fmt::print("A/A control (ordo/ordo-aa): {}\n",
             result.aa_ok() ? "every ratio interval contains 1.0"
                            : "FAILED for some figure: machine too noisy, rerun");
  json doc = {{"command", command.command},
              {"ratio", "ordo/etcd of the same round"},
              {"interval", "bootstrap 95% of the median"},
              {"rule",
               "met when the whole interval lies beyond the bound, missed when it lies "
               "wholly short, else undecided"},
              {"aa_ok", result.aa_ok()},
              {"targets", targets}};
  Status written = write_text_file(command.out + "/targets.csv", csv);
  if (written.is_ok()) written = write_text_file(command.out + "/targets.json", doc.dump(2) + "\n");
  if (!written.is_ok()) {
    report_failure("replicated output", command.out, written);
    return kExitError;
  }
  fmt::print("wrote {0}/targets.csv, {0}/targets.json\n", command.out);
  return code;
}

}  // namespace ordo::bench
