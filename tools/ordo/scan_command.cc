// `ordo keys FILE` and `ordo scan FILE` [--tree T] [--from K] [--to K]
// [--prefix P] [--limit N]: the keys (keys) or keys and values (scan) of
// one tree in key order, from one snapshot. --from is inclusive, --to
// exclusive; --prefix keeps keys that start with P (and may be combined
// with --from/--to). Text output: one entry per line, KEY, or KEY, a tab,
// VALUE (the print form escapes tabs and newlines, so lines split safely).
#include <fmt/core.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"
#include "output.h"

namespace ordo::tool {
namespace {

Result<std::optional<std::string>> parse_bound(const std::optional<std::string>& text,
                                               ByteFormat format, const char* option) {
  if (!text) return std::optional<std::string>();
  auto bytes = parse_bytes(*text, format);
  if (!bytes.is_ok()) return bytes.status().with_context(option);
  return std::optional<std::string>(std::move(bytes).value());
}

struct ScanOptions {
  std::string path;
  TreeOption tree;
  std::optional<std::string> from, to, prefix;  // as typed, in key_format
  std::optional<uint64_t> limit;
  ByteFormat key_format = ByteFormat::kPrint;
  ByteFormat value_format = ByteFormat::kPrint;
  bool values = false;  // scan: keys and values; keys: keys only
  bool json = false;
};

int run_scan(const ScanOptions& o) {
  auto from = parse_bound(o.from, o.key_format, "--from");
  auto to = parse_bound(o.to, o.key_format, "--to");
  auto prefix = parse_bound(o.prefix, o.key_format, "--prefix");
  for (const auto* r : {&from, &to, &prefix}) {
    if (!r->is_ok()) {
      report_message(r->status().message());
      return kExitUsage;
    }
  }
  std::optional<ReadTxn> txn = read_for_inspection(o.path);
  if (!txn) return kExitError;
  auto tree = open_tree_option(*txn, o.tree);
  if (!tree.is_ok()) {
    report_error(o.path, tree.status());
    return tree.status().is_invalid_argument() ? kExitUsage : kExitError;
  }
  // The range: [max(from, prefix), min(to, end of prefix)).
  KeyRange range = KeyRange::all();
  std::string lo = (*from).value_or("");
  if (*prefix && **prefix > lo) lo = **prefix;
  std::optional<std::string> hi = *to;
  if (*prefix) {
    const KeyRange p = KeyRange::prefix(**prefix);
    if (p.has_end() && (!hi || p.end().str() < *hi)) hi = p.end().str();
  }
  range = hi ? KeyRange::between(lo, *hi) : KeyRange::starting_at(lo);

  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  uint64_t count = 0;
  std::string line;
  const Status s = txn->scan(*tree, range, [&](ByteView key, ByteView value) {
    if (o.limit && count >= *o.limit) return false;
    if (*prefix && !key.view().starts_with(**prefix)) return false;
    ++count;
    if (o.json) {
      nlohmann::ordered_json e;
      e["key"] = format_bytes(key, o.key_format);
      if (o.values) e["value"] = format_bytes(value, o.value_format);
      entries.push_back(std::move(e));
    } else {
      line = format_bytes(key, o.key_format);
      if (o.values) {
        line += '\t';
        line += format_bytes(value, o.value_format);
      }
      line += '\n';
      return write_stdout(line);  // false: the reader is gone; stop
    }
    return true;
  });
  if (std::ferror(stdout)) return kExitError;  // reported by write_stdout
  if (!s.is_ok()) {
    std::fflush(stdout);
    report_error(o.path, s);
    return kExitError;
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["path"] = o.path;
    j["tree"] = o.tree.name ? nlohmann::ordered_json(*o.tree.name) : nlohmann::ordered_json();
    j["txn_id"] = txn->txn_id();
    j["count"] = count;
    j["key_format"] = byte_format_name(o.key_format);
    if (o.values) j["value_format"] = byte_format_name(o.value_format);
    j["entries"] = std::move(entries);
    print_line(json_text(j));
  }
  return kExitOk;
}

// `ordo keys` (values false) or `ordo scan`.
void add_scan_command(CommandRegistry& registry, bool values) {
  struct Args {
    FileArgs file;
    TreeFlag tree;
    std::string from, to, prefix;
    uint64_t limit = 0;
    FormatFlags formats;
  };
  auto args = std::make_shared<Args>();
  CLI::App* command = registry.add_file_command(
      values ? "scan" : "keys",
      values ? "Keys and values of a tree in key order" : "Keys of a tree in key order",
      args->file);
  add_tree_flag(command, args->tree,
                "Tree to read (default: the default tree); \\xx escapes any byte");
  CLI::Option* from = command->add_option("--from", args->from, "First key (inclusive)");
  CLI::Option* to = command->add_option("--to", args->to, "End key (exclusive)");
  CLI::Option* prefix =
      command->add_option("--prefix", args->prefix, "Only keys starting with this");
  CLI::Option* limit = command->add_option("--limit", args->limit, "At most this many entries")
                           ->check(unsigned_number<uint64_t>());
  add_format_flags(command, args->formats, values, false);
  registry.set_action(command, [args, values, from, to, prefix, limit] {
    ScanOptions o;
    o.path = args->file.path;
    o.tree = args->tree.value();
    o.key_format = args->formats.key_format();
    o.value_format = args->formats.value_format();
    o.values = values;
    o.json = args->file.json;
    if (from->count() > 0) o.from = args->from;
    if (to->count() > 0) o.to = args->to;
    if (prefix->count() > 0) o.prefix = args->prefix;
    if (limit->count() > 0) o.limit = args->limit;
    return run_scan(o);
  });
}

}  // namespace

void add_keys_and_scan_commands(CommandRegistry& registry) {
  add_scan_command(registry, false);
  add_scan_command(registry, true);
}

}  // namespace ordo::tool
