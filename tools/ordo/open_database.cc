#include "open_database.h"

#include <fmt/core.h>

#include <utility>

#include "byte_format.h"
#include "output.h"

namespace ordo::tool {

void report_error(const std::string& what, const Status& status) {
  fmt::print(stderr, "ordo: {}: {}\n", safe_text(what), safe_text(status.to_string()));
}

void report_message(const std::string& message) {
  fmt::print(stderr, "ordo: {}\n", safe_text(message));
}

std::unique_ptr<Database> open_for_inspection(const std::string& path) {
  // The tool checks every page it reads against its checksum: a dump or a
  // copy is a backup, and a damaged value must not pass into it silently.
  Result<std::unique_ptr<Database>> db =
      Database::open(path, Options{.read_only = true, .verify_checksums = true});
  if (!db.is_ok()) {
    report_error(path, db.status());
    return nullptr;
  }
  // A rolled-back commit is a lost commit if the file was cut after it was
  // durable: every command says so, not only `info` and `check`.
  std::string recovery = (*db)->info().recovery;
  if (!recovery.empty()) report_message("warning: " + path + ": " + recovery);
  return std::move(db).value();
}

std::optional<ReadTxn> read_for_inspection(const std::string& path) {
  std::unique_ptr<Database> db = open_for_inspection(path);
  if (!db) return std::nullopt;
  Result<ReadTxn> txn = db->begin_read();
  if (!txn.is_ok()) {
    report_error(path, txn.status());
    return std::nullopt;
  }
  return std::move(txn).value();  // keeps the database open
}

std::optional<ReadTxn> read_kept_snapshot(const std::string& path, uint64_t txn_id) {
  std::unique_ptr<Database> db = open_for_inspection(path);
  if (!db) return std::nullopt;
  Result<ReadTxn> txn = db->begin_read_at(txn_id);
  if (!txn.is_ok()) {
    report_error(path, txn.status());
    return std::nullopt;
  }
  return std::move(txn).value();  // keeps the database open
}

void print_line(const std::string& text) { write_stdout(text + "\n"); }

Result<std::optional<std::string>> tree_name(const TreeOption& option) {
  if (!option.name) return std::optional<std::string>();
  auto decoded = from_print(*option.name);
  if (!decoded.is_ok()) return decoded.status().with_context("--tree");
  if (decoded->empty()) return Status::invalid_argument("--tree: empty tree name");
  return std::optional<std::string>(std::move(decoded).value());
}

Result<Tree> open_tree_option(Txn& txn, const TreeOption& option) {
  ORDO_ASSIGN_OR_RETURN(std::optional<std::string> name, tree_name(option));
  if (!name) return txn.default_tree();
  auto tree = txn.open_tree(*name);
  if (tree.status().is_not_found()) {
    return Status::not_found("no " + tree_label(name) + " in this database");
  }
  return tree;
}

std::string json_text(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace ordo::tool
