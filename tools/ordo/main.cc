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
//
// Every command takes --json; --help lists the exit codes (commands.h).
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "commands.h"
#include "number_text.h"
#include "open_database.h"
#include "output.h"

#ifndef ORDO_VERSION
#define ORDO_VERSION "unknown"
#endif

namespace {

using namespace ordo::tool;

const std::vector<std::string> kFormats = {"print", "hex", "uuid"};

// Every unsigned option and argument: decimal digits that fit in T (CLI11
// alone would take "-1" as 2^64-1).
template <typename T>
CLI::Validator unsigned_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_unsigned<T>(text)) return {};
        return "'" + clipped_text(text) + "' is not a whole number from 0 to " +
               std::to_string(std::numeric_limits<T>::max());
      },
      // No description: the option's type already shows as UINT in --help.
      "");
}

struct Commands {
  std::vector<std::pair<CLI::App*, std::function<int()>>> list;
  std::vector<std::string> names;
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
  Commands commands;

  // Options shared by the file commands.
  std::string path;
  bool json = false;
  auto file_command = [&](const char* name, const char* help) {
    CLI::App* sub = app.add_subcommand(name, help);
    sub->footer(kExitCodesHelp);
    sub->add_option("FILE", path, "Database file")->required();
    sub->add_flag("--json", json, "Print one JSON object");
    commands.names.push_back(name);
    return sub;
  };
  std::string tree_opt;
  auto tree_option = [&](CLI::App* sub, const char* help) {
    sub->add_option("--tree,-t", tree_opt, help);
  };
  auto tree_of = [&](CLI::App* sub) {
    TreeOption t;
    if (sub->count("--tree") > 0) t.name = tree_opt;
    return t;
  };
  std::string key_format = "print", value_format = "print";
  auto format_options = [&](CLI::App* sub, bool values, bool raw) {
    sub->add_option("--key-format", key_format, "How keys are shown and typed: print, hex, uuid")
        ->check(CLI::IsMember(kFormats));
    if (values) {
      std::vector<std::string> allowed = kFormats;
      if (raw) allowed.push_back("raw");
      sub->add_option("--value-format", value_format,
                      raw ? "How the value is shown: print, hex, uuid, raw (its bytes)"
                          : "How values are shown: print, hex, uuid")
          ->check(CLI::IsMember(allowed));
    }
  };
  auto fmt_of = [](const std::string& name) { return *byte_format_from_name(name); };

  CLI::App* info =
      file_command("info", "File, page size, format, meta pages, ID marks, tree counts");
  commands.list.emplace_back(info, [&] { return run_info(path, json); });
  CLI::App* stat = file_command(
      "stat", "Per tree: entries, depth, pages, fill, overflow pages, key and value bytes");
  commands.list.emplace_back(stat, [&] { return run_stat(path, json); });
  CLI::App* check = file_command(
      "check", "Verify every page: checksums, order, overflow runs, no leaked or shared page");
  commands.list.emplace_back(check, [&] { return run_check(path, json); });
  CLI::App* trees = file_command("trees", "User trees and their entry counts (from the catalog)");
  commands.list.emplace_back(trees, [&] { return run_trees(path, json); });

  GetOptions get_options;
  CLI::App* get = file_command("get", "One value by its key");
  get->add_option("KEY", get_options.key, "The key (in --key-format)")->required();
  tree_option(get, "Tree to read (default: the default tree); \\xx escapes any byte");
  format_options(get, true, true);
  commands.list.emplace_back(get, [&] {
    get_options.path = path;
    get_options.json = json;
    get_options.tree = tree_of(get);
    get_options.key_format = fmt_of(key_format);
    get_options.value_format = value_format;
    return run_get(get_options);
  });

  ScanOptions scan_options;
  std::string from, to, prefix;
  uint64_t limit = 0;
  for (const char* name : {"keys", "scan"}) {
    const bool values = std::string(name) == "scan";
    CLI::App* sub = file_command(
        name, values ? "Keys and values of a tree in key order" : "Keys of a tree in key order");
    tree_option(sub, "Tree to read (default: the default tree); \\xx escapes any byte");
    sub->add_option("--from", from, "First key (inclusive)");
    sub->add_option("--to", to, "End key (exclusive)");
    sub->add_option("--prefix", prefix, "Only keys starting with this");
    sub->add_option("--limit", limit, "At most this many entries")
        ->check(unsigned_number<uint64_t>());
    format_options(sub, values, false);
    commands.list.emplace_back(sub, [&, sub, values] {
      scan_options.path = path;
      scan_options.json = json;
      scan_options.values = values;
      scan_options.tree = tree_of(sub);
      if (sub->count("--from")) scan_options.from = from;
      if (sub->count("--to")) scan_options.to = to;
      if (sub->count("--prefix")) scan_options.prefix = prefix;
      if (sub->count("--limit")) scan_options.limit = limit;
      scan_options.key_format = fmt_of(key_format);
      scan_options.value_format = fmt_of(value_format);
      return run_scan(scan_options);
    });
  }

