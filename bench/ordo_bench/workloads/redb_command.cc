#include "redb_command.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "redb_pairs.h"

namespace ordo::bench {
using json = nlohmann::ordered_json;

namespace {

// Bytes as redb prints them: "893.18 MiB", "4.00 GiB".
std::string size_text(double bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{:.2f} {}", bytes, kUnits[unit]);
}

}  // namespace

int run_redb_command(const RedbCommand& command) {
  const RedbConfig& config = command.config;
  return run_single(
      command.output, "redb", {"redb." + config.engine, "redb." + config.engine + ".compact"},
      [&](const std::vector<std::string>& paths) -> Result<std::string> {
        fmt::print(stderr, "ordo-bench: redb, {}, {} pairs bulk-loaded, seed {} -> {}\n",
                   config.engine, config.entries, config.seed, paths[0]);
        ORDO_ASSIGN_OR_RETURN(const RedbRun run, run_redb(paths[0], paths[1], config));
        return command.output.json ? redb_json(config, run) : redb_text(config, run);
      });
}

std::vector<RedbRow> redb_rows(const RedbRun& run) {
  std::vector<RedbRow> rows = {
      {"bulk load", "bulk_load_ms", run.bulk_load_ms},
      {"individual writes", "individual_writes_ms", run.individual_writes_ms},
      {"batch writes", "batch_writes_ms", run.batch_writes_ms},
      {"random reads", "random_reads_ms", run.random_reads_ms},
      {"random range reads", "random_range_reads_ms", run.random_range_reads_ms},
  };
  for (const auto& [threads, ms] : run.threaded_reads_ms) {
    rows.push_back({fmt::format("random reads ({} thread{})", threads, threads == 1 ? "" : "s"),
                    fmt::format("random_reads_{}t_ms", threads), ms});
  }
  rows.push_back({"removals", "removals_ms", run.removals_ms});
  rows.push_back({"compaction", "compaction_ms", run.compaction_ms});
  rows.push_back(
      {"uncompacted size", "uncompacted_bytes", static_cast<double>(run.uncompacted_bytes), true});
  rows.push_back(
      {"compacted size", "compacted_bytes", static_cast<double>(run.compacted_bytes), true});
  return rows;
}

std::string redb_text(const RedbConfig& c, const RedbRun& run) {
  std::string out = fmt::format(
      "redb on {}: {}-byte keys, {}-byte values, seed {}; bulk load {} pairs (one txn), "
      "individual writes {} (a durable commit each), batch writes {} txns of {}; random "
      "reads {} and range reads {} x {} entries (median of {} runs); threaded reads of all "
      "{} pairs; removals {} (one txn); compaction: the engine's own\n\n",
      run.engine, kRedbKeyBytes, kRedbValueBytes, c.seed, c.entries, c.individual_writes,
      c.batch_writes, c.batch_size, c.reads_per_iteration(), c.range_reads_per_iteration(),
      c.range_length, c.iterations, c.written(), c.removals());
  const std::vector<RedbRow> rows = redb_rows(run);
  out += fmt::format("| {:<26}| {:<12}|\n|{:-<27}|{:-<13}|\n", "", run.engine, "", "");
  for (const RedbRow& row : rows) {
    const std::string value = row.bytes ? size_text(row.value) : fmt::format("{:.0f}ms", row.value);
    out += fmt::format("| {:<26}| {:<12}|\n", row.label, value);
  }
  return out + "\n" + store_text(run.store);
}

std::string redb_json(const RedbConfig& c, const RedbRun& run) {
  json j;
  j["workload"] = "redb";
  j["engine"] = run.engine;
  json figures = json::object();
  for (const RedbRow& row : redb_rows(run)) figures[row.figure] = row.value;
  j["figures"] = figures;
  j["key_bytes"] = kRedbKeyBytes;
  j["value_bytes"] = kRedbValueBytes;
  j["seed"] = c.seed;
  j["entries"] = c.entries;
  j["individual_writes"] = c.individual_writes;
  j["batch_writes"] = c.batch_writes;
  j["batch_size"] = c.batch_size;
  j["reads"] = c.reads_per_iteration();
  j["range_reads"] = c.range_reads_per_iteration();
  j["range_length"] = c.range_length;
  j["range_entries"] = run.range_entries;
  j["iterations"] = c.iterations;
  j["read_threads"] = c.read_threads;
  j["written"] = c.written();
  j["removed"] = c.removals();
  add_store_json(j, run.store);
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace ordo::bench
