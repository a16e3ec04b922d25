// `ordo snapshot keep|release|list FILE [TXN]`: keep the last commit,
// release kept snapshot TXN, or list the kept ones (Database::keep_snapshot,
// release_snapshot, kept_snapshots).
#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <string>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"

namespace ordo::tool {
namespace {

using json = nlohmann::ordered_json;

struct SnapshotOptions {
  std::string action;  // keep, release or list
  std::string path;
  uint64_t txn = 0;  // release
  bool json = false;
};

int run_snapshot(const SnapshotOptions& o) {
  if (o.action == "list") {
    std::unique_ptr<Database> db = open_for_inspection(o.path);
    if (db == nullptr) return kExitError;
    auto kept = db->kept_snapshots();
    if (!kept.is_ok()) {
      report_error(o.path, kept.status());
      return kExitError;
    }
    if (o.json) {
      json j;
      j["kept_snapshots"] = *kept;
      print_line(json_text(j));
    } else {
      for (uint64_t t : *kept) print_line(fmt::format("{}", t));
    }
    return kExitOk;
  }
  auto db = Database::open(o.path, Options{.create_if_missing = false});
  if (!db.is_ok()) {
    report_error(o.path, db.status());
    return kExitError;
  }
  uint64_t txn = o.txn;
  if (o.action == "keep") {
    auto kept = (*db)->keep_snapshot();
    if (!kept.is_ok()) {
      report_error(o.path, kept.status());
      return kExitError;
    }
    txn = *kept;
  } else {
    Status s = (*db)->release_snapshot(o.txn);
    if (!s.is_ok()) {
      report_error(o.path, s);
      return kExitError;
    }
  }
  if (o.json) {
    json j;
    j[o.action == "keep" ? "kept" : "released"] = txn;
    print_line(json_text(j));
  } else {
    print_line(fmt::format("{} {}", o.action == "keep" ? "kept" : "released", txn));
  }
  return kExitOk;
}

}  // namespace

void add_snapshot_command(CommandRegistry& registry) {
  CLI::App* snapshot = registry.add_command(
      "snapshot", "Kept snapshots: keep the last commit, release one, list them");
  snapshot->require_subcommand(1);
  for (const char* action : {"keep", "release", "list"}) {
    const std::string a = action;
    auto args = std::make_shared<SnapshotOptions>();
    args->action = a;
    CLI::App* sub = snapshot->add_subcommand(
        action, a == "keep"      ? "Keep the last commit until released (prints its txn id)"
                : a == "release" ? "Release kept snapshot TXN: its pages become reusable"
                                 : "Txn ids of the kept snapshots");
    sub->add_option("FILE", args->path, "Database file")->required();
    if (a == "release") {
      sub->add_option("TXN", args->txn, "Txn id of the kept snapshot")
          ->required()
          ->check(unsigned_number<uint64_t>());
    }
    sub->add_flag("--json", args->json, "Print one JSON object");
    registry.set_action(sub, [args] { return run_snapshot(*args); });
  }
}

}  // namespace ordo::tool
