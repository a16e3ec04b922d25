// `ordo pages FILE [--json]`: one line per page below the high-water mark of
// the last commit: number, kind (meta, branch, leaf, overflow, free,
// unreachable), owning tree, level, entries, fill, the txn that wrote it,
// overflow runs (a leaf's references; an overflow page's run and place in
// it) and, for a free page, the txn that freed it. From one walk of every
// tree (inspect::page_map).
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"
#include "ordo/inspect.h"
#include "output.h"
#include "progress.h"

namespace ordo::tool {
namespace {

std::string tree_column(const inspect::PageMap& map, int32_t index) {
  if (index < 0) return "-";
  const inspect::TreeSummary& t = map.trees[index];
  switch (t.kind) {
    case inspect::TreeKind::kDefault:
      return "(default)";
    case inspect::TreeKind::kCatalog:
      return "(catalog)";
    case inspect::TreeKind::kFree:
      return "(free tree)";
    case inspect::TreeKind::kKept:
      return "(kept)";
    case inspect::TreeKind::kNamed:
      break;
  }
  return to_print(t.name);
}

int run_pages(const std::string& path, bool json_output) {
  std::optional<ReadTxn> txn = read_for_inspection(path);
  if (!txn) return kExitError;
  Progress progress("walked", "pages");
  auto map = inspect::page_map(*txn, [&](uint64_t d, uint64_t t) { progress.update(d, t); });
  progress.finish();
  if (!map.is_ok()) {
    report_error(path, map.status());
    return kExitError;
  }
  const double ps = map->page_size;
  if (json_output) {
    nlohmann::ordered_json j;
    j["path"] = path;
    j["txn_id"] = txn->txn_id();
    j["page_size_bytes"] = map->page_size;
    j["high_water_pages"] = map->high_water;
    j["pages"] = nlohmann::ordered_json::array();
    for (const auto& p : map->pages) {
      nlohmann::ordered_json row;
      row["page"] = p.page;
      row["kind"] = inspect::page_kind_name(p.kind);
      if (p.tree >= 0) row["tree"] = tree_column(*map, p.tree);
      if (p.kind == inspect::PageKind::kBranch || p.kind == inspect::PageKind::kLeaf) {
        row["level"] = p.level;
        row["entries"] = p.entries;
        row["fill"] = p.used_bytes / ps;
        row["overflow_refs"] = p.overflow_refs;
      }
      if (p.kind == inspect::PageKind::kOverflow) {
        row["run_first"] = p.run_first;
        row["run_pages"] = p.run_pages;
      }
      if (p.kind == inspect::PageKind::kFree) row["freed_by"] = p.freed_by;
      if (p.kind != inspect::PageKind::kMeta) row["txn_id"] = p.txn_id;
      j["pages"].push_back(std::move(row));
    }
    j["problems"] = map->problems;
    print_line(json_text(j));
    return map->problems.empty() ? kExitOk : kExitError;
  }
  size_t width = 4;
  for (const auto& t : map->trees) width = std::max(width, to_print(t.name).size());
  width = std::max<size_t>(width, 11);
  fmt::print("{:>10}  {:<11}  {:<{}}  {:>5}  {:>7}  {:>6}  {:>10}  {}\n", "page", "kind", "tree",
             width, "level", "entries", "fill", "txn", "detail");
  std::string line;
  for (const auto& p : map->pages) {
    std::string level = "-", entries = "-", fill = "-", txn_col = "-", detail;
    if (p.kind == inspect::PageKind::kBranch || p.kind == inspect::PageKind::kLeaf) {
      level = std::to_string(p.level);
      entries = std::to_string(p.entries);
      fill = fmt::format("{:.1f}%", 100.0 * p.used_bytes / ps);
      if (p.overflow_refs > 0) detail = fmt::format("{} overflow runs", p.overflow_refs);
    }
    if (p.kind == inspect::PageKind::kOverflow) {
      detail = fmt::format("run {}+{} (page {} of {})", p.run_first, p.run_pages,
                           p.page - p.run_first + 1, p.run_pages);
    }
    if (p.kind == inspect::PageKind::kFree) detail = fmt::format("freed by txn {}", p.freed_by);
    if (p.kind != inspect::PageKind::kMeta && p.kind != inspect::PageKind::kUnreachable) {
      txn_col = std::to_string(p.txn_id);
    }
    line = fmt::format("{:>10}  {:<11}  {:<{}}  {:>5}  {:>7}  {:>6}  {:>10}  {}\n", p.page,
                       inspect::page_kind_name(p.kind), tree_column(*map, p.tree), width, level,
                       entries, fill, txn_col, detail);
    if (!write_stdout(line)) return kExitError;  // the reader is gone
  }
  for (const auto& problem : map->problems) report_message(path + ": " + problem);
  return map->problems.empty() ? kExitOk : kExitError;
}

}  // namespace

void add_pages_command(CommandRegistry& registry) {
  registry.add_file_command("pages", "One line per page: kind, tree, entries, fill, runs",
                            run_pages);
}

}  // namespace ordo::tool