  DumpOptions dump_options;
  std::string output;
  std::string dump_format = "bytevalue";
  CLI::App* dump = file_command(
      "dump",
      "Trees in LMDB's mdb_dump text format (VERSION=3); warns of what mdb_load cannot load "
      "(an empty key, a tree name with control characters)");
  tree_option(dump, "Dump this tree (default: the default tree)");
  dump->add_flag("--all,-a", dump_options.all,
                 "The default tree (if not empty) and every named tree");
  dump->add_option("-o,--output", output,
                   "Write to this file (default or '-': stdout); a file is replaced only by a "
                   "complete dump");
  dump->add_flag("-p,--print", dump_options.print, "format=print: printable bytes as they are");
  commands.list.emplace_back(dump, [&] {
    dump_options.path = path;
    dump_options.json = json;
    dump_options.tree = tree_of(dump);
    if (dump->count("--output") && output != "-") dump_options.output = output;
    return run_dump(dump_options);
  });

  LoadOptions load_options;
  std::string input;
  CLI::App* load = file_command(
      "load", "Records in mdb_dump text format into a database (created if missing), in one txn");
  tree_option(load, "Load every block into this tree (default: the tree each block names)");
  load->add_option("-i,--input", input, "Read this file (default: stdin)");
  load->add_flag("--append", load_options.append,
                 "Bulk append (WriteTxn::append): keys must ascend, after the tree's last key");
  load->add_option("--batch", load_options.batch,
                   "Commit every N records (an error keeps the batches before it)")
      ->check(unsigned_number<uint64_t>());
  std::string io = "auto";
  load->add_option("--io", io,
                   "Write backend (Options::io_backend): auto (POSIX), posix, or uring (an "
                   "error where io_uring cannot be set up)")
      ->check(CLI::IsMember({"auto", "posix", "uring"}));
  commands.list.emplace_back(load, [&] {
    load_options.io_backend = io == "uring"   ? ordo::IoBackend::kUring
                              : io == "posix" ? ordo::IoBackend::kPosix
                                              : ordo::IoBackend::kAuto;
    load_options.path = path;
    load_options.json = json;
    load_options.tree = tree_of(load);
    if (load->count("--input")) load_options.input = input;
    return run_load(load_options);
  });

  CopyCommandOptions copy_options;
  CLI::App* copy = app.add_subcommand(
      "copy", "A consistent copy of a live database, durable before it appears under DST");
  copy->footer(kExitCodesHelp);
  commands.names.push_back("copy");
  copy->add_option("SRC", copy_options.source, "Database file to copy")->required();
  copy->add_option("DST", copy_options.target, "The copy's path, or - for stdout")->required();
  copy->add_flag("--compact,-c", copy_options.compact, "Rewrite every tree densely: no free pages");
  copy->add_flag("--force,-f", copy_options.force, "Replace DST if it exists");
  copy->add_flag("--json", json, "Print one JSON object");
  uint64_t copy_since = 0;
  copy->add_option(
          "--since", copy_since,
          "Write a delta file: the changes since kept snapshot TXN (ordo restore applies it)")
      ->check(unsigned_number<uint64_t>());
  uint64_t copy_at = 0;
  copy->add_option("--at", copy_at,
                   "Copy kept snapshot TXN instead of the last commit (a base for deltas)")
      ->check(unsigned_number<uint64_t>());
  commands.list.emplace_back(copy, [&] {
    copy_options.json = json;
    if (copy->count("--at")) copy_options.at = copy_at;
    if (copy->count("--since")) return run_copy_delta(copy_options, copy_since);
    return run_copy(copy_options);
  });

  CLI::App* pages = file_command("pages", "One line per page: kind, tree, entries, fill, runs");
  commands.list.emplace_back(pages, [&] { return run_pages(path, json); });

  PageOptions page_options;
  CLI::App* page = file_command("page", "One page decoded: header, cells, children, checksums");
  page->add_option("N", page_options.page, "Page number")
      ->required()
      ->check(unsigned_number<uint64_t>());
  page->add_flag("--hex", page_options.hex, "Also the raw bytes");
  format_options(page, false, false);
  commands.list.emplace_back(page, [&] {
    page_options.path = path;
    page_options.json = json;
    page_options.key_format = fmt_of(key_format);
    return run_page(page_options);
  });

