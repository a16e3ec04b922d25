// ordo: the command-line tool for ordo database files.
//
//   ordo info FILE        file, page size, format, both meta pages, ID high-water marks
//   ordo stat FILE        per tree: entries, depth, pages, fill, overflow pages, bytes
//   ordo check FILE       verify every page, checksum, key order and page accounting
//   ordo trees FILE       user trees and their entry counts (from the catalog)
//   ordo get FILE KEY     one value
//   ordo keys|scan FILE   keys, or keys and values, of a tree in order
//   ordo dump FILE        trees in LMDB's mdb_dump text format (mdb_load takes no
//                         empty key and no tree name with control characters)
//   ordo load FILE        records in that format into a database, in one txn
//   ordo copy SRC DST     a consistent (optionally compacted) copy of a live database
//   ordo pages FILE       one line per page
//   ordo page FILE N      one page decoded
//   ordo free FILE        free-tree entries
//   ordo readers FILE     reader slots held
//   ordo upgrade FILE     convert a version 2 or 3 file to version 4 in place
//   ordo diff FILE        changes to a tree since a kept snapshot
//   ordo restore FILE D   apply a delta file (ordo copy --since)
//   ordo snapshot ...     keep, release or list kept snapshots
//
// Every command takes --json; --help lists the exit codes (commands.h). Each
// command's file adds its flags and its action (command_registry.h); here
// the app is built, parsed, and the named command run.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "byte_format.h"
#include "command_registry.h"
#include "commands.h"
#include "open_database.h"
#include "output.h"

#ifndef ORDO_VERSION
#define ORDO_VERSION "unknown"
#endif

namespace {

using namespace ordo::tool;

// Every command, in the order of --help.
constexpr void (*kAddCommands[])(CommandRegistry&) = {
    add_info_command,     add_stat_command,           add_check_command, add_trees_command,
    add_get_command,      add_keys_and_scan_commands, add_dump_command,  add_load_command,
    add_copy_command,     add_pages_command,          add_page_command,  add_free_command,
    add_readers_command,  add_upgrade_command,        add_diff_command,  add_restore_command,
    add_snapshot_command,
};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

int run(int argc, char** argv) {
  CLI::App app{"Inspect, dump, load, copy and upgrade ordo database files.", "ordo"};
  app.footer(kExitCodesHelp);
  app.set_version_flag("--version", std::string("ordo ") + ORDO_VERSION);
  app.require_subcommand(1);
  CommandRegistry commands(app);
  for (auto add : kAddCommands) add(commands);

  // An unknown command names itself and lists the valid ones.
  if (argc >= 2 && argv[1][0] != '-') {
    const std::string first = argv[1];
    bool known = false;
    for (const auto& n : commands.names()) known = known || n == first;
    if (!known) {
      report_message("unknown command '" + clipped_text(first) +
                     "'; commands: " + joined(commands.names()) + " (ordo --help)");
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (argc < 2) {
      report_message("a command is required; commands: " + joined(commands.names()) +
                     " (ordo --help)");
      return kExitUsage;
    }
    // CLI11's message may quote any argument: bounded and terminal-safe.
    report_message(clipped_text(e.what(), 200) + " (ordo --help)");
    return kExitUsage;
  }
  const CommandAction* action = commands.parsed_action();
  if (action == nullptr) return kExitUsage;
  const int code = (*action)();
  // Output still buffered fails here (a closed pipe). A command that
  // failed has said why already.
  if (code == kExitOk && !finish_stdout()) return kExitError;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // A reader that goes away (`ordo pages F | head`) makes writes fail with
  // EPIPE: the commands stop and exit 1 instead of dying of the signal.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    // Only allocation or output failures get here; the engine reports by Status.
    std::fprintf(stderr, "ordo: %s\n", e.what());
    return ordo::tool::kExitError;
  }
}
