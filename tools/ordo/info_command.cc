// `ordo info FILE [--json]`: what the file header, both meta pages and the log say.
#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"
#include "ordo/inspect.h"

namespace ordo::tool {
namespace {

using json = nlohmann::ordered_json;

json meta_json(const MetaInfo& meta, int page, bool current) {
  json j;
  j["meta_page"] = page;
  j["current"] = current;
  j["valid"] = meta.valid;
  j["problem"] = meta.problem;
  j["txn_id"] = meta.txn_id;
  j["high_water_pages"] = meta.page_high_water;
  j["free_pages"] = meta.free_pages;
  j["named_trees"] = meta.tree_count;
  j["file_bytes"] = meta.file_bytes;
  return j;
}

// User trees (the default tree plus the named ones) and their entries, from
// the root records: the counts `ordo trees`, `stat` and `check` show.
struct Counts {
  uint64_t named_trees = 0;
  uint64_t user_trees = 0;
  std::vector<uint64_t> kept;  // kept snapshots' txn ids
  uint64_t user_entries = 0;
};

json info_json(const std::string& path, const DatabaseInfo& info, const Counts& counts) {
  json j;
  j["path"] = path;
  j["file_bytes"] = info.file_bytes;
  j["page_size_bytes"] = info.page_size_bytes;
  j["format_version"] = info.format_version;
  j["io_backend"] = info.io_backend;
  j["txn_id"] = info.txn_id;
  j["current_meta"] = info.current_meta;
  j["used_pages"] = info.pages_used;
  j["used_bytes"] = info.pages_used * info.page_size_bytes;
  j["uuid_high_water"] = info.id_high_water.to_string();
  j["id64_high_water"] = info.id64_high_water.value;
  j["user_trees"] = counts.user_trees;
  j["named_trees"] = counts.named_trees;
  j["kept_snapshots"] = counts.kept;
  j["user_entries"] = counts.user_entries;
  j["recovery"] = info.recovery;
  j["current"] = meta_json(info.current, info.current_meta, true);
  j["current"].erase("meta_page");
  j["current"].erase("current");
  json log;
  log["first_page"] = info.log.first_page;
  log["area_bytes"] = info.log.area_bytes;
  log["epoch"] = info.log.epoch;
  log["checkpoint_txn"] = info.log.checkpoint_txn;
  log["records"] = info.log.records;
  log["tail_bytes"] = 0;
  log["head_bytes"] = info.log.head_bytes;
  log["last_txn"] = info.log.last_txn;
  log["replayed"] = info.log.replayed;
  log["replayed_records"] = info.log.replayed_records;
  log["replayed_bytes"] = info.log.replayed_bytes;
  j["log"] = log;
  j["metas"] = json::array();
  for (int i = 0; i < 2; ++i) {
    j["metas"].push_back(meta_json(info.metas[i], i, i == info.current_meta));
  }
  return j;
}

constexpr int kLabelWidth = 20;
constexpr int kMetaWidth = 24;

void line(std::string_view label, const std::string& value) {
  fmt::print("{:<{}}{}\n", label, kLabelWidth, value);
}

void meta_line(std::string_view label, const std::string& meta0, const std::string& meta1) {
  fmt::print("{:<{}}{:<{}}{}\n", label, kLabelWidth, meta0, kMetaWidth, meta1);
}

template <typename Field>
void meta_row(std::string_view label, const DatabaseInfo& info, Field field) {
  meta_line(label, fmt::format("{}", field(info.metas[0])),
            fmt::format("{}", field(info.metas[1])));
}

void print_text(const std::string& path, const DatabaseInfo& info, const Counts& counts) {
  line("file", path);
  line("file bytes", fmt::format("{}", info.file_bytes));
  line("page size bytes", fmt::format("{}", info.page_size_bytes));
  line("format version", fmt::format("{}", info.format_version));
  line("io backend", info.io_backend);
  line("txn id", fmt::format("{}", info.txn_id));
  line("current meta", fmt::format("{}", info.current_meta));
  line("pages used",
       fmt::format("{} ({} bytes)", info.pages_used, info.pages_used * info.page_size_bytes));
  line("uuid high-water", info.id_high_water.to_string());
  line("id64 high-water",
       fmt::format("{} ({:#018x})", info.id64_high_water.value, info.id64_high_water.value));
  line("user trees",
       fmt::format("{} (the default tree and {} named)", counts.user_trees, counts.named_trees));
  line("user entries", fmt::format("{}", counts.user_entries));
  std::string kept;
  for (uint64_t t : counts.kept) kept += (kept.empty() ? "txn " : ", ") + std::to_string(t);
  line("kept snapshots", kept.empty() ? std::string("none") : kept);
  if (!info.recovery.empty()) line("recovery", info.recovery);
  const uint64_t log_pages = info.log.area_bytes / info.page_size_bytes;
  line("log area", log_pages == 0
                       ? std::string("none")
                       : fmt::format("pages {}..{} ({} bytes)", info.log.first_page,
                                     info.log.first_page + log_pages - 1, info.log.area_bytes));
  line("checkpoint", fmt::format("txn {} (log epoch {}, meta {})", info.log.checkpoint_txn,
                                 info.log.epoch, info.current_meta));
  line("log records", info.log.records == 0
                          ? std::string("none since the checkpoint")
                          : fmt::format("{} since the checkpoint: txns {}..{}, bytes 0..{} "
                                        "(tail..head)",
                                        info.log.records, info.log.checkpoint_txn + 1,
                                        info.log.last_txn, info.log.head_bytes));
  if (!info.log.replayed.empty()) line("log replayed", info.log.replayed);
  fmt::print("\n");
  auto title = [&](int i) {
    return fmt::format("meta {}{}", i, i == info.current_meta ? " *" : "");
  };
  meta_line("", title(0), title(1));
  meta_row("valid", info, [](const MetaInfo& m) { return m.valid ? "yes" : "no"; });
  meta_row("txn id", info, [](const MetaInfo& m) { return m.txn_id; });
  meta_row("page high-water", info, [](const MetaInfo& m) { return m.page_high_water; });
  meta_row("free pages", info, [](const MetaInfo& m) { return m.free_pages; });
  meta_row("named trees", info, [](const MetaInfo& m) { return m.tree_count; });
  meta_row("file bytes", info, [](const MetaInfo& m) { return m.file_bytes; });
  for (int i = 0; i < 2; ++i) {
    if (!info.metas[i].problem.empty()) {
      fmt::print("meta {} problem: {}\n", i, info.metas[i].problem);
    }
  }
}

int run_info(const std::string& path, bool json_output) {
  std::unique_ptr<Database> db = open_for_inspection(path);
  if (db == nullptr) return kExitError;
  Counts counts;
  {
    auto txn = db->begin_read();
    auto trees = txn.is_ok() ? inspect::trees(*txn)
                             : Result<std::vector<inspect::TreeSummary>>(txn.status());
    if (!trees.is_ok()) {
      report_error(path, trees.status());
      return kExitError;
    }
    for (const auto& t : *trees) {
      if (t.kind == inspect::TreeKind::kNamed) counts.named_trees++;
      if (t.kind == inspect::TreeKind::kNamed || t.kind == inspect::TreeKind::kDefault) {
        counts.user_trees++;
        counts.user_entries += t.entries;
      }
    }
  }
  auto kept = db->kept_snapshots();
  if (!kept.is_ok()) {
    report_error(path, kept.status());
    return kExitError;
  }
  counts.kept = *kept;
  const DatabaseInfo info = db->info();
  if (json_output) {
    print_line(json_text(info_json(path, info, counts)));
  } else {
    print_text(path, info, counts);
  }
  return kExitOk;
}

}  // namespace

void add_info_command(CommandRegistry& registry) {
  registry.add_file_command("info", "File, page size, format, meta pages, ID marks, tree counts",
                            run_info);
}

}  // namespace ordo::tool
