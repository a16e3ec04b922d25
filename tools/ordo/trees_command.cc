// `ordo trees FILE [--json]`: the user trees (the default tree, then every
// named tree) with their entry counts, read from the root records (the meta
// and the catalog), not from a walk: fast at any size. The internal trees
// (catalog, free tree) are shown apart.
#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"
#include "ordo/inspect.h"

namespace ordo::tool {

namespace {

int run_trees(const std::string& path, bool json_output) {
  std::optional<ReadTxn> txn = read_for_inspection(path);
  if (!txn) return kExitError;
  auto trees = inspect::trees(*txn);
  if (!trees.is_ok()) {
    report_error(path, trees.status());
    return kExitError;
  }
  uint64_t user_trees = 0, user_entries = 0;
  for (const auto& t : *trees) {
    if (t.kind == inspect::TreeKind::kDefault || t.kind == inspect::TreeKind::kNamed) {
      user_trees++;
      user_entries += t.entries;
    }
  }
  if (json_output) {
    nlohmann::ordered_json j;
    j["path"] = path;
    j["txn_id"] = txn->txn_id();
    j["user_trees"] = user_trees;
    j["user_entries"] = user_entries;
    j["trees"] = nlohmann::ordered_json::array();
    j["internal_trees"] = nlohmann::ordered_json::array();
    for (const auto& t : *trees) {
      nlohmann::ordered_json row;
      row["kind"] = inspect::tree_kind_name(t.kind);
      if (t.kind == inspect::TreeKind::kNamed) {
        row["name"] = to_print(t.name);
        row["name_hex"] = to_hex(t.name);
      }
      row["entries"] = t.entries;
      row["depth"] = t.depth;
      row["root_page"] = t.root_page;
      const bool internal = t.kind == inspect::TreeKind::kCatalog ||
                            t.kind == inspect::TreeKind::kFree ||
                            t.kind == inspect::TreeKind::kKept;
      j[internal ? "internal_trees" : "trees"].push_back(std::move(row));
    }
    print_line(json_text(j));
    return kExitOk;
  }
  size_t width = 4;
  std::vector<std::string> names;
  for (const auto& t : *trees) {
    switch (t.kind) {
      case inspect::TreeKind::kDefault:
        names.push_back("(default)");
        break;
      case inspect::TreeKind::kNamed:
        names.push_back(to_print(t.name));
        break;
      case inspect::TreeKind::kCatalog:
        names.push_back("(catalog)");
        break;
      case inspect::TreeKind::kFree:
        names.push_back("(free tree)");
        break;
      case inspect::TreeKind::kKept:
        names.push_back("(kept snapshots)");
        break;
    }
    width = std::max(width, names.back().size());
  }
  fmt::print("{:<{}}  {:>12}  {:>5}\n", "tree", width, "entries", "depth");
  for (size_t i = 0; i < trees->size(); ++i) {
    const auto& t = (*trees)[i];
    if (t.kind == inspect::TreeKind::kCatalog) {
      fmt::print("\n{} user trees, {} entries (snapshot of txn {})\n\ninternal trees:\n",
                 user_trees, user_entries, txn->txn_id());
    }
    fmt::print("{:<{}}  {:>12}  {:>5}\n", names[i], width, t.entries, t.depth);
  }
  return kExitOk;
}

}  // namespace

void add_trees_command(CommandRegistry& registry) {
  registry.add_file_command("trees", "User trees and their entry counts (from the catalog)",
                            run_trees);
}

}  // namespace ordo::tool
