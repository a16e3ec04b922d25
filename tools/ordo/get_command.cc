// `ordo get FILE [--tree T] KEY`: one value. The key is typed in
// --key-format (print, hex, uuid); the value is shown in --value-format
// (print, hex, uuid, or raw: its bytes as they are, for a pipe).
#include <fmt/core.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"

namespace ordo::tool {

namespace {

struct GetOptions {
  std::string path;
  TreeOption tree;
  std::string key;  // as typed
  ByteFormat key_format = ByteFormat::kPrint;
  std::string value_format = "print";  // print, hex, uuid or raw
  bool json = false;
};

int run_get(const GetOptions& o) {
  std::optional<ByteFormat> value_format = byte_format_from_name(o.value_format);
  const bool raw = o.value_format == "raw";
  if (raw && o.json) {
    report_message("--value-format raw cannot go into --json output");
    return kExitUsage;
  }
  auto key = parse_bytes(o.key, o.key_format);
  if (!key.is_ok()) {
    report_error("KEY", key.status());
    return kExitUsage;
  }
  std::optional<ReadTxn> txn = read_for_inspection(o.path);
  if (!txn) return kExitError;
  auto tree = open_tree_option(*txn, o.tree);
  if (!tree.is_ok()) {
    report_error(o.path, tree.status());
    return tree.status().is_invalid_argument() ? kExitUsage : kExitError;
  }
  auto value = txn->get(*tree, *key);
  if (!value.is_ok()) {
    if (value.status().is_not_found()) {
      report_message(
          o.path + ": key " + clipped_bytes(*key, o.key_format) + " not found in " +
          tree_label(tree->is_default() ? std::nullopt : std::optional<std::string>(tree->name())));
    } else {
      report_error(o.path, value.status());
    }
    return kExitError;
  }
  if (raw) {
    std::fwrite(value->data(), 1, value->size(), stdout);
    return kExitOk;
  }
  const std::string shown = format_bytes(*value, *value_format);
  if (o.json) {
    nlohmann::ordered_json j;
    j["key"] = format_bytes(*key, o.key_format);
    j["value"] = shown;
    j["value_bytes"] = value->size();
    j["key_format"] = byte_format_name(o.key_format);
    j["value_format"] = byte_format_name(*value_format);
    print_line(json_text(j));
  } else {
    print_line(shown);
  }
  return kExitOk;
}

}  // namespace

void add_get_command(CommandRegistry& registry) {
  struct Args {
    FileArgs file;
    std::string key;
    TreeFlag tree;
    FormatFlags formats;
  };
  auto args = std::make_shared<Args>();
  CLI::App* command = registry.add_file_command("get", "One value by its key", args->file);
  command->add_option("KEY", args->key, "The key (in --key-format)")->required();
  add_tree_flag(command, args->tree,
                "Tree to read (default: the default tree); \\xx escapes any byte");
  add_format_flags(command, args->formats, true, true);
  registry.set_action(command, [args] {
    return run_get({.path = args->file.path,
                    .tree = args->tree.value(),
                    .key = args->key,
                    .key_format = args->formats.key_format(),
                    .value_format = args->formats.value,
                    .json = args->file.json});
  });
}

}  // namespace ordo::tool
