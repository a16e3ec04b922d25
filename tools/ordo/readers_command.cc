// `ordo readers FILE [--json]`: the reader slots held on the file: which
// snapshot each pins and, when /proc tells, which processes hold it (pid and
// command name). Read-only handles take slots; a writable handle's own read
// txns do not and are not listed.
#include <fmt/core.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"
#include "ordo/inspect.h"

namespace ordo::tool {
namespace {

std::string command_name(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

int run_readers(const std::string& path, bool json_output) {
  // Opening checks that this is an ordo database; the query holds no slot.
  std::unique_ptr<Database> db = open_for_inspection(path);
  if (!db) return kExitError;
  const uint64_t last_txn = db->info().txn_id;
  auto slots = inspect::reader_slots(path);
  if (!slots.is_ok()) {
    report_error(path, slots.status());
    return kExitError;
  }
  if (json_output) {
    nlohmann::ordered_json j;
    j["path"] = path;
    j["txn_id"] = last_txn;
    j["readers"] = nlohmann::ordered_json::array();
    for (const auto& s : *slots) {
      nlohmann::ordered_json procs = nlohmann::ordered_json::array();
      for (int pid : s.pids) procs.push_back({{"pid", pid}, {"command", command_name(pid)}});
      j["readers"].push_back({{"snapshot_txn", s.snapshot_txn}, {"processes", procs}});
    }
    print_line(json_text(j));
    return kExitOk;
  }
  if (slots->empty()) {
    fmt::print("no reader slots held on {} (last commit: txn {})\n", path, last_txn);
    return kExitOk;
  }
  fmt::print("{:>12}  {:>8}  {}\n", "snapshot", "behind", "processes");
  for (const auto& s : *slots) {
    std::string procs;
    for (int pid : s.pids) {
      if (!procs.empty()) procs += ", ";
      procs += fmt::format("{} ({})", pid, command_name(pid));
    }
    fmt::print("{:>12}  {:>8}  {}\n", s.snapshot_txn,
               last_txn >= s.snapshot_txn ? last_txn - s.snapshot_txn : 0,
               procs.empty() ? "unknown" : procs);
  }
  return kExitOk;
}

}  // namespace

void add_readers_command(CommandRegistry& registry) {
  registry.add_file_command("readers", "Reader slots held: snapshot txn, process", run_readers);
}

}  // namespace ordo::tool
