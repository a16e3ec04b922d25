// `ordo upgrade FILE [--log-bytes N] [--json]`: converts a version 2 or 3
// database file to version 4 in place (Database::upgrade): leaves and
// overflow runs stay, branches are written anew with entry counts; a file at
// version 4 already is left as it is (exit 0). Exit 1 when the file cannot
// be upgraded (missing, locked by a writer, not an ordo file, damaged, of
// another version); a failure part way leaves a file that opens as upgraded
// or that `ordo upgrade` converts again.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"

namespace ordo::tool {
namespace {
// The format version Database::upgrade writes (DatabaseInfo::format_version
// of the file it leaves).
constexpr int kUpgradedVersion = 4;
struct UpgradeOptions {
  std::string path;
  uint64_t log_bytes = 0;  // the log area; 0: the default (4 MiB)
  bool json = false;
};

int run_upgrade(const UpgradeOptions& o) {
  Result<UpgradeResult> result = Database::upgrade(o.path, o.log_bytes);
  if (!result.is_ok()) {
    report_error(o.path, result.status());
    return kExitError;
  }
  if (!result->recovery.empty()) {
    report_message(o.path +
                   ": the newest commit was incomplete and is not kept: " + result->recovery);
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["path"] = o.path;
    j["upgraded"] = result->upgraded;
    j["format_version"] = kUpgradedVersion;
    j["txn_id"] = result->txn_id;
    j["page_size_bytes"] = result->page_size_bytes;
    j["log_first_page"] = result->log_first_page;
    j["log_bytes"] = result->log_bytes;
    j["file_bytes"] = result->file_bytes;
    j["recovery"] = result->recovery;
    print_line(json_text(j));
  } else if (result->upgraded) {
    print_line(
        fmt::format("{}: upgraded to format version {} at txn {}: log area of {} bytes at "
                    "page {} (page size {}); file {} bytes",
                    o.path, kUpgradedVersion, result->txn_id, result->log_bytes,
                    result->log_first_page, result->page_size_bytes, result->file_bytes));
  } else {
    print_line(fmt::format("{}: already format version {} (txn {}): nothing to do{}", o.path,
                           kUpgradedVersion, result->txn_id,
                           o.log_bytes != 0 && o.log_bytes != result->log_bytes
                               ? fmt::format(" (its log area stays {} bytes: --log-bytes "
                                             "applies only to a conversion)",
                                             result->log_bytes)
                               : ""));
  }
  return kExitOk;
}

}  // namespace

void add_upgrade_command(CommandRegistry& registry) {
  struct Args {
    FileArgs file;
    uint64_t log_bytes = 0;
  };
  auto args = std::make_shared<Args>();
  CLI::App* command = registry.add_file_command(
      "upgrade", "Convert a version 2 or 3 file to version 4 in place, keeping leaves and values",
      args->file);
  command
      ->add_option("--log-bytes", args->log_bytes,
                   "Log area in bytes: a multiple of the page size from 64 KiB to 1 GiB "
                   "(default 4 MiB)")
      ->check(unsigned_number<uint64_t>());
  registry.set_action(command, [args] {
    return run_upgrade(
        {.path = args->file.path, .log_bytes = args->log_bytes, .json = args->file.json});
  });
}

}  // namespace ordo::tool
