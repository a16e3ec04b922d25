#include "reads_command.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "rows.h"

namespace ordo::bench {

using json = nlohmann::ordered_json;

namespace {

// One line per lookup phase: "<what>, T thread(s)".
std::string lookups_text(std::string_view what, const std::vector<LookupFigures>& lookups) {
  std::string out;
  for (const LookupFigures& l : lookups) {
    out += fmt::format("{:<28} {:>12} {:>10.3f} {:>14.0f}\n",
                       fmt::format("{}, {} thread{}", what, l.threads, l.threads == 1 ? "" : "s"),
                       l.lookups, l.seconds, l.per_s());
  }
  return out;
}

json lookups_json(const std::vector<LookupFigures>& lookups) {
  json out = json::array();
  for (const LookupFigures& l : lookups) {
    out.push_back({{"threads", l.threads},
                   {"lookups", l.lookups},
                   {"seconds", l.seconds},
                   {"per_s", l.per_s()}});
  }
  return out;
}

}  // namespace

int run_reads_command(const ReadsCommand& command) {
  const ReadsConfig& config = command.config;
  return run_single(command.output, "reads", {"reads." + config.engine},
                    [&](const std::vector<std::string>& paths) -> Result<std::string> {
                      fmt::print(stderr, "ordo-bench: reads, {}, {} keys of {} bytes -> {}\n",
                                 config.engine, config.keys, config.key_bytes, paths[0]);
                      ORDO_ASSIGN_OR_RETURN(const ReadsRun run, run_reads(paths[0], config));
                      return command.output.json ? reads_json(config, run)
                                                 : reads_text(config, run);
                    });
}

std::string reads_text(const ReadsConfig& config, const ReadsRun& run) {
  std::string out =
      fmt::format("reads on {}: {} rows ({}-byte keys, {}-byte values) loaded in {:.2f} s\n\n",
                  run.engine, config.keys, config.key_bytes, kRowValueBytes, run.load_seconds);
  out += fmt::format("{:<28} {:>12} {:>10} {:>14}\n", "", "ops", "seconds", "ops/s");
  out += lookups_text("point lookups", run.lookups);
  out += lookups_text("txn per lookup", run.request_lookups);
  out += fmt::format("{:<28} {:>12} {:>10.3f} {:>14.0f}\n",
                     fmt::format("scans of {} keys", config.scan_length), run.scans,
                     run.scan_seconds, run.scans_per_s());
  return out + "\n" + store_text(run.store);
}

std::string reads_json(const ReadsConfig& config, const ReadsRun& run) {
  json j;
  j["workload"] = "reads";
  j["engine"] = run.engine;
  json figures = json::object();
  for (const LookupFigures& l : run.lookups) {
    figures["point_lookups_per_s_" + std::to_string(l.threads) + "t"] = l.per_s();
  }
  for (const LookupFigures& l : run.request_lookups) {
    figures["request_lookups_per_s_" + std::to_string(l.threads) + "t"] = l.per_s();
  }
  figures["scans_per_s"] = run.scans_per_s();
  j["figures"] = figures;
  j["keys"] = config.keys;
  j["key_bytes"] = config.key_bytes;
  j["value_bytes"] = kRowValueBytes;
  j["scan_length"] = config.scan_length;
  j["seed"] = config.seed;
  j["load_seconds"] = run.load_seconds;
  j["lookups"] = lookups_json(run.lookups);
  j["request_lookups"] = lookups_json(run.request_lookups);
  j["scans"] = run.scans;
  j["scanned_keys"] = run.scanned_keys;
  j["scan_seconds"] = run.scan_seconds;
  j["scanned_keys_per_s"] =
      run.scan_seconds > 0 ? static_cast<double>(run.scanned_keys) / run.scan_seconds : 0.0;
  add_store_json(j, run.store);
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace ordo::bench
