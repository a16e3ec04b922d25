// `ordo check FILE [--json]`: a full integrity walk (Txn::check). Exit 0 when
// clean, 1 when it finds problems (each with its page number) or cannot open
// the file. Progress goes to stderr on large files.
//
// A file whose log holds commits with pages not all in the file (after a
// crash of the machine, or a cut) needs a writable open to replay them. The
// check does not write to it: it replays them in a scratch copy under
// $TMPDIR and checks what that replay gives, and reports the file as needing
// recovery (exit 1) with that result.
#include <fmt/core.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>

#include "byte_format.h"
#include "command_registry.h"
#include "commands.h"
#include "open_database.h"
#include "ordo/sys/temp_dir.h"
#include "progress.h"

namespace ordo::tool {
namespace {

// What a read-only open of the file found that needs a writable open, and
// what the replay in a scratch copy says.
struct Recovery {
  std::string needed;    // the open's status
  std::string replayed;  // DatabaseInfo::log.replayed of the scratch copy
};

// Checks `db`'s newest commit and reports it as `path`'s; `recovery` set when
// `db` is a scratch copy replayed from `path`. Returns the exit code.
int check_and_report(const std::string& path, Database& db, bool json_output,
                     const std::optional<Recovery>& recovery) {
  auto txn = db.begin_read();
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
  DatabaseInfo info = db.info();
  // The scratch copy's open passed over what the read-only open named
  // already (recovery->needed): the replay's result is what is checked.
  if (recovery) info.recovery.clear();
  // A commit rolled back at open (a one-sync commit whose pages did not
  // verify, or a newest meta that is unusable) is a finding too: after a
  // crash it is expected, otherwise it is damage. So is a file that needs a
  // replay.
  const bool state_clean = report->clean() && info.recovery.empty();
  const bool clean = state_clean && !recovery;
  const size_t findings = report->problems.size() + !info.recovery.empty() + recovery.has_value();
  if (json_output) {
    nlohmann::ordered_json j;
    j["path"] = path;
    j["clean"] = clean;
    j["txn_id"] = info.txn_id;
    j["recovery"] = info.recovery;
    if (recovery) {
      j["needs_recovery"] = recovery->needed;
      j["replayed_in_scratch_copy"] = recovery->replayed;
      j["replayed_state_clean"] = state_clean;
    }
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
    if (recovery) {
      j["problems"].push_back({{"page", 0}, {"what", "needs recovery: " + recovery->needed}});
    }
    if (!info.recovery.empty()) {
      j["problems"].push_back({{"page", 0}, {"what", "last commit rolled back: " + info.recovery}});
    }
    for (const auto& p : report->problems) {
      j["problems"].push_back({{"page", p.page_number}, {"what", p.what}});
    }
    print_line(json_text(j));
  } else {
    if (recovery) {
      print_line(path + ": needs recovery: " + safe_text(recovery->needed));
      print_line("replayed in a scratch copy (" + path +
                 " is unchanged): " + safe_text(recovery->replayed) + "; that state:");
    }
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
    if (recovery) {
      print_line(state_clean ? "needs recovery; a writable open recovers a clean state"
                             : fmt::format("needs recovery; {} problems", findings));
    } else {
      print_line(clean ? "clean" : fmt::format("{} problems", findings));
    }
  }
  return clean ? kExitOk : kExitError;
}

// The replay a writable open would make, made in a copy of `path` under
// $TMPDIR, then checked.
int check_replayed(const std::string& path, bool json_output, const Status& needed) {
  auto scratch = sys::TempDir::make("ordo-check-");
  if (!scratch.is_ok()) {
    report_error(path, needed);
    report_error("scratch copy for the replay", scratch.status());
    return kExitError;
  }
  const std::string copy = scratch->file("replay.ordo");
  std::error_code ec;
  std::filesystem::copy_file(path, copy, ec);
  if (ec) {
    report_error(path, needed);
    report_message("scratch copy for the replay: " + copy + ": " + ec.message());
    return kExitError;
  }
  auto db = Database::open(copy, Options{.create_if_missing = false});
  if (!db.is_ok()) {
    report_error(path, needed);
    report_error("replay in a scratch copy", db.status());
    return kExitError;
  }
  return check_and_report(path, **db, json_output,
                          Recovery{needed.to_string(), (*db)->info().log.replayed});
}

int run_check(const std::string& path, bool json_output) {
  // Opening can already find damage (both metas bad, truncation): that is a
  // problem found, reported like the others.
  auto opened = Database::open(path, Options{.read_only = true});
  if (opened.status().is_needs_recovery())
    return check_replayed(path, json_output, opened.status());
  if (!opened.is_ok()) {
    report_error(path, opened.status());
    return kExitError;
  }
  std::unique_ptr<Database> db = std::move(opened).value();
  std::string rolled_back = db->info().recovery;
  if (!rolled_back.empty()) report_message("warning: " + path + ": " + rolled_back);
  return check_and_report(path, *db, json_output, std::nullopt);
}

}  // namespace

void add_check_command(CommandRegistry& registry) {
  registry.add_file_command(
      "check", "Verify every page: checksums, order, overflow runs, no leaked or shared page",
      run_check);
}

}  // namespace ordo::tool
