// `ordo stat FILE [--json]`: shape and fill of the default tree and of every
// named tree, from a full walk of each (one read snapshot for all of them).
#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
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
};

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
  return snap;
}

json stat_json(const std::string& path, uint32_t page_size, const Snapshot& snap) {
  json j;
  j["path"] = path;
  j["page_size_bytes"] = page_size;
  j["txn_id"] = snap.txn_id;
  j["trees"] = json::array();
  for (const TreeRow& row : snap.trees) {
    const TreeStats& s = row.stats;
    j["trees"].push_back({{"name", s.name},
                          {"default", row.is_default},
                          {"entries", s.entries},
                          {"depth", s.depth},
                          {"leaf_pages", s.leaf_pages},
                          {"branch_pages", s.branch_pages},
                          {"leaf_fill", s.leaf_fill}});
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
  fmt::print("{:<{}}  {:>12}  {:>5}  {:>10}  {:>12}  {:>9}\n", "tree", width, "entries", "depth",
             "leaf pages", "branch pages", "leaf fill");
  for (size_t i = 0; i < snap.trees.size(); ++i) {
    const TreeStats& s = snap.trees[i].stats;
    fmt::print("{:<{}}  {:>12}  {:>5}  {:>10}  {:>12}  {:>8.1f}%\n", names[i], width, s.entries,
               s.depth, s.leaf_pages, s.branch_pages, s.leaf_fill * 100);
  }
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
