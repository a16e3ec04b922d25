#include "commit_command.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

namespace ordo::bench {
using json = nlohmann::ordered_json;

int run_commit_command(const CommitCommand& command) {
  const CommitConfig& config = command.config;
  return run_single(
      command.output, "commit", {"commit." + config.engine, "commit.sync-probe"},
      [&](const std::vector<std::string>& paths) -> Result<std::string> {
        fmt::print(stderr, "ordo-bench: commit, {}, {} one-row commits per preload size -> {}\n",
                   config.engine, config.commits, paths[0]);
        ORDO_ASSIGN_OR_RETURN(const CommitRun run, run_commit(paths[0], paths[1], config));
        return command.output.json ? commit_json(config, run) : commit_text(config, run);
      });
}

std::string commit_text(const CommitConfig& config, const CommitRun& run) {
  std::string out = fmt::format(
      "commit on {}: {} one-row durable commits (an overwrite of a random row) at each preload "
      "size; latency in microseconds, begin to end of commit; floor = one 4 KiB pwrite + "
      "fdatasync on a scratch file beside the store after every {} commits\n\n",
      run.engine, config.commits, config.probe_every);
  out += fmt::format("{:>10} {:>10} {:>9} {:>9} {:>9} {:>11} {:>10} {:>10}\n", "rows", "preload s",
                     "p50", "p99", "max", "floor p50", "floor p99", "p50/floor");
  for (const CommitAtSize& at : run.sizes) {
    out += fmt::format("{:>10} {:>10.2f} {:>9.0f} {:>9.0f} {:>9.0f} {:>11.0f} {:>10.0f} {:>10.2f}\n",
                       at.rows, at.preload_seconds, at.commit.p50_us, at.commit.p99_us,
                       at.commit.max_us, at.floor.p50_us, at.floor.p99_us,
                       at.floor.p50_us > 0 ? at.commit.p50_us / at.floor.p50_us : 0.0);
  }
  out += fmt::format("\nfdatasync floor over the run: p50 {:.0f} us, p99 {:.0f} us ({} probes)\n",
                     run.floor.p50_us, run.floor.p99_us, run.floor.count);
  if (run.sizes.size() >= 2 && run.sizes.front().commit.p99_us > 0) {
    out += fmt::format("p99 at {} rows / p99 at {} rows: {:.3f}x\n", run.sizes.back().rows,
                       run.sizes.front().rows,
                       run.sizes.back().commit.p99_us / run.sizes.front().commit.p99_us);
  }
  return out + store_text(run.store);
}

std::string commit_json(const CommitConfig& config, const CommitRun& run) {
  json j;
  j["workload"] = "commit";
  j["engine"] = run.engine;
  json figures = json::object();
  for (const CommitAtSize& at : run.sizes) {
    figures["p50_us_" + std::to_string(at.rows)] = at.commit.p50_us;
    figures["p99_us_" + std::to_string(at.rows)] = at.commit.p99_us;
    figures["max_us_" + std::to_string(at.rows)] = at.commit.max_us;
  }
  figures["fdatasync_floor_us"] = run.floor.p50_us;
  j["figures"] = figures;
  j["durable"] = true;
  j["commits"] = config.commits;
  j["probe_every"] = config.probe_every;
  j["seed"] = config.seed;
  j["load_batch"] = config.load_batch;
  j["latency_by_preload"] = json::array();
  for (const CommitAtSize& at : run.sizes) {
    j["latency_by_preload"].push_back({{"rows", at.rows},
                                       {"preload_seconds", at.preload_seconds},
                                       {"commit", latency_json(at.commit)},
                                       {"floor", latency_json(at.floor)}});
  }
  j["floor"] = latency_json(run.floor);
  add_store_json(j, run.store);
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace ordo::bench
