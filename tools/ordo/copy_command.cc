// `ordo copy SRC DST [--compact] [--force]`: a consistent copy of the last
// commit of SRC (ReadTxn::copy_to), taken while writers go on. The copy
// appears at DST only once complete and durable (temporary file, fsync,
// rename, directory fsync); an existing DST is refused unless --force. A
// failed copy (a write or sync failing, no space) leaves no file at DST, or
// with --force the old one, and no temporary file.
// --compact rewrites every tree densely: no free pages. DST "-" streams the
// copy to stdout (a pipe or a file, never a terminal), for backups.
// --since TXN writes a delta file instead (`ordo restore` applies it).
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "delta_report.h"
#include "open_database.h"
#include "output.h"
#include "progress.h"

namespace ordo::tool {
namespace {

// After a failed copy to a path (by rename): what is left at `target`, the
// file it was before (`before`, when it existed) or nothing, unless the error
// said otherwise.
void report_failed_copy(const std::string& target, const struct stat* before) {
  struct stat now;
  if (::stat(target.c_str(), &now) != 0) {
    report_message(target + (before != nullptr ? ": nothing was copied, and the file that was "
                                                 "there is gone (the rename had replaced it)"
                                               : ": nothing was copied"));
  } else if (before != nullptr && now.st_dev == before->st_dev && now.st_ino == before->st_ino) {
    report_message(target + ": nothing was copied; the file is as it was");
  }
}

struct CopyCommandOptions {
  std::string source;
  std::string target;  // "-": stdout
  bool compact = false;
  bool force = false;
  bool json = false;
  std::optional<uint64_t> at;  // --at: copy this kept snapshot, not the last commit
};

int run_copy(const CopyCommandOptions& o) {
  const bool to_stdout = o.target == "-";
  if (to_stdout && o.json) {
    report_message("--json cannot go with DST '-': stdout carries the copy");
    return kExitUsage;
  }
  if (to_stdout && isatty(STDOUT_FILENO) == 1) {
    report_message("refusing to write a database to a terminal: redirect stdout, or name DST");
    return kExitUsage;
  }
  struct stat st;
  const bool exists = !to_stdout && ::stat(o.target.c_str(), &st) == 0;
  if (exists && !o.force) {
    report_message(o.target + ": exists; nothing was copied (--force replaces it)");
    return kExitError;
  }
  // stdout, a device or a FIFO is written in place (copy_to_fd); a path
  // that is missing or a regular file gets the copy by rename.
  OutputFile in_place;
  if (to_stdout || (exists && written_in_place(st))) {
    const std::optional<std::string> path =
        to_stdout ? std::nullopt : std::optional<std::string>(o.target);
    if (Status s = in_place.open(path, o.source, base::kCopyOutput); !s.is_ok()) {
      report_error(to_stdout ? "stdout" : o.target, s);
      return kExitError;
    }
  }
  std::optional<ReadTxn> txn =
      o.at ? read_kept_snapshot(o.source, *o.at) : read_for_inspection(o.source);
  if (!txn) return kExitError;
  Progress progress("copied", "pages");
  CopyOptions options;
  options.compact = o.compact;
  options.overwrite = o.force;
  options.progress = [&](uint64_t done, uint64_t total) { progress.update(done, total); };
  Result<CopyResult> result = in_place.stream() != nullptr
                                  ? txn->copy_to_fd(fileno(in_place.stream()), options)
                                  : txn->copy_to(o.target, options);
  progress.finish();
  if (!result.is_ok()) {
    report_error(to_stdout ? o.source : o.target, result.status());
    if (in_place.stream() == nullptr) report_failed_copy(o.target, exists ? &st : nullptr);
    return kExitError;
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["source"] = o.source;
    j["target"] = o.target;
    j["compact"] = o.compact;
    j["txn_id"] = result->txn_id;
    j["high_water_pages"] = result->pages;
    j["bytes"] = result->bytes;
    j["free_pages"] = result->free_pages;
    j["named_trees"] = result->trees;
    j["user_entries"] = result->entries;
    print_line(json_text(j));
  } else if (!to_stdout) {
    fmt::print(
        "copied txn {} of {} to {}{}: {} pages ({} bytes), {} free; {} named trees, {} "
        "entries\n",
        result->txn_id, o.source, o.target, o.compact ? " (compacted)" : "", result->pages,
        result->bytes, result->free_pages, result->trees, result->entries);
  }
  return kExitOk;
}

// `ordo copy SRC DELTA --since TXN`: a delta file of the changes since kept
// snapshot TXN (ReadTxn::copy_delta_to) up to the last commit, or up to kept
// snapshot --at. --compact and --force do not apply.
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

}  // namespace

void add_copy_command(CommandRegistry& registry) {
  struct Args {
    CopyCommandOptions options;
    uint64_t since = 0;
    uint64_t at = 0;
  };
  auto args = std::make_shared<Args>();
  // Not a file command: SRC and DST, and --json after the copy's flags.
  CLI::App* command = registry.add_command(
      "copy", "A consistent copy of a live database, durable before it appears under DST");
  CopyCommandOptions& options = args->options;
  command->add_option("SRC", options.source, "Database file to copy")->required();
  command->add_option("DST", options.target, "The copy's path, or - for stdout")->required();
  command->add_flag("--compact,-c", options.compact, "Rewrite every tree densely: no free pages");
  command->add_flag("--force,-f", options.force, "Replace DST if it exists");
  command->add_flag("--json", options.json, "Print one JSON object");
  CLI::Option* since =
      command
          ->add_option("--since", args->since,
                       "Write a delta file: the changes since kept snapshot TXN (ordo restore "
                       "applies it)")
          ->check(unsigned_number<uint64_t>());
  CLI::Option* at =
      command
          ->add_option("--at", args->at,
                       "Copy kept snapshot TXN instead of the last commit (a base for deltas)")
          ->check(unsigned_number<uint64_t>());
  registry.set_action(command, [args, since, at] {
    CopyCommandOptions o = args->options;
    if (at->count() > 0) o.at = args->at;
    if (since->count() > 0) return run_copy_delta(o, args->since);
    return run_copy(o);
  });
}

}  // namespace ordo::tool
