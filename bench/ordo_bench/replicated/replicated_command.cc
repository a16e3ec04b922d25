#include "replicated_command.h"

#include <fmt/core.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench_dir.h"
#include "compare_command.h"
#include "run_failure.h"
#include "study_targets.h"

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
  CompareCommand compare;
  compare.workloads = {"replicated"};
  compare.engines = {"etcd"};
  compare.rounds = command.rounds;
  compare.out = command.out;
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
  return run_targeted_study(std::move(compare), "etcd", command.targets, "replicated");
}

}  // namespace ordo::bench
