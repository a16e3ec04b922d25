// `ordo check FILE [--json]`: a full integrity walk (Txn::check). Exit 0 when
// clean, 1 when it finds problems (each with its page number) or cannot open
// the file. Progress goes to stderr on large files.
#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <string>

#include "byte_format.h"
#include "commands.h"
#include "open_database.h"
#include "progress.h"

namespace ordo::tool {

int run_check(const std::string& path, bool json) {
  // Opening can already find damage (both metas bad, truncation): that is a
  // problem found, reported like the others.
  std::unique_ptr<Database> db = open_for_inspection(path);
  if (!db) return kExitError;
  auto txn = db->begin_read();
  if (!txn.is_ok()) {
    report_error(path, txn.status());
    return kExitError;
  }
  Progress progress("checked", "pages");
  auto report = txn->check([&](uint64_t done, uint64_t total) { progress.update(done, total); });
  progress.finish();
  if (!report.is_ok()) {
    report_error(path, report.status());
    return kExitError;
  }
  const DatabaseInfo info = db->info();
  // A commit rolled back at open (a one-sync commit whose pages did not
  // verify, or a newest meta that is unusable) is a finding too: after a
  // crash it is expected, otherwise it is damage.
  const bool clean = report->clean() && info.recovery.empty();
  if (json) {
    nlohmann::ordered_json j;
    j["path"] = path;
    j["clean"] = clean;
    j["txn_id"] = info.txn_id;
    j["recovery"] = info.recovery;
    j["high_water_pages"] = report->high_water_pages;
    j["tree_pages"] = report->tree_pages;
    j["overflow_pages"] = report->overflow_pages;
    j["free_pages"] = report->free_pages;
    j["log_pages"] = report->log_pages;
    j["log_records"] = report->log_records;
    j["log_record_bytes"] = report->log_bytes;
    j["user_trees"] = report->trees;
    j["user_entries"] = report->entries;
    j["catalog_entries"] = report->catalog_entries;
    j["free_tree_entries"] = report->free_tree_entries;
    j["problems_truncated"] = report->truncated;
    j["problems"] = nlohmann::ordered_json::array();
    if (!info.recovery.empty()) {
      j["problems"].push_back({{"page", 0}, {"what", "last commit rolled back: " + info.recovery}});
    }
    for (const auto& p : report->problems) {
      j["problems"].push_back({{"page", p.page_number}, {"what", p.what}});
    }
    print_line(json_text(j));
  } else {
    print_line(
        fmt::format("{}: txn {}, {} pages: {} tree, {} overflow, {} free, {} log; {} user "
                    "trees, {} entries; internal: catalog {} entries, free tree {} entries; "
                    "log: {} records ({} bytes) since the checkpoint",
                    path, info.txn_id, report->high_water_pages, report->tree_pages,
                    report->overflow_pages, report->free_pages, report->log_pages, report->trees,
                    report->entries, report->catalog_entries, report->free_tree_entries,
                    report->log_records, report->log_bytes));
    if (!info.recovery.empty()) print_line("last commit rolled back: " + info.recovery);
    for (const auto& p : report->problems) {
      print_line(fmt::format("page {}: {}", p.page_number, safe_text(p.what)));
    }
    if (report->truncated) print_line("(more problems not listed)");
    print_line(clean
                   ? "clean"
                   : fmt::format("{} problems", report->problems.size() + !info.recovery.empty()));
  }
  return clean ? kExitOk : kExitError;
}

}  // namespace ordo::tool
