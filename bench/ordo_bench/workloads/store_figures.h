// What a workload reports about the store it ran on, whatever the engine:
// where it is, its bytes on disk, the adapter's own counters.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "kv_engine.h"
#include "system_figures.h"

namespace ordo::bench {

struct StoreFigures {
  std::string path;
  FileUsage usage;                                       // every file of the store, after close
  std::vector<std::pair<std::string, double>> counters;  // KvEngine::counters()
};

// Reads the adapter's counters, closes `db` and sums the files at `path`.
// The close's or stat's error as is.
Result<StoreFigures> close_store(KvEngine& db, const std::string& path);

// "store: B bytes (A allocated), counter N, ...".
std::string store_text(const StoreFigures& store);

// Adds path, file_bytes, allocated_bytes and each counter to `j`.
void add_store_json(nlohmann::ordered_json& j, const StoreFigures& store);

}  // namespace ordo::bench