  CLI::App* free =
      file_command("free", "Free-tree entries: freeing txn, pages, reusable or pinned");
  commands.list.emplace_back(free, [&] { return run_free(path, json); });
  CLI::App* readers = file_command("readers", "Reader slots held: snapshot txn, process");
  commands.list.emplace_back(readers, [&] { return run_readers(path, json); });

  UpgradeOptions upgrade_options;
  CLI::App* upgrade = file_command(
      "upgrade", "Convert a version 2 or 3 file to version 4 in place, keeping leaves and values");
  upgrade
      ->add_option("--log-bytes", upgrade_options.log_bytes,
                   "Log area in bytes: a multiple of the page size from 64 KiB to 1 GiB "
                   "(default 4 MiB)")
      ->check(unsigned_number<uint64_t>());
  commands.list.emplace_back(upgrade, [&] {
    upgrade_options.path = path;
    upgrade_options.json = json;
    return run_upgrade(upgrade_options);
  });

  // Changes between snapshots: diff, and the kept snapshots it compares with.
  DiffOptions diff_options;
  CLI::App* diff = file_command(
      "diff",
      "Changes to a tree since a kept snapshot, in key order: + insert, - delete, ~ update");
  diff->add_option("--since", diff_options.since, "Txn id of a kept snapshot (ordo snapshot list)")
      ->required()
      ->check(unsigned_number<uint64_t>());
  tree_option(diff, "Tree to compare (default: the default tree); \\xx escapes any byte");
  format_options(diff, true, false);
  commands.list.emplace_back(diff, [&] {
    diff_options.path = path;
    diff_options.json = json;
    diff_options.tree = tree_of(diff);
    diff_options.key_format = fmt_of(key_format);
    diff_options.value_format = fmt_of(value_format);
    return run_diff(diff_options);
  });
  RestoreOptions restore_options;
  CLI::App* restore = file_command(
      "restore", "Apply a delta file (ordo copy --since) to a copy at its base txn, in one txn");
  restore->add_option("DELTA", restore_options.delta, "The delta file")->required();
  commands.list.emplace_back(restore, [&] {
    restore_options.path = path;
    restore_options.json = json;
    return run_restore(restore_options);
  });

  SnapshotOptions snapshot_options;
  CLI::App* snapshot = app.add_subcommand(
      "snapshot", "Kept snapshots: keep the last commit, release one, list them");
  snapshot->footer(kExitCodesHelp);
  snapshot->require_subcommand(1);
  commands.names.push_back("snapshot");
  for (const char* action : {"keep", "release", "list"}) {
    const std::string a = action;
    CLI::App* sub = snapshot->add_subcommand(
        action, a == "keep"      ? "Keep the last commit until released (prints its txn id)"
                : a == "release" ? "Release kept snapshot TXN: its pages become reusable"
                                 : "Txn ids of the kept snapshots");
    sub->add_option("FILE", path, "Database file")->required();
    if (a == "release") {
      sub->add_option("TXN", snapshot_options.txn, "Txn id of the kept snapshot")
          ->required()
          ->check(unsigned_number<uint64_t>());
    }
    sub->add_flag("--json", json, "Print one JSON object");
    commands.list.emplace_back(sub, [&, a] {
      snapshot_options.action = a;
      snapshot_options.path = path;
      snapshot_options.json = json;
      return run_snapshot(snapshot_options);
    });
  }

  // An unknown command names itself and lists the valid ones.
  if (argc >= 2 && argv[1][0] != '-') {
    const std::string first = argv[1];
    bool known = false;
    for (const auto& n : commands.names) known = known || n == first;
    if (!known) {
      report_message("unknown command '" + clipped_text(first) +
                     "'; commands: " + joined(commands.names) + " (ordo --help)");
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
      report_message("a command is required; commands: " + joined(commands.names) +
                     " (ordo --help)");
      return kExitUsage;
    }
    // CLI11's message may quote any argument: bounded and terminal-safe.
    report_message(clipped_text(e.what(), 200) + " (ordo --help)");
    return kExitUsage;
  }
  for (auto& [sub, fn] : commands.list) {
    if (!sub->parsed()) continue;
    const int code = fn();
    // Output still buffered fails here (a closed pipe). A command that
    // failed has said why already.
    if (code == kExitOk && !finish_stdout()) return kExitError;
    return code;
  }
  return kExitUsage;
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
