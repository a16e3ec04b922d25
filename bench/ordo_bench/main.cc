// ordo-bench: the benchmark driver of BENCHMARKING.md.
//
//   ordo-bench nodes [--nodes N] [--fanout F] [--commit-every C] [--ids seq|random]
//                    [--seed S] [--window W] [--path DIR] [--keep] [--json]
//
// Exit codes: 0 ok, 1 a run failed (engine error or failed verification; the
// reason on stderr), 2 bad command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "nodes_command.h"

namespace {

constexpr int kExitUsage = 2;

void add_nodes_options(CLI::App& nodes, ordo::bench::NodesCommand& command, std::string& ids) {
  ordo::bench::NodesConfig& config = command.config;
  nodes.add_option("--nodes", config.nodes, "Nodes to create")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  nodes.add_option("--fanout", config.fanout, "Children per parent")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  nodes.add_option("--commit-every", config.commit_every, "Nodes per durable commit")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  nodes.add_option("--window", config.window_nodes, "Nodes per point of the speed curve")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  nodes.add_option("--ids", ids, "ID kind: seq or random (default: both, seq first)")
      ->check(CLI::IsMember({"seq", "random"}));
  nodes.add_option("--seed", config.seed, "Seed of the random IDs")->capture_default_str();
  nodes.add_option("--path", command.dir,
                   "Directory for the database files (default: a fresh temporary one)");
  nodes.add_flag("--keep", command.keep, "Keep the database files and print their paths");
  nodes.add_flag("--json", command.json, "Print one JSON document");
}

int run(int argc, char** argv) {
  CLI::App app{"ordo benchmark driver (BENCHMARKING.md workloads)", "ordo-bench"};
  app.require_subcommand(1);
  ordo::bench::NodesCommand command;
  std::string ids;
  CLI::App* nodes = app.add_subcommand("nodes", "Content-repository node creation");
  add_nodes_options(*nodes, command, ids);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  if (ids == "seq") command.kinds = {ordo::bench::IdKind::kSeq};
  if (ids == "random") command.kinds = {ordo::bench::IdKind::kRandom};
  return ordo::bench::run_nodes_command(command);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    // Only allocation or output failures get here; the engine reports by Status.
    std::fprintf(stderr, "ordo-bench: %s\n", e.what());
    return 1;
  }
}
