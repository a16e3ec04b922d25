#include "linkbench_command.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "linkbench_graph.h"

namespace ordo::bench {
using json = nlohmann::ordered_json;

int run_linkbench_command(const LinkbenchCommand& command) {
  const LinkbenchConfig& config = command.config;
  std::vector<std::string> names;
  for (const uint64_t n : config.sizes) {
    names.push_back("linkbench." + config.engine + "." + std::to_string(n));
  }
  return run_single(command.output, "linkbench", names,
                    [&](const std::vector<std::string>& paths) -> Result<std::string> {
                      fmt::print(stderr,
                                 "ordo-bench: linkbench, {}, {} timed ops of each kind per size, "
                                 "a fresh store per size -> {}\n",
                                 config.engine, config.ops_per_type, paths[0]);
                      ORDO_ASSIGN_OR_RETURN(const LinkbenchRun run, run_linkbench(paths, config));
                      return command.output.json ? linkbench_json(config, run)
                                                 : linkbench_text(config, run);
                    });
}

std::string linkbench_text(const LinkbenchConfig& config, const LinkbenchRun& run) {
  std::string out = fmt::format(
      "linkbench on {}: at each N a fresh store, N nodes with about 5 links each preloaded, then "
      "{} of each operation interleaved (seed {}); writes are one durable txn each, reads one "
      "snapshot each; latency in microseconds\n",
      run.engine, config.ops_per_type, config.seed);
  for (const LinkbenchAtSize& at : run.sizes) {
    out += fmt::format(
        "\nN = {} nodes, {} links, preloaded in {:.2f} s; {} links read by "
        "get_links; {} groups checked against the model\n",
        at.nodes, at.links, at.preload_seconds, at.links_read, at.groups_checked);
    out += fmt::format("{:<12} {:>9} {:>9} {:>9}\n", "op", "p50", "p99", "max");
    for (const LinkOp op : kLinkOps) {
      const LatencySummary& s = at.ops[static_cast<size_t>(op)];
      out += fmt::format("{:<12} {:>9.0f} {:>9.0f} {:>9.0f}\n", link_op_name(op), s.p50_us,
                         s.p99_us, s.max_us);
    }
    out += store_text(at.store) + "\n";
  }
  if (!run.sizes.empty()) {
    out += fmt::format("\np99 at N={} / p99 at N={}:", run.sizes.back().nodes,
                       run.sizes.front().nodes);
    for (const LinkOp op : kLinkOps) {
      out += fmt::format(" {} {:.2f}x", link_op_name(op), run.p99_growth(op));
    }
    out += "\n";
  }
  return out;
}

std::string linkbench_json(const LinkbenchConfig& config, const LinkbenchRun& run) {
  json j;
  j["workload"] = "linkbench";
  j["engine"] = run.engine;
  json figures = json::object();
  for (const LinkbenchAtSize& at : run.sizes) {
    const std::string n = std::to_string(at.nodes);
    for (const LinkOp op : kLinkOps) {
      const LatencySummary& s = at.ops[static_cast<size_t>(op)];
      const std::string name(link_op_name(op));
      figures[name + "_p50_us_" + n] = s.p50_us;
      figures[name + "_p99_us_" + n] = s.p99_us;
      figures[name + "_max_us_" + n] = s.max_us;
    }
  }
  for (const LinkOp op : kLinkOps) {
    figures[std::string(link_op_name(op)) + "_p99_growth"] = run.p99_growth(op);
  }
  j["figures"] = figures;
  j["durable"] = true;
  j["fresh_store_per_size"] = true;
  j["ops_per_type"] = config.ops_per_type;
  j["seed"] = config.seed;
  j["load_batch"] = config.load_batch;
  j["link_types"] = kLinkTypes;
  j["link_value_bytes"] = kLinkValueBytes;
  j["sizes"] = json::array();
  for (const LinkbenchAtSize& at : run.sizes) {
    json ops = json::object();
    for (const LinkOp op : kLinkOps) {
      const LatencySummary& s = at.ops[static_cast<size_t>(op)];
      ops[std::string(link_op_name(op))] = latency_json(s);
    }
    json size = {
        {"nodes", at.nodes}, {"links", at.links},           {"preload_seconds", at.preload_seconds},
        {"ops", ops},        {"links_read", at.links_read}, {"groups_checked", at.groups_checked}};
    add_store_json(size, at.store);
    j["sizes"].push_back(size);
  }
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace ordo::bench
