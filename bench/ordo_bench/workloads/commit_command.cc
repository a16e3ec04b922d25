#include "commit_command.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

namespace ordo::bench {
using json = nlohmann::ordered_json;

int run_commit_command(const CommitCommand& command) {
  const CommitConfig& config = command.config;
  return run_single(
      command.output, "commit",
      {"commit." + config.engine, "commit.sync-probe", "commit.overwrite-probe",
       "commit.unwritten-probe"},
      [&](const std::vector<std::string>& paths) -> Result<std::string> {
        fmt::print(stderr, "ordo-bench: commit, {}, {} one-row {} commits per preload size -> {}\n",
                   config.engine, config.commits, config.sync ? "durable" : "non-durable",
                   paths[0]);
        ORDO_ASSIGN_OR_RETURN(const CommitRun run,
                              run_commit(paths[0], {paths[1], paths[2], paths[3]}, config));
        return command.output.json ? commit_json(config, run) : commit_text(config, run);
      });
}

namespace {

// "" for durable runs, "nosync_" for --no-sync: the prefix of every commit figure.
std::string figure_prefix(const CommitConfig& config) { return config.sync ? "" : "nosync_"; }

std::string concurrent_text(const CommitRun& run) {
  if (run.concurrent.empty()) return "";
  std::string out = fmt::format("\n{:>8} {:>9} {:>10} {:>12} {:>9} {:>9}\n", "threads", "commits",
                                "seconds", "commits/s", "p50", "p99");
  for (const ConcurrentCommits& c : run.concurrent) {
    out += fmt::format("{:>8} {:>9} {:>10.3f} {:>12.0f} {:>9.0f} {:>9.0f}\n", c.threads, c.commits,
                       c.seconds, c.per_s(), c.commit.p50_us, c.commit.p99_us);
  }
  return out;
}

std::string floors_text(const CommitRun& run) {
  const CommitFloors& f = run.floors;
  if (f.overwrite.count == 0) return "";
  return fmt::format(
      "4 KiB pwrite + fdatasync, {} of each alternating: over written blocks p50 {:.0f} us, "
      "p99 {:.0f} us; into fallocated unwritten blocks p50 {:.0f} us, p99 {:.0f} us\n",
      f.overwrite.count, f.overwrite.p50_us, f.overwrite.p99_us, f.unwritten.p50_us,
      f.unwritten.p99_us);
}

}  // namespace

std::string commit_text(const CommitConfig& config, const CommitRun& run) {
  std::string out = fmt::format(
      "commit on {}: {} one-row {} commits (an overwrite of a random row) at each preload "
      "size; latency in microseconds, begin to end of commit; floor = one 4 KiB pwrite + "
      "fdatasync on a scratch file beside the store after every {} commits\n\n",
      run.engine, config.commits, config.sync ? "durable" : "non-durable (--no-sync)",
      config.probe_every);
  out += fmt::format("{:>10} {:>10} {:>9} {:>9} {:>9} {:>11} {:>10} {:>10}\n", "rows", "preload s",
                     "p50", "p99", "max", "floor p50", "floor p99", "p50/floor");
  for (const CommitAtSize& at : run.sizes) {
    out += fmt::format(
        "{:>10} {:>10.2f} {:>9.0f} {:>9.0f} {:>9.0f} {:>11.0f} {:>10.0f} {:>10.2f}\n", at.rows,
        at.preload_seconds, at.commit.p50_us, at.commit.p99_us, at.commit.max_us, at.floor.p50_us,
        at.floor.p99_us, at.floor.p50_us > 0 ? at.commit.p50_us / at.floor.p50_us : 0.0);
  }
  out += fmt::format("\nfdatasync floor over the run: p50 {:.0f} us, p99 {:.0f} us ({} probes)\n",
                     run.floor.p50_us, run.floor.p99_us, run.floor.count);
  if (run.sizes.size() >= 2 && run.sizes.front().commit.p99_us > 0) {
    out += fmt::format("p99 at {} rows / p99 at {} rows: {:.3f}x\n", run.sizes.back().rows,
                       run.sizes.front().rows,
                       run.sizes.back().commit.p99_us / run.sizes.front().commit.p99_us);
  }
  if (!run.concurrent.empty()) {
    out += fmt::format("\nconcurrent commits at {} rows, {} per thread (put_concurrent):",
                       run.sizes.empty() ? 0 : run.sizes.back().rows, config.thread_commits);
    out += concurrent_text(run);
  }
  out += "\n" + floors_text(run);
  return out + store_text(run.store);
}

std::string commit_json(const CommitConfig& config, const CommitRun& run) {
  json j;
  j["workload"] = "commit";
  j["engine"] = run.engine;
  json figures = json::object();
  const std::string prefix = figure_prefix(config);
  for (const CommitAtSize& at : run.sizes) {
    figures[prefix + "p50_us_" + std::to_string(at.rows)] = at.commit.p50_us;
    figures[prefix + "p99_us_" + std::to_string(at.rows)] = at.commit.p99_us;
    figures[prefix + "max_us_" + std::to_string(at.rows)] = at.commit.max_us;
  }
  for (const ConcurrentCommits& c : run.concurrent) {
    const std::string t = std::to_string(c.threads) + "t";
    figures[prefix + "commits_per_s_" + t] = c.per_s();
    figures[prefix + "concurrent_p50_us_" + t] = c.commit.p50_us;
    figures[prefix + "concurrent_p99_us_" + t] = c.commit.p99_us;
  }
  figures["fdatasync_floor_us"] = run.floor.p50_us;
  if (run.floors.overwrite.count > 0) {
    figures["floor_overwrite_p50_us"] = run.floors.overwrite.p50_us;
    figures["floor_overwrite_p99_us"] = run.floors.overwrite.p99_us;
    figures["floor_unwritten_p50_us"] = run.floors.unwritten.p50_us;
    figures["floor_unwritten_p99_us"] = run.floors.unwritten.p99_us;
  }
  j["figures"] = figures;
  j["durable"] = config.sync;
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
  j["thread_commits"] = config.thread_commits;
  j["concurrent"] = json::array();
  for (const ConcurrentCommits& c : run.concurrent) {
    j["concurrent"].push_back({{"threads", c.threads},
                               {"commits", c.commits},
                               {"seconds", c.seconds},
                               {"per_s", c.per_s()},
                               {"commit", latency_json(c.commit)}});
  }
  j["floor_overwrite"] = latency_json(run.floors.overwrite);
  j["floor_unwritten"] = latency_json(run.floors.unwritten);
  add_store_json(j, run.store);
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace ordo::bench
