// Opening a database for a command, and reporting failures the same way in
// every subcommand: "ordo: WHAT: REASON" on stderr, never raw binary.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ordo/database.h"
#include "ordo/status.h"

namespace ordo::tool {

// Prints "ordo: WHAT: STATUS" on stderr, both made safe for a terminal
// (safe_text: tree names and keys may be any bytes).
void report_error(const std::string& what, const Status& status);
// Prints "ordo: MESSAGE" on stderr, made safe the same way.
void report_message(const std::string& message);

// Opens `path` read-only (no lock: works while another process writes it).
// On failure reports the status and returns null. When open used the older
// commit because the newest one is incomplete, prints a warning saying so.
std::unique_ptr<Database> open_for_inspection(const std::string& path);
// The same, then a read txn on the newest commit: the txn keeps the database
// open. On failure reports the status and returns nullopt.
std::optional<ReadTxn> read_for_inspection(const std::string& path);

// The same on kept snapshot `txn_id` (Database::begin_read_at).
std::optional<ReadTxn> read_kept_snapshot(const std::string& path, uint64_t txn_id);
// Prints `text` and a newline on stdout (a JSON document).
void print_line(const std::string& text);

}  // namespace ordo::tool

#include <nlohmann/json.hpp>
#include <optional>

#include "byte_format.h"

namespace ordo::tool {

// The tree a command reads or writes: the default tree unless --tree names
// one (given in print form: "\xx" escapes for any byte).
struct TreeOption {
  std::optional<std::string> name;  // as typed
};

// The name --tree gives (decoded from print form), or nullopt for the
// default tree. InvalidArgument for a bad escape.
Result<std::optional<std::string>> tree_name(const TreeOption& option);
// The tree --tree names in `txn`, or the default tree. NotFound names it.
Result<Tree> open_tree_option(Txn& txn, const TreeOption& option);

// `j` as text: 2-space indent, any invalid UTF-8 replaced.
std::string json_text(const nlohmann::ordered_json& j);

}  // namespace ordo::tool
