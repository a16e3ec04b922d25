#include "nodes_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "kv_registry.h"

namespace ordo::bench {
namespace {

using json = nlohmann::ordered_json;

constexpr int kLabelWidth = 24;
constexpr int kColumnWidth = 16;

// random / seq for one figure, when both runs are present.
struct Ratios {
  double nodes_per_s = 0;
  double file_bytes = 0;
  double used_bytes = 0;  // 0 when the engine does not report pages in use
};

std::optional<Ratios> random_over_seq(const std::vector<NodesRun>& runs) {
  const NodesRun* seq = nullptr;
  const NodesRun* random = nullptr;
  for (const NodesRun& run : runs) {
    if (run.ids == IdKind::kSeq) seq = &run;
    if (run.ids == IdKind::kRandom) random = &run;
  }
  if (seq == nullptr || random == nullptr || seq->nodes_per_s() <= 0 ||
      seq->usage.file_bytes == 0) {
    return std::nullopt;
  }
  return Ratios{
      random->nodes_per_s() / seq->nodes_per_s(),
      static_cast<double>(random->usage.file_bytes) / static_cast<double>(seq->usage.file_bytes),
      seq->tree.used_bytes == 0 ? 0.0
                                : static_cast<double>(random->tree.used_bytes) /
                                      static_cast<double>(seq->tree.used_bytes)};
}

uint64_t peak_rss_anon(const NodesRun& run) {
  uint64_t peak = 0;
  for (const PhaseFigures& p : run.phases) peak = std::max(peak, p.peak_rss_anon_bytes);
  return peak;
}

double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

// One line of the table: `cell(run)` (anything fmt formats) for each run.
template <typename Cell>
void row(const std::vector<NodesRun>& runs, std::string_view label, Cell cell) {
  fmt::print("{:<{}}", label, kLabelWidth);
  for (const NodesRun& run : runs) fmt::print("{:>{}}", cell(run), kColumnWidth);
  fmt::print("\n");
}

bool is_ordo(const NodesRun& run) { return is_ordo_engine(run.engine); }

bool has_edges(const std::vector<NodesRun>& runs) {
  return std::any_of(runs.begin(), runs.end(),
                     [](const NodesRun& r) { return r.ids == IdKind::kEdges; });
}

// Tree "edges" of an edge-ID run, "-" for the other runs and figures an
// engine does not give.
void print_edge_figures(const std::vector<NodesRun>& runs) {
  const auto shape = [](const NodesRun& r, auto figure) -> std::string {
    if (r.ids != IdKind::kEdges || !r.tree.edges) return "-";
    return figure(*r.tree.edges);
  };
  row(runs, "edges", [](const NodesRun& r) {
    return r.ids == IdKind::kEdges ? fmt::format("{}", r.edges) : std::string("-");
  });
  row(runs, "leaf fill (edges)", [&](const NodesRun& r) {
    return shape(r, [](const TableShape& t) { return fmt::format("{:.1f}%", t.leaf_fill * 100); });
  });
  row(runs, "leaf pages (edges)", [&](const NodesRun& r) {
    return shape(r, [](const TableShape& t) { return fmt::format("{}", t.leaf_pages); });
  });
  row(runs, "branch pages (edges)", [&](const NodesRun& r) {
    return shape(r, [](const TableShape& t) { return fmt::format("{}", t.branch_pages); });
  });
}

void print_figures(const std::vector<NodesRun>& runs) {
  row(runs, "", [](const NodesRun& r) { return std::string(id_kind_name(r.ids)); });
  row(runs, "seconds", [](const NodesRun& r) { return fmt::format("{:.3f}", r.seconds); });
  if (runs.front().commit_seconds > 0) {
    row(runs, "  puts seconds",
        [](const NodesRun& r) { return fmt::format("{:.3f}", r.load_seconds); });
    row(runs, "  commit seconds",
        [](const NodesRun& r) { return fmt::format("{:.3f}", r.commit_seconds); });
  }
  row(runs, "nodes/s", [](const NodesRun& r) { return fmt::format("{:.0f}", r.nodes_per_s()); });
  row(runs, "file bytes", [](const NodesRun& r) { return r.usage.file_bytes; });
  row(runs, "allocated bytes", [](const NodesRun& r) { return r.usage.allocated_bytes; });
  row(runs, "bytes/node",
      [](const NodesRun& r) { return fmt::format("{:.1f}", r.bytes_per_node()); });
  row(runs, "write-call bytes", [](const NodesRun& r) { return r.write_call_bytes; });
  row(runs, "write-call bytes/node",
      [](const NodesRun& r) { return fmt::format("{:.1f}", r.write_call_bytes_per_node()); });
  for (size_t c = 0; c < runs.front().counters.size(); ++c) {
    row(runs, runs.front().counters[c].first,
        [c](const NodesRun& r) { return fmt::format("{:.0f}", r.counters[c].second); });
  }
  if (has_edges(runs)) print_edge_figures(runs);
  row(runs, "rss anon bytes", [](const NodesRun& r) { return r.memory.rss_anon_bytes; });
  row(runs, "rss file bytes", [](const NodesRun& r) { return r.memory.rss_file_bytes; });
  if (!is_ordo(runs.front())) return;
  row(runs, "used bytes (pages)", [](const NodesRun& r) { return r.tree.used_bytes; });
  row(runs, "used bytes/node",
      [](const NodesRun& r) { return fmt::format("{:.1f}", r.used_bytes_per_node()); });
  row(runs, "leaf fill (nodes)",
      [](const NodesRun& r) { return fmt::format("{:.1f}%", r.tree.nodes.leaf_fill * 100); });
  row(runs, "leaf fill (children)",
      [](const NodesRun& r) { return fmt::format("{:.1f}%", r.tree.children.leaf_fill * 100); });
  row(runs, "depth (nodes)", [](const NodesRun& r) { return r.tree.nodes.depth; });
  row(runs, "leaf pages (nodes)", [](const NodesRun& r) { return r.tree.nodes.leaf_pages; });
  row(runs, "commits", [](const NodesRun& r) { return r.stats.commits; });
  row(runs, "syncs", [](const NodesRun& r) { return r.stats.syncs; });
  row(runs, "pages written", [](const NodesRun& r) { return r.stats.pages_written; });
  row(runs, "bytes written", [](const NodesRun& r) { return r.stats.bytes_written; });
  row(runs, "write calls", [](const NodesRun& r) { return r.stats.write_calls; });
  row(runs, "file growths", [](const NodesRun& r) { return r.stats.file_growths; });
  row(runs, "pages reused", [](const NodesRun& r) { return r.stats.pages_reused; });
  row(runs, "pages spilled", [](const NodesRun& r) { return r.stats.pages_spilled; });
  row(runs, "io backend", [](const NodesRun& r) { return r.info.io_backend; });
}

void print_phases(const NodesConfig& config, const NodesRun& run) {
  fmt::print(
      "\nresident memory per phase, {} ids (MiB; peaks of samples every 10,000 nodes, "
      "every 10 ms and at phase ends)\n",
      id_kind_name(run.ids));
  fmt::print("ID array: {}; RssAnon before the load {:.1f} MiB; txn memory budget {:.0f} MiB\n",
             run.ids_storage, mib(run.memory_before.rss_anon_bytes), mib(config.txn_budget_bytes));
  fmt::print("{:<8} {:>9} {:>13} {:>13} {:>12} {:>12}\n", "phase", "seconds", "peak RssAnon",
             "peak RssFile", "end RssAnon", "end RssFile");
  for (const PhaseFigures& p : run.phases) {
    fmt::print("{:<8} {:>9.3f} {:>13.1f} {:>13.1f} {:>12.1f} {:>12.1f}\n", p.phase, p.seconds,
               mib(p.peak_rss_anon_bytes), mib(p.peak_rss_file_bytes), mib(p.at_end.rss_anon_bytes),
               mib(p.at_end.rss_file_bytes));
  }
  if (!is_ordo(run)) return;
  const uint64_t peak = peak_rss_anon(run);
  fmt::print("peak RssAnon {:.1f} MiB = {:.3f}x the txn budget ({} it)\n", mib(peak),
             static_cast<double>(peak) / static_cast<double>(config.txn_budget_bytes),
             peak <= config.txn_budget_bytes ? "under" : "OVER");
}

void print_curve(const NodesConfig& config, const std::vector<NodesRun>& runs) {
  fmt::print("\nnodes/s per {}-node window{}\n", config.window_nodes,
             config.one_txn ? " (puts only; the one commit is timed apart)" : "");
  fmt::print("{:>{}}", "at", kLabelWidth);
  for (const NodesRun& run : runs) fmt::print("{:>{}}", id_kind_name(run.ids), kColumnWidth);
  fmt::print("\n");
  for (size_t p = 0; p < runs.front().curve.size(); ++p) {
    fmt::print("{:>{}}", runs.front().curve[p].at, kLabelWidth);
    for (const NodesRun& run : runs) {
      const bool has = p < run.curve.size();
      fmt::print("{:>{}}", has ? fmt::format("{:.0f}", run.curve[p].nodes_per_s) : "-",
                 kColumnWidth);
    }
    fmt::print("\n");
  }
}

json run_json(const NodesConfig& config, const NodesRun& r) {
  json j;
  j["engine"] = r.engine;
  j["ids"] = std::string(id_kind_name(r.ids));
  j["nodes"] = r.nodes;
  j["seconds"] = r.seconds;
  j["nodes_per_s"] = r.nodes_per_s();
  j["curve"] = json::array();
  for (const CurvePoint& p : r.curve)
    j["curve"].push_back({{"at", p.at}, {"nodes_per_s", p.nodes_per_s}});
  j["file_bytes"] = r.usage.file_bytes;
  j["allocated_bytes"] = r.usage.allocated_bytes;
  j["bytes_per_node"] = r.bytes_per_node();
  j["write_call_bytes"] = r.write_call_bytes;
  j["nodes_entries"] = r.tree.nodes_entries;
  j["children_entries"] = r.tree.children_entries;
  j["path"] = r.path;
  if (r.ids != IdKind::kSeq) j["seed"] = config.seed;
  if (r.ids == IdKind::kEdges) {
    j["edges"] = r.edges;
    j["edges_entries"] = r.tree.edges_entries;
    if (r.tree.edges) {
      j["edges_leaf_fill"] = r.tree.edges->leaf_fill;
      j["edges_leaf_pages"] = r.tree.edges->leaf_pages;
      j["edges_branch_pages"] = r.tree.edges->branch_pages;
      j["edges_page_size_bytes"] = r.tree.edges->page_size_bytes;
    }
  }
  for (const auto& [name, value] : r.counters) j[name] = value;
  j["rss_anon_bytes"] = r.memory.rss_anon_bytes;
  j["rss_file_bytes"] = r.memory.rss_file_bytes;
  j["peak_rss_bytes"] = r.memory.peak_rss_bytes;
  j["one_txn"] = config.one_txn;
  j["load_seconds"] = r.load_seconds;
  j["commit_seconds"] = r.commit_seconds;
  j["ids_storage"] = r.ids_storage;
  j["rss_anon_before_bytes"] = r.memory_before.rss_anon_bytes;
  j["rss_file_before_bytes"] = r.memory_before.rss_file_bytes;
  j["phases"] = json::array();
  for (const PhaseFigures& p : r.phases) {
    j["phases"].push_back({{"phase", p.phase},
                           {"seconds", p.seconds},
                           {"samples", p.samples},
                           {"peak_rss_anon_bytes", p.peak_rss_anon_bytes},
                           {"peak_rss_file_bytes", p.peak_rss_file_bytes},
                           {"peak_rss_shmem_bytes", p.peak_rss_shmem_bytes},
                           {"end_rss_anon_bytes", p.at_end.rss_anon_bytes},
                           {"end_rss_file_bytes", p.at_end.rss_file_bytes}});
  }
  const uint64_t peak = peak_rss_anon(r);
  j["peak_rss_anon_bytes"] = peak;
  if (!is_ordo(r)) return j;
  // What only ordo reports.
  j["leaf_fill"] = r.tree.nodes.leaf_fill;
  j["used_bytes"] = r.tree.used_bytes;
  j["used_bytes_per_node"] = r.used_bytes_per_node();
  j["page_size_bytes"] = r.info.page_size_bytes;
  j["nodes_depth"] = r.tree.nodes.depth;
  j["nodes_leaf_pages"] = r.tree.nodes.leaf_pages;
  j["nodes_branch_pages"] = r.tree.nodes.branch_pages;
  j["children_leaf_fill"] = r.tree.children.leaf_fill;
  j["commits"] = r.stats.commits;
  j["syncs"] = r.stats.syncs;
  j["pages_written"] = r.stats.pages_written;
  j["bytes_written"] = r.stats.bytes_written;
  j["write_calls"] = r.stats.write_calls;
  j["file_growths"] = r.stats.file_growths;
  j["pages_reused"] = r.stats.pages_reused;
  j["pages_spilled"] = r.stats.pages_spilled;
  j["overflow_pages_written"] = r.stats.overflow_pages_written;
  j["io_backend"] = r.info.io_backend;
  j["txn_budget_bytes"] = config.txn_budget_bytes;
  j["peak_rss_anon_over_budget"] =
      static_cast<double>(peak) / static_cast<double>(config.txn_budget_bytes);
  return j;
}

json curve_pairs(const NodesRun& r) {
  json curve = json::array();
  for (const CurvePoint& p : r.curve) curve.push_back({p.at, p.nodes_per_s});
  return curve;
}

// The flat figures of the JSON contract (name -> number); with both ID kinds
// each name gets the suffix _seq or _random.
json figures_json(const std::vector<NodesRun>& runs) {
  json f = json::object();
  for (const NodesRun& r : runs) {
    const std::string suffix = runs.size() == 1 ? "" : "_" + std::string(id_kind_name(r.ids));
    f["nodes_per_s" + suffix] = r.nodes_per_s();
    f["file_bytes" + suffix] = r.usage.file_bytes;
    f["allocated_bytes" + suffix] = r.usage.allocated_bytes;
    f["bytes_per_node" + suffix] = r.bytes_per_node();
    f["write_call_bytes" + suffix] = r.write_call_bytes;
    f["first_window_nodes_per_s" + suffix] = r.curve.empty() ? 0.0 : r.curve.front().nodes_per_s;
    f["last_window_nodes_per_s" + suffix] = r.curve.empty() ? 0.0 : r.curve.back().nodes_per_s;
    if (r.ids == IdKind::kEdges && r.tree.edges) {
      f["edges_leaf_fill" + suffix] = r.tree.edges->leaf_fill;
      f["edges_leaf_pages" + suffix] = r.tree.edges->leaf_pages;
    }
  }
  return f;
}

}  // namespace

void print_nodes_text(const NodesConfig& config, const std::vector<NodesRun>& runs, bool kept) {
  if (runs.empty()) return;
  if (config.one_txn) {
    fmt::print(
        "nodes on {}: {} nodes, fan-out {}, all in one write txn (one durable commit at the end)",
        config.engine, config.nodes, config.fanout);
  } else {
    fmt::print("nodes on {}: {} nodes, fan-out {}, durable commit every {} nodes", config.engine,
               config.nodes, config.fanout, config.commit_every);
  }
  const bool has_random = std::any_of(runs.begin(), runs.end(),
                                      [](const NodesRun& r) { return r.ids == IdKind::kRandom; });
  if (has_random) fmt::print(", random-ID seed {}", config.seed);
  if (has_edges(runs)) fmt::print(", edges seed {}", config.seed);
  fmt::print("\n\n");
  print_figures(runs);
  for (const NodesRun& run : runs) print_phases(config, run);
  print_curve(config, runs);
  if (const std::optional<Ratios> ratios = random_over_seq(runs)) {
    fmt::print("\nrandom/seq: nodes/s {:.3f}x, file bytes {:.3f}x", ratios->nodes_per_s,
               ratios->file_bytes);
    if (ratios->used_bytes > 0) fmt::print(", used bytes {:.3f}x", ratios->used_bytes);
    fmt::print("\n");
  }
  if (kept) {
    fmt::print("\n");
    for (const NodesRun& run : runs) fmt::print("kept {}\n", run.path);
  }
}

std::string nodes_json(const NodesConfig& config, const std::vector<NodesRun>& runs, bool kept) {
  json j;
  j["workload"] = "nodes";
  j["engine"] = config.engine;
  j["figures"] = figures_json(runs);
  if (runs.size() == 1) j["curve"] = curve_pairs(runs.front());
  j["curves"] = json::object();
  for (const NodesRun& run : runs)
    j["curves"][std::string(id_kind_name(run.ids))] = curve_pairs(run);
  j["nodes"] = config.nodes;
  j["fanout"] = config.fanout;
  j["commit_every"] = config.commit_every;
  j["one_txn"] = config.one_txn;
  j["txn_budget_bytes"] = config.txn_budget_bytes;
  j["window_nodes"] = config.window_nodes;
  j["durable"] = true;
  j["seed"] = config.seed;
  j["kept"] = kept;
  j["runs"] = json::array();
  for (const NodesRun& run : runs) j["runs"].push_back(run_json(config, run));
  if (const std::optional<Ratios> ratios = random_over_seq(runs)) {
    j["ratios"] = {{"random_over_seq_nodes_per_s", ratios->nodes_per_s},
                   {"random_over_seq_file_bytes", ratios->file_bytes},
                   {"random_over_seq_used_bytes", ratios->used_bytes}};
  }
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace ordo::bench
