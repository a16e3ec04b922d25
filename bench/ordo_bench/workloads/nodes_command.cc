#include "nodes_command.h"

#include <fmt/core.h>

#include <optional>
#include <utility>

#include "bench_dir.h"
#include "nodes_report.h"
#include "run_failure.h"

namespace ordo::bench {
namespace {

// The node ID list: file-backed for a one-txn load (see IdArray), else on the
// heap as before.
Result<IdArray> make_ids(BenchDir& dir, const NodesConfig& config, IdKind kind) {
  if (!config.one_txn) return IdArray::on_heap(config.nodes);
  ORDO_ASSIGN_OR_RETURN(const std::string path,
                        dir.new_file(fmt::format("nodes-{}.ids", id_kind_name(kind))));
  return IdArray::file_backed(path, config.nodes);
}

std::optional<NodesRun> run_one(BenchDir& dir, const NodesConfig& config, IdKind kind) {
  Result<std::string> path =
      dir.new_file(fmt::format("nodes-{}.{}", id_kind_name(kind), config.engine));
  if (!path.is_ok()) {
    report_failure("setup", dir.path(), path.status());
    return std::nullopt;
  }
  fmt::print(stderr, "ordo-bench: nodes, {}, {} ids, {} nodes{} -> {}\n", config.engine,
             id_kind_name(kind), config.nodes, config.one_txn ? " in one txn" : "", *path);
  Result<IdArray> ids = make_ids(dir, config, kind);
  if (!ids.is_ok()) {
    report_failure("setup", dir.path(), ids.status());
    return std::nullopt;
  }
  NodesRun run;
  run.memory_before = process_memory();
  PhaseMemory memory;
  memory.begin("load");
  Result<LoadResult> load = load_nodes(*path, config, kind, *ids, memory);
  memory.end();
  if (!load.is_ok()) {
    report_failure("load", *path, load.status());
    return std::nullopt;
  }
  Result<FileUsage> usage = path_usage(*path);
  if (!usage.is_ok()) {
    report_failure("stat", *path, usage.status());
    return std::nullopt;
  }
  memory.begin("verify");
  Result<VerifyResult> verified = verify_nodes(*path, config, ids->view(), kind, load->edges);
  memory.end();
  if (!verified.is_ok()) {
    report_failure("verification", *path, verified.status());
    return std::nullopt;
  }
  run.engine = config.engine;
  run.ids = kind;
  run.path = *path;
  run.nodes = config.nodes;
  run.seconds = load->seconds;
  run.load_seconds = load->load_seconds;
  run.commit_seconds = load->commit_seconds;
  run.curve = std::move(load->curve);
  run.usage = *usage;
  run.tree = *verified;
  run.stats = load->stats;
  run.info = load->info;
  run.memory = load->memory;
  run.write_call_bytes = load->write_call_bytes;
  run.counters = load->counters;
  run.phases = memory.phases();
  run.ids_storage = std::string(ids->storage());
  run.edges = load->edges;
  return run;
}

}  // namespace

int run_nodes_command(const NodesCommand& command) {
  Result<BenchDir> dir = BenchDir::open(command.dir, command.keep);
  if (!dir.is_ok()) {
    report_failure("setup", command.dir, dir.status());
    return kExitError;
  }
  std::vector<NodesRun> runs;
  for (IdKind kind : command.kinds) {
    std::optional<NodesRun> run = run_one(*dir, command.config, kind);
    if (!run) return kExitError;
    runs.push_back(std::move(*run));
  }
  if (command.json) {
    fmt::print("{}\n", nodes_json(command.config, runs, command.keep));
    if (command.keep) fmt::print(stderr, "ordo-bench: kept the files in {}\n", dir->path());
  } else {
    print_nodes_text(command.config, runs, command.keep);
  }
  return 0;
}

}  // namespace ordo::bench
