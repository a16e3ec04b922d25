#include "churn_report.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

namespace ordo::bench {
namespace {

using json = nlohmann::ordered_json;

uint64_t syncs_after_open(const ChurnRun& run) { return run.stats.syncs - run.syncs_at_open; }

double syncs_per_commit(const ChurnRun& run) {
  return run.stats.commits > 0
             ? static_cast<double>(syncs_after_open(run)) / static_cast<double>(run.stats.commits)
             : 0;
}

void print_run(const ChurnConfig& config, const ChurnRun& run) {
  fmt::print("{}\n", churn_run_label(run));
  fmt::print("{:>9} {:>12} {:>12} {:>11} {:>13} {:>15} {:>15} {:>8} {:>7}\n", "after", "file bytes",
             "used bytes", "free pages", "pending free", "reused (round)", "reused (total)",
             "seconds", "reader");
  for (const ChurnRow& row : run.rows) {
    const std::string after = row.round == 0 ? "load" : fmt::format("round {}", row.round);
    fmt::print("{:>9} {:>12} {:>12} {:>11} {:>13} {:>15} {:>15} {:>8.2f} {:>7}\n", after,
               row.file_bytes, row.used_bytes, row.free_pages, row.pending_free_pages,
               row.pages_reused_in_round, row.pages_reused, row.seconds,
               row.reader_held ? "held" : "-");
  }
  fmt::print("used bytes after round {} / after load: {:.3f}x (file bytes {:.3f}x)\n",
             config.rounds, run.used_ratio(), run.file_ratio());
  fmt::print(
      "commits {}, syncs after open {} ({:.2f} per commit; {} expects {}), file growths {}\n",
      run.stats.commits, syncs_after_open(run), syncs_per_commit(run),
      protocol_name(config.commits.protocol), config.commits.expected_syncs_per_commit(),
      run.stats.file_growths);
  if (run.with_reader) {
    fmt::print("held reader read back the round-{} values of {} keys at its end\n",
               config.reader_first - 1, run.reader_keys_checked);
  }
}

json run_json(const ChurnRun& run) {
  json j;
  j["engine"] = "ordo";
  j["reader"] = run.with_reader;
  j["path"] = run.path;
  j["rows"] = json::array();
  for (const ChurnRow& row : run.rows) {
    j["rows"].push_back({{"round", row.round},
                         {"reader_held", row.reader_held},
                         {"seconds", row.seconds},
                         {"file_bytes", row.file_bytes},
                         {"used_bytes", row.used_bytes},
                         {"free_pages", row.free_pages},
                         {"pending_free_pages", row.pending_free_pages},
                         {"pages_reused", row.pages_reused},
                         {"pages_reused_in_round", row.pages_reused_in_round}});
  }
  j["used_ratio"] = run.used_ratio();
  j["file_ratio"] = run.file_ratio();
  j["commits"] = run.stats.commits;
  j["syncs_after_open"] = syncs_after_open(run);
  j["syncs_per_commit"] = syncs_per_commit(run);
  j["pages_written"] = run.stats.pages_written;
  j["bytes_written"] = run.stats.bytes_written;
  j["file_growths"] = run.stats.file_growths;
  j["pages_reused"] = run.stats.pages_reused;
  j["reader_keys_checked"] = run.reader_keys_checked;
  j["page_size_bytes"] = run.info.page_size_bytes;
  j["io_backend"] = run.info.io_backend;
  return j;
}

}  // namespace

void print_churn_text(const ChurnConfig& config, const std::vector<ChurnRun>& runs, bool kept) {
  fmt::print(
      "churn: {} keys (8-byte big-endian) x {}-byte values loaded in one txn, then {} rounds "
      "each updating every key once in txns of {} ({} txns per round), {} commits\n",
      config.keys, kChurnValueBytes, config.rounds, config.txn_size, config.txns_per_round(),
      config.commits.sync ? fmt::format("durable {}", protocol_name(config.commits.protocol))
                          : "NON-DURABLE (--no-sync)");
  fmt::print(
      "held reader: begins before round {}, ends after round {} (after that round's figures)\n"
      "used bytes = page high-water mark of the current meta x page size; free and pending "
      "free pages from Txn::free_space() in a fresh read txn\n",
      config.reader_first, config.reader_last);
  for (const ChurnRun& run : runs) {
    fmt::print("\n");
    print_run(config, run);
  }
  if (kept) {
    fmt::print("\n");
    for (const ChurnRun& run : runs) fmt::print("kept {}\n", run.path);
  }
}

std::string churn_json(const ChurnConfig& config, const std::vector<ChurnRun>& runs, bool kept) {
  json j;
  j["workload"] = "churn";
  j["engine"] = "ordo";
  j["keys"] = config.keys;
  j["rounds"] = config.rounds;
  j["txn_size"] = config.txn_size;
  j["txns_per_round"] = config.txns_per_round();
  j["value_bytes"] = kChurnValueBytes;
  j["durable"] = config.commits.sync;
  j["commit_protocol"] = protocol_name(config.commits.protocol);
  j["expected_syncs_per_commit"] = config.commits.expected_syncs_per_commit();
  j["reader_first"] = config.reader_first;
  j["reader_last"] = config.reader_last;
  j["kept"] = kept;
  j["runs"] = json::array();
  for (const ChurnRun& run : runs) j["runs"].push_back(run_json(run));
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace ordo::bench
