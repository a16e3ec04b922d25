#include "open_database.h"

#include <fmt/core.h>

#include <utility>

namespace ordo::tool {

void report_error(const std::string& path, const Status& status) {
  fmt::print(stderr, "ordo: {}: {}\n", path, status.to_string());
}

std::unique_ptr<Database> open_for_inspection(const std::string& path) {
  Result<std::unique_ptr<Database>> db = Database::open(path, Options{.read_only = true});
  if (!db.is_ok()) {
    report_error(path, db.status());
    return nullptr;
  }
  return std::move(db).value();
}

void print_line(const std::string& text) { fmt::print("{}\n", text); }

}  // namespace ordo::tool
