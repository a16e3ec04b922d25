// `ordo copy SRC DELTA --since TXN` (a delta file) and `ordo restore FILE
// DELTA` (apply it): incremental copies between kept snapshots.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "open_database.h"

namespace ordo::tool {

namespace {

using json = nlohmann::ordered_json;

void print_delta(const char* verb, const std::string& path, const DeltaResult& r, bool as_json) {
  if (as_json) {
    json j;
    j["file"] = path;
    j["base_txn"] = r.base_txn;
    j["target_txn"] = r.target_txn;
    j["trees"] = r.trees;
    j["puts"] = r.puts;
    j["deletes"] = r.deletes;
    j["bytes"] = r.bytes;
    print_line(json_text(j));
    return;
  }
  print_line(fmt::format("{} {}: txn {} -> txn {}: {} trees, {} puts, {} deletes, {} bytes", verb,
                         path, r.base_txn, r.target_txn, r.trees, r.puts, r.deletes, r.bytes));
}

}  // namespace

int run_copy_delta(const CopyCommandOptions& o, uint64_t since) {
  if (o.compact || o.force || o.target == "-") {
    report_message("copy --since writes a new delta file: --compact, --force and - do not apply");
    return kExitUsage;
  }
  std::optional<ReadTxn> txn =
      o.at ? read_kept_snapshot(o.source, *o.at) : read_for_inspection(o.source);
  if (!txn) return kExitError;
  auto r = txn->copy_delta_to(o.target, since);
  if (!r.is_ok()) {
    report_error(o.source, r.status());
    return kExitError;
  }
  print_delta("wrote delta", o.target, *r, o.json);
  return kExitOk;
}

int run_restore(const RestoreOptions& o) {
  auto db = Database::open(o.path, Options{.create_if_missing = false});
  if (!db.is_ok()) {
    report_error(o.path, db.status());
    return kExitError;
  }
  auto r = (*db)->apply_delta(o.delta);
  if (!r.is_ok()) {
    report_error(o.delta, r.status());
    return kExitError;
  }
  print_delta("applied delta", o.delta, *r, o.json);
  return kExitOk;
}

}  // namespace ordo::tool
