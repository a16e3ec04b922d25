// `ordo dump FILE [--tree T | --all] [-o OUT] [-p]`: trees in the text
// format of LMDB's mdb_dump (dump_format.h), from one snapshot. Without
// --tree or --all: the default tree (as mdb_dump dumps the main database).
// --all: the default tree when it holds entries, then every named tree, one
// block each (as mdb_dump -a). With -o the dump goes to OUT (output.h: a
// file appears only complete; never the database itself) and --json prints a
// summary; without it, to stdout. Whatever LMDB's mdb_load cannot load (an
// empty key, a tree name with control characters) is warned about on stderr.
#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "command_registry.h"
#include "commands.h"
#include "dump_format.h"
#include "open_database.h"
#include "ordo/inspect.h"
#include "output.h"
#include "progress.h"

namespace ordo::tool {
namespace {

// A map size LMDB can load the dumped data into: LMDB's default (1 MiB)
// when it suffices, else the power of two at least twice the pages in use.
uint64_t lmdb_mapsize(uint64_t used_bytes) {
  uint64_t size = 1 << 20;
  while (size < 2 * used_bytes) size *= 2;
  return size;
}

constexpr base::OutputKind kDumpOutput{"dump", "dumped", "dumping"};

struct Block {
  std::optional<std::string> name;
  Tree tree;
  uint64_t entries = 0;
};

struct DumpOptions {
  std::string path;
  TreeOption tree;
  bool all = false;
  std::optional<std::string> output;  // -o; stdout when absent
  bool print = false;
  bool json = false;
};

int run_dump(const DumpOptions& o) {
  if (o.json && !o.output) {
    report_message("--json needs -o OUT: without it stdout carries the dump");
    return kExitUsage;
  }
  if (o.all && o.tree.name) {
    report_message("--tree and --all exclude each other");
    return kExitUsage;
  }
  auto name = tree_name(o.tree);
  if (!name.is_ok()) {
    report_message(name.status().message());
    return kExitUsage;
  }
  std::unique_ptr<Database> db = open_for_inspection(o.path);
  if (!db) return kExitError;
  auto txn = db->begin_read();
  if (!txn.is_ok()) {
    report_error(o.path, txn.status());
    return kExitError;
  }
  auto trees = inspect::trees(*txn);
  if (!trees.is_ok()) {
    report_error(o.path, trees.status());
    return kExitError;
  }
  std::vector<Block> blocks;
  uint64_t total = 0;
  for (const auto& t : *trees) {
    const bool is_default = t.kind == inspect::TreeKind::kDefault;
    const bool named = t.kind == inspect::TreeKind::kNamed;
    bool want = false;
    if (o.all) {
      want = named || (is_default && t.entries > 0);
    } else if (*name) {
      want = named && t.name == **name;
    } else {
      want = is_default;
    }
    if (!want) continue;
    Block b;
    if (named) {
      b.name = t.name;
      auto tree = txn->open_tree(t.name);
      if (!tree.is_ok()) {
        report_error(o.path, tree.status());
        return kExitError;
      }
      b.tree = *tree;
    }
    b.entries = t.entries;
    total += t.entries;
    blocks.push_back(std::move(b));
  }
  if (*name && blocks.empty()) {
    report_message(o.path + ": no " + tree_label(*name) + " in this database");
    return kExitError;
  }
  if (o.all && blocks.empty())
    blocks.push_back(Block{});  // an empty database: its empty default tree
  const DatabaseInfo info = db->info();

  OutputFile output;
  if (Status opened = output.open(o.output, o.path, kDumpOutput); !opened.is_ok()) {
    report_error(o.output.value_or("stdout"), opened);
    return kExitError;
  }
  std::FILE* out = output.stream();
  static char buffer[1 << 20];
  std::setvbuf(out, buffer, _IOFBF, sizeof buffer);
  DumpWriter writer(out, o.print);
  Progress progress("dumped", "records");
  uint64_t done = 0;
  Status s;
  for (const Block& b : blocks) {
    // The data's pages: the log area holds no records LMDB would load.
    s = writer.begin(b.name,
                     lmdb_mapsize(info.pages_used * info.page_size_bytes - info.log.area_bytes));
    if (!s.is_ok()) break;
    Status record_status;
    s = txn->scan(b.tree, KeyRange::all(), [&](ByteView key, ByteView value) {
      record_status = writer.record(key, value);
      if (++done % 4096 == 0) progress.update(done, total);
      return record_status.is_ok();
    });
    if (s.is_ok()) s = record_status;
    if (s.is_ok()) s = writer.end();
    if (!s.is_ok()) break;
  }
  progress.finish();
  if (s.is_ok()) s = output.commit();
  if (!s.is_ok()) {
    report_error(o.output.value_or(o.path), s);
    return kExitError;
  }
  for (const std::string& w : writer.lmdb_warnings()) report_message("warning: " + w);
  if (o.json) {
    nlohmann::ordered_json j;
    j["path"] = o.path;
    j["output"] = *o.output;
    j["txn_id"] = txn->txn_id();
    j["format"] = o.print ? "print" : "bytevalue";
    j["trees"] = blocks.size();
    j["records"] = done;
    print_line(json_text(j));
  }
  return kExitOk;
}

}  // namespace

void add_dump_command(CommandRegistry& registry) {
  struct Args {
    FileArgs file;
    TreeFlag tree;
    DumpOptions options;
    std::string output;
  };
  auto args = std::make_shared<Args>();
  CLI::App* command = registry.add_file_command(
      "dump",
      "Trees in LMDB's mdb_dump text format (VERSION=3); warns of what mdb_load cannot load "
      "(an empty key, a tree name with control characters)",
      args->file);
  add_tree_flag(command, args->tree, "Dump this tree (default: the default tree)");
  command->add_flag("--all,-a", args->options.all,
                    "The default tree (if not empty) and every named tree");
  CLI::Option* output =
      command->add_option("-o,--output", args->output,
                          "Write to this file (default or '-': stdout); a file is replaced only "
                          "by a complete dump");
  command->add_flag("-p,--print", args->options.print, "format=print: printable bytes as they are");
  registry.set_action(command, [args, output] {
    DumpOptions o = args->options;
    o.path = args->file.path;
    o.json = args->file.json;
    o.tree = args->tree.value();
    if (output->count() > 0 && args->output != "-") o.output = args->output;
    return run_dump(o);
  });
}

}  // namespace ordo::tool
