// `ordo diff FILE --since TXN [--tree T]`: the changes to a tree since a
// kept snapshot, in key order (ReadTxn::changes).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"

namespace ordo::tool {

namespace {

using json = nlohmann::ordered_json;

struct DiffOptions {
  std::string path;
  TreeOption tree;
  uint64_t since = 0;
  ByteFormat key_format = ByteFormat::kPrint;
  ByteFormat value_format = ByteFormat::kPrint;
  bool json = false;
};

// The tree --tree names, looked up now and, when it no longer exists, at the
// older snapshot (a dropped tree's changes are all deletes).
Result<Tree> diff_tree(Database& db, ReadTxn& now, const DiffOptions& o) {
  auto tree = open_tree_option(now, o.tree);
  if (tree.is_ok() || !tree.status().is_not_found()) return tree;
  auto old = db.begin_read_at(o.since);
  if (!old.is_ok()) return tree;  // names the tree; changes() names the snapshot
  auto at_old = open_tree_option(*old, o.tree);
  return at_old.is_ok() ? at_old : tree;
}

int run_diff(const DiffOptions& o) {
  std::unique_ptr<Database> db = open_for_inspection(o.path);
  if (db == nullptr) return kExitError;
  auto txn = db->begin_read();
  if (!txn.is_ok()) {
    report_error(o.path, txn.status());
    return kExitError;
  }
  auto tree = diff_tree(*db, *txn, o);
  if (!tree.is_ok()) {
    report_error(o.path, tree.status());
    return tree.status().is_invalid_argument() ? kExitUsage : kExitError;
  }
  auto changes = txn->changes(*tree, o.since);
  if (!changes.is_ok()) {
    report_error(o.path, changes.status());
    return kExitError;
  }
  uint64_t inserted = 0, updated = 0, deleted = 0;
  json list = json::array();
  for (;;) {
    auto more = changes->next();
    if (!more.is_ok()) {
      report_error(o.path, more.status());
      return kExitError;
    }
    if (!*more) break;
    const auto old_value = changes->old_value();
    const auto new_value = changes->new_value();
    const std::string key = format_bytes(changes->key(), o.key_format);
    if (!old_value) {
      inserted++;
    } else if (!new_value) {
      deleted++;
    } else {
      updated++;
    }
    if (o.json) {
      json c;
      c["key"] = key;
      c["old"] = old_value ? json(format_bytes(*old_value, o.value_format)) : json(nullptr);
      c["new"] = new_value ? json(format_bytes(*new_value, o.value_format)) : json(nullptr);
      list.push_back(std::move(c));
      continue;
    }
    // One line per change: + KEY NEW, - KEY OLD, ~ KEY OLD NEW, tab-separated
    // (the print and hex forms escape tabs).
    std::string line = !old_value ? "+\t" + key + "\t" + format_bytes(*new_value, o.value_format)
                       : !new_value
                           ? "-\t" + key + "\t" + format_bytes(*old_value, o.value_format)
                           : "~\t" + key + "\t" + format_bytes(*old_value, o.value_format) + "\t" +
                                 format_bytes(*new_value, o.value_format);
    print_line(line);
  }
  if (o.json) {
    json j;
    j["since_txn"] = o.since;
    j["txn_id"] = txn->txn_id();
    j["tree"] =
        tree->is_default() ? json(nullptr) : json(format_bytes(tree->name(), ByteFormat::kPrint));
    j["key_format"] = byte_format_name(o.key_format);
    j["value_format"] = byte_format_name(o.value_format);
    j["inserted"] = inserted;
    j["updated"] = updated;
    j["deleted"] = deleted;
    j["pages_read"] = changes->pages_read();
    j["changes"] = std::move(list);
    print_line(json_text(j));
  }
  return kExitOk;
}

}  // namespace

void add_diff_command(CommandRegistry& registry) {
  struct Args {
    FileArgs file;
    uint64_t since = 0;
    TreeFlag tree;
    FormatFlags formats;
  };
  auto args = std::make_shared<Args>();
  CLI::App* command = registry.add_file_command(
      "diff", "Changes to a tree since a kept snapshot, in key order: + insert, - delete, ~ update",
      args->file);
  command->add_option("--since", args->since, "Txn id of a kept snapshot (ordo snapshot list)")
      ->required()
      ->check(unsigned_number<uint64_t>());
  add_tree_flag(command, args->tree,
                "Tree to compare (default: the default tree); \\xx escapes any byte");
  add_format_flags(command, args->formats, true, false);
  registry.set_action(command, [args] {
    return run_diff({.path = args->file.path,
                     .tree = args->tree.value(),
                     .since = args->since,
                     .key_format = args->formats.key_format(),
                     .value_format = args->formats.value_format(),
                     .json = args->file.json});
  });
}

}  // namespace ordo::tool
