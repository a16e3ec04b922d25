// `ordo check FILE [--json]`: a full integrity walk (Txn::check). Exit 0 when
// clean, 1 when it finds problems (each with its page number) or cannot open
// the file. Progress goes to stderr on large files.
#include <fmt/core.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "commands.h"
#include "open_database.h"

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
  const bool show_progress = !json && isatty(STDERR_FILENO);
  auto report = txn->check([&](uint64_t done, uint64_t total) {
    if (show_progress && total > 65536) {
      fmt::print(stderr, "\rchecked {} of {} pages ({:.0f}%)", done, total,
                 100.0 * static_cast<double>(done) / static_cast<double>(total));
    }
  });
  if (show_progress) fmt::print(stderr, "\r\033[K");
  if (!report.is_ok()) {
    report_error(path, report.status());
    return kExitError;
  }
  const DatabaseInfo info = db->info();
  // A one-sync commit rolled back at open (its pages did not verify) is a
  // finding too: after a crash it is expected, otherwise it is damage.
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
    j["trees"] = report->trees;
    j["entries"] = report->entries;
    j["problems_truncated"] = report->truncated;
    j["problems"] = nlohmann::ordered_json::array();
    if (!info.recovery.empty()) {
      j["problems"].push_back({{"page", 0}, {"what", "last commit rolled back: " + info.recovery}});
    }
    for (const auto& p : report->problems) {
      j["problems"].push_back({{"page", p.page_number}, {"what", p.what}});
    }
    print_line(j.dump(2));
  } else {
    print_line(fmt::format("{}: txn {}, {} pages: {} tree, {} overflow, {} free; {} trees, {} entries",
                           path, info.txn_id, report->high_water_pages, report->tree_pages,
                           report->overflow_pages, report->free_pages, report->trees,
                           report->entries));
    if (!info.recovery.empty()) print_line("last commit rolled back: " + info.recovery);
    for (const auto& p : report->problems) {
      print_line(fmt::format("page {}: {}", p.page_number, p.what));
    }
    if (report->truncated) print_line("(more problems not listed)");
    print_line(clean ? "clean"
                     : fmt::format("{} problems", report->problems.size() + !info.recovery.empty()));
  }
  return clean ? kExitOk : kExitError;
}

}  // namespace ordo::tool
