#include "delta_report.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "open_database.h"

namespace ordo::tool {

void print_delta(const char* verb, const std::string& path, const DeltaResult& r, bool as_json) {
  if (as_json) {
    nlohmann::ordered_json j;
    j["file"] = path;
    j["base_txn"] = r.base_txn;
    j["target_txn"] = r.target_txn;
    j["trees"] = r.trees;
    j["puts"] = r.puts;
    j["deletes"] = r.deletes;
    j["bytes"] = r.bytes;
    print_line(json_text(j));
    return;
  }
  print_line(fmt::format("{} {}: txn {} -> txn {}: {} trees, {} puts, {} deletes, {} bytes", verb,
                         path, r.base_txn, r.target_txn, r.trees, r.puts, r.deletes, r.bytes));
}

}  // namespace ordo::tool
