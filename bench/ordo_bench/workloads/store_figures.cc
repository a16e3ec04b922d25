#include "store_figures.h"

#include <fmt/core.h>

namespace ordo::bench {

Result<StoreFigures> close_store(KvEngine& db, const std::string& path) {
  StoreFigures store;
  store.path = path;
  store.counters = db.counters();
  ORDO_RETURN_IF_ERROR(db.close());
  ORDO_ASSIGN_OR_RETURN(store.usage, path_usage(path));
  return store;
}

std::string store_text(const StoreFigures& store) {
  std::string out = fmt::format("store: {} bytes ({} allocated)", store.usage.file_bytes,
                                store.usage.allocated_bytes);
  for (const auto& [name, value] : store.counters) out += fmt::format(", {} {:.0f}", name, value);
  return out;
}

void add_store_json(nlohmann::ordered_json& j, const StoreFigures& store) {
  j["path"] = store.path;
  j["file_bytes"] = store.usage.file_bytes;
  j["allocated_bytes"] = store.usage.allocated_bytes;
  for (const auto& [name, value] : store.counters) j[name] = value;
}

}  // namespace ordo::bench
