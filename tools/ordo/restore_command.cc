// `ordo restore FILE DELTA`: applies a delta file (`ordo copy --since`) to
// a copy at its base txn, in one txn (Database::apply_delta).
#include <string>

#include "command_registry.h"
#include "commands.h"
#include "delta_report.h"
#include "open_database.h"

namespace ordo::tool {
namespace {

int run_restore(const std::string& path, const std::string& delta, bool json) {
  auto db = Database::open(path, Options{.create_if_missing = false});
  if (!db.is_ok()) {
    report_error(path, db.status());
    return kExitError;
  }
  auto r = (*db)->apply_delta(delta);
  if (!r.is_ok()) {
    report_error(delta, r.status());
    return kExitError;
  }
  print_delta("applied delta", delta, *r, json);
  return kExitOk;
}

}  // namespace

void add_restore_command(CommandRegistry& registry) {
  struct Args {
    FileArgs file;
    std::string delta;
  };
  auto args = std::make_shared<Args>();
  CLI::App* command = registry.add_file_command(
      "restore", "Apply a delta file (ordo copy --since) to a copy at its base txn, in one txn",
      args->file);
  command->add_option("DELTA", args->delta, "The delta file")->required();
  registry.set_action(
      command, [args] { return run_restore(args->file.path, args->delta, args->file.json); });
}

}  // namespace ordo::tool
