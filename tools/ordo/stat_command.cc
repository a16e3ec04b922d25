// `ordo stat FILE [--json]`: shape and fill of the default tree and of every
// named tree, from a full walk of each (entries, depth, leaf, branch and
// overflow pages, leaf fill, key and value bytes), the internal trees
// (catalog, free tree) apart, and the free and pending-free pages from a
// walk of the free tree; one read snapshot for all of it.
#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "byte_format.h"
#include "command_registry.h"
#include "commands.h"
#include "open_database.h"
#include "ordo/inspect.h"

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
  std::vector<inspect::TreeSummary> internal;  // catalog, free tree
  FreeSpace free;
};

Result<Snapshot> collect(Database& db) {
  ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db.begin_read());
  Snapshot snap;
  snap.txn_id = txn.txn_id();
  ORDO_ASSIGN_OR_RETURN(std::vector<inspect::TreeSummary> trees, inspect::trees(txn));
  for (const auto& t : trees) {
    if (t.kind == inspect::TreeKind::kCatalog || t.kind == inspect::TreeKind::kFree ||
        t.kind == inspect::TreeKind::kKept) {
      snap.internal.push_back(t);
      continue;
    }
    const bool is_default = t.kind == inspect::TreeKind::kDefault;
    Tree tree;
    if (!is_default) {
      ORDO_ASSIGN_OR_RETURN(tree, txn.open_tree(t.name));
    }
    ORDO_ASSIGN_OR_RETURN(TreeStats stats, txn.tree_stats(tree));
    stats.name = is_default ? std::string(kDefaultTreeLabel) : t.name;
    snap.trees.push_back({is_default, stats});
  }
  ORDO_ASSIGN_OR_RETURN(snap.free, txn.free_space());
  return snap;
}

json stat_json(const std::string& path, uint32_t page_size, const Snapshot& snap) {
  json j;
  j["path"] = path;
  j["page_size_bytes"] = page_size;
  j["txn_id"] = snap.txn_id;
  uint64_t entries = 0;
  for (const TreeRow& row : snap.trees) entries += row.stats.entries;
  j["user_trees"] = snap.trees.size();
  j["user_entries"] = entries;
  j["free_pages"] = snap.free.free_pages;
  j["pending_free_pages"] = snap.free.pending_pages;
  j["free_tree_entries"] = snap.free.entries;
  j["trees"] = json::array();
  for (const TreeRow& row : snap.trees) {
    const TreeStats& s = row.stats;
    j["trees"].push_back({{"name", row.is_default ? s.name : to_print(s.name)},
                          {"default", row.is_default},
                          {"entries", s.entries},
                          {"depth", s.depth},
                          {"leaf_pages", s.leaf_pages},
                          {"branch_pages", s.branch_pages},
                          {"overflow_pages", s.overflow_pages},
                          {"overflow_values", s.overflow_values},
                          {"leaf_fill", s.leaf_fill},
                          {"key_bytes", s.key_bytes},
                          {"value_bytes", s.value_bytes}});
  }
  j["internal_trees"] = json::array();
  for (const auto& t : snap.internal) {
    j["internal_trees"].push_back(
        {{"kind", inspect::tree_kind_name(t.kind)}, {"entries", t.entries}, {"depth", t.depth}});
  }
  return j;
}

void print_text(const Snapshot& snap) {
  std::vector<std::string> names;
  size_t width = 4;  // "tree"
  for (const TreeRow& row : snap.trees) {
    names.push_back(row.is_default ? row.stats.name : to_print(row.stats.name));
    width = std::max(width, names.back().size());
  }
  width = std::max<size_t>(width, 11);
  fmt::print("{:<{}}  {:>10}  {:>5}  {:>10}  {:>8}  {:>9}  {:>9}  {:>12}  {:>14}\n", "tree", width,
             "entries", "depth", "leaf pages", "branches", "overflow", "leaf fill", "key bytes",
             "value bytes");
  uint64_t entries = 0, overflow = 0, values = 0;
  for (size_t i = 0; i < snap.trees.size(); ++i) {
    const TreeStats& s = snap.trees[i].stats;
    entries += s.entries;
    overflow += s.overflow_pages;
    values += s.value_bytes;
    fmt::print("{:<{}}  {:>10}  {:>5}  {:>10}  {:>8}  {:>9}  {:>8.1f}%  {:>12}  {:>14}\n", names[i],
               width, s.entries, s.depth, s.leaf_pages, s.branch_pages, s.overflow_pages,
               s.leaf_fill * 100, s.key_bytes, s.value_bytes);
  }
  fmt::print("\n{} user trees, {} entries, {} overflow pages, {} value bytes\n", snap.trees.size(),
             entries, overflow, values);
  fmt::print("internal trees: ");
  for (size_t i = 0; i < snap.internal.size(); ++i) {
    fmt::print("{}{} {} entries (depth {})", i ? ", " : "",
               snap.internal[i].kind == inspect::TreeKind::kCatalog ? "catalog"
               : snap.internal[i].kind == inspect::TreeKind::kFree  ? "free tree"
                                                                    : "kept snapshots",
               snap.internal[i].entries, snap.internal[i].depth);
  }
  fmt::print("\nfree pages {} (pending, not reusable yet: {}) in {} free-tree entries\n",
             snap.free.free_pages, snap.free.pending_pages, snap.free.entries);
  fmt::print("(snapshot of txn {})\n", snap.txn_id);
}

int run_stat(const std::string& path, bool json_output) {
  std::unique_ptr<Database> db = open_for_inspection(path);
  if (db == nullptr) return kExitError;
  Result<Snapshot> snap = collect(*db);
  if (!snap.is_ok()) {
    report_error(path, snap.status());
    return kExitError;
  }
  if (json_output) {
    print_line(json_text(stat_json(path, db->page_size_bytes(), *snap)));
  } else {
    print_text(*snap);
  }
  return kExitOk;
}

}  // namespace

void add_stat_command(CommandRegistry& registry) {
  registry.add_file_command(
      "stat", "Per tree: entries, depth, pages, fill, overflow pages, key and value bytes",
      run_stat);
}

}  // namespace ordo::tool
