// `ordo stat FILE [--json]`: shape and fill of the default tree and of every
// named tree, from a full walk of each, and the free and pending-free pages
// from a walk of the free tree (one read snapshot for all of them).
#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "open_database.h"

namespace ordo::tool {
namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view kDefaultTreeLabel = "(default)";

struct TreeRow {
  bool is_default = false;
  TreeStats stats;
};

struct Snapshot {
  uint64_t txn_id = 0;
  std::vector<TreeRow> trees;
  FreeSpace free;
};

// Overflow pages of a tree, when the engine's TreeStats reports them (the
// B+-tree layer counts them; the public TreeStats does not carry the count
// yet). Empty otherwise, and the figure is left out of the report.
template <typename Stats>
std::optional<uint64_t> overflow_pages(const Stats& s) {
  if constexpr (requires { s.overflow_pages; }) {
    return static_cast<uint64_t>(s.overflow_pages);
  } else {
    return std::nullopt;
  }
}

Result<Snapshot> collect(Database& db) {
  ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db.begin_read());
  Snapshot snap;
  snap.txn_id = txn.txn_id();
  ORDO_ASSIGN_OR_RETURN(TreeStats default_stats, txn.tree_stats(txn.default_tree()));
  default_stats.name = std::string(kDefaultTreeLabel);
  snap.trees.push_back({true, default_stats});
  ORDO_ASSIGN_OR_RETURN(std::vector<std::string> names, txn.list_trees());
  for (const std::string& name : names) {
    ORDO_ASSIGN_OR_RETURN(Tree tree, txn.open_tree(name));
    ORDO_ASSIGN_OR_RETURN(TreeStats stats, txn.tree_stats(tree));
    stats.name = name;
    snap.trees.push_back({false, stats});
  }
  ORDO_ASSIGN_OR_RETURN(snap.free, txn.free_space());
  return snap;
}

json stat_json(const std::string& path, uint32_t page_size, const Snapshot& snap) {
  json j;
  j["path"] = path;
  j["page_size_bytes"] = page_size;
  j["txn_id"] = snap.txn_id;
  j["free_pages"] = snap.free.free_pages;
  j["pending_free_pages"] = snap.free.pending_pages;
  j["free_tree_entries"] = snap.free.entries;
  j["trees"] = json::array();
  for (const TreeRow& row : snap.trees) {
    const TreeStats& s = row.stats;
    json tree = {
        {"name", s.name},          {"default", row.is_default},  {"entries", s.entries},
        {"depth", s.depth},        {"leaf_pages", s.leaf_pages}, {"branch_pages", s.branch_pages},
        {"leaf_fill", s.leaf_fill}};
    if (const std::optional<uint64_t> overflow = overflow_pages(s)) {
      tree["overflow_pages"] = *overflow;
    }
    j["trees"].push_back(std::move(tree));
  }
  return j;
}

// Tree names are arbitrary bytes: show anything unprintable as \xNN.
std::string printable(std::string_view name) {
  std::string out;
  for (unsigned char c : name) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

void print_text(const Snapshot& snap) {
  std::vector<std::string> names;
  size_t width = 4;  // "tree"
  for (const TreeRow& row : snap.trees) {
    names.push_back(row.is_default ? row.stats.name : printable(row.stats.name));
    width = std::max(width, names.back().size());
  }
  const bool has_overflow = overflow_pages(TreeStats{}).has_value();
  fmt::print("{:<{}}  {:>12}  {:>5}  {:>10}  {:>12}  {:>9}{}\n", "tree", width, "entries", "depth",
             "leaf pages", "branch pages", "leaf fill", has_overflow ? "  overflow pages" : "");
  for (size_t i = 0; i < snap.trees.size(); ++i) {
    const TreeStats& s = snap.trees[i].stats;
    const std::optional<uint64_t> overflow = overflow_pages(s);
    fmt::print("{:<{}}  {:>12}  {:>5}  {:>10}  {:>12}  {:>8.1f}%{}\n", names[i], width, s.entries,
               s.depth, s.leaf_pages, s.branch_pages, s.leaf_fill * 100,
               overflow ? fmt::format("  {:>14}", *overflow) : "");
  }
  fmt::print("\nfree pages {} (pending, not reusable yet: {}) in {} free-tree entries\n",
             snap.free.free_pages, snap.free.pending_pages, snap.free.entries);
  fmt::print("(snapshot of txn {})\n", snap.txn_id);
}

}  // namespace

int run_stat(const std::string& path, bool json_output) {
  std::unique_ptr<Database> db = open_for_inspection(path);
  if (db == nullptr) return kExitError;
  Result<Snapshot> snap = collect(*db);
  if (!snap.is_ok()) {
    report_error(path, snap.status());
    return kExitError;
  }
  if (json_output) {
    json j = stat_json(path, db->page_size_bytes(), *snap);
    print_line(j.dump(2, ' ', false, json::error_handler_t::replace));
  } else {
    print_text(*snap);
  }
  return kExitOk;
}

}  // namespace ordo::tool
