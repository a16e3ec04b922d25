#include "replicated_workload.h"

#include <fmt/core.h>

#include <atomic>
#include <thread>

#include "latency.h"

namespace ordo::bench {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kLeaderTimeout{10000};

std::string value_of(std::string_view key) {
  std::string value(kReplicatedValueBytes, 'v');
  value.replace(0, key.size(), key);
  return value;
}

double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

struct ClientTally {
  std::vector<double> latencies_us;  // acknowledged puts inside the window
  uint64_t acknowledged = 0;         // all, warm-up included
  uint64_t failed = 0;
  std::string last_error;
};

void run_client(PutClient& client, int phase, int index, Clock::time_point window_start,
                Clock::time_point window_end, const ReplicatedConfig& config, ClientTally& tally) {
  for (uint64_t seq = 0;; ++seq) {
    const Clock::time_point t0 = Clock::now();
    if (t0 >= window_end) return;
    const std::string key = replicated_key(phase, index, seq);
    const Status s = client.put(key, value_of(key));
    const Clock::time_point t1 = Clock::now();
    if (!s.is_ok()) {
      ++tally.failed;
      tally.last_error = s.to_string();
      std::this_thread::sleep_for(config.retry_pause);
      continue;
    }
    ++tally.acknowledged;
    if (t0 >= window_start && t1 <= window_end) tally.latencies_us.push_back(us_between(t0, t1));
  }
}

// One phase of `clients` clients connected first to the leader.
Status run_phase(ReplicatedStore& store, int phase, int clients, const ReplicatedConfig& config,
                 nlohmann::ordered_json& figures, nlohmann::ordered_json& counts) {
  const int leader = store.leader(kLeaderTimeout);
  if (leader == 0)
    return Status::io_error(fmt::format("no leader before the {}-client phase", clients), 0);
  std::vector<std::unique_ptr<PutClient>> conns;
  for (int c = 0; c < clients; ++c) conns.push_back(store.client(leader, config.timeout));
  std::vector<ClientTally> tallies(static_cast<size_t>(clients));
  const auto warmup = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(config.warmup_seconds));
  const auto window =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(config.seconds));
  const Clock::time_point window_start = Clock::now() + warmup;
  const Clock::time_point window_end = window_start + window;
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      run_client(*conns[static_cast<size_t>(c)], phase, c, window_start, window_end, config,
                 tallies[static_cast<size_t>(c)]);
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<double> all;
  uint64_t acknowledged = 0;
  uint64_t failed = 0;
  std::string last_error;
  for (const ClientTally& t : tallies) {
    all.insert(all.end(), t.latencies_us.begin(), t.latencies_us.end());
    acknowledged += t.acknowledged;
    failed += t.failed;
    if (!t.last_error.empty()) last_error = t.last_error;
  }
  if (all.empty()) {
    return Status::io_error(
        fmt::format("no put acknowledged with {} clients; last error: {}", clients, last_error), 0);
  }
  const LatencySummary lat = summarize_latency(all);
  figures[fmt::format("puts_per_s_{}", clients)] = static_cast<double>(all.size()) / config.seconds;
  figures[fmt::format("p50_us_{}", clients)] = lat.p50_us;
  figures[fmt::format("p99_us_{}", clients)] = lat.p99_us;
  counts[fmt::format("clients_{}", clients)] = {
      {"leader", leader}, {"puts_in_window", all.size()}, {"acknowledged", acknowledged},
      {"failed", failed}, {"max_us", lat.max_us},         {"last_error", last_error}};
  return Status::ok();
}

Status run_failover(ReplicatedStore& store, int phase, const ReplicatedConfig& config,
                    nlohmann::ordered_json& figures, nlohmann::ordered_json& counts) {
  const int leader = store.leader(kLeaderTimeout);
  if (leader == 0) return Status::io_error("no leader before the failover", 0);
  std::unique_ptr<PutClient> client = store.client(leader, config.failover_timeout);
  std::atomic<int64_t> kill_ns{0};  // steady-clock ns of the kill; 0: not yet
  std::atomic<bool> give_up{false};
  Clock::time_point acked{};
  bool done = false;
  uint64_t before = 0;
  uint64_t failed = 0;
  std::string last_error;
  std::thread writer([&] {
    for (uint64_t seq = 0; !give_up.load(); ++seq) {
      const Clock::time_point t0 = Clock::now();
      const int64_t killed = kill_ns.load();
      const std::string key = replicated_key(phase, 0, seq);
      const Status s = client->put(key, value_of(key));
      const Clock::time_point t1 = Clock::now();
      if (!s.is_ok()) {
        ++failed;
        last_error = s.to_string();
        std::this_thread::sleep_for(config.retry_pause);
        continue;
      }
      // Only a put sent after the kill shows that the cluster took writes again.
      if (killed != 0 && t0.time_since_epoch().count() >= killed) {
        acked = t1;
        done = true;
        return;
      }
      ++before;
    }
  });
  std::this_thread::sleep_for(config.steady_before_kill);
  const Clock::time_point killed_at = Clock::now();
  kill_ns.store(killed_at.time_since_epoch().count());
  const Status killed = store.kill(leader);
  if (!killed.is_ok()) {
    give_up.store(true);
    writer.join();
    return killed;
  }
  // The writer ends at its first acknowledged put after the kill, or is told to give up.
  std::thread watchdog([&] {
    const Clock::time_point limit = killed_at + config.failover_limit;
    while (Clock::now() < limit && !give_up.load()) std::this_thread::sleep_for(milliseconds(10));
    give_up.store(true);
  });
  writer.join();
  give_up.store(true);
  watchdog.join();
  if (!done) {
    return Status::io_error(fmt::format("no put acknowledged within {} ms of killing the leader "
                                        "(node {}); last error: {}",
                                        config.failover_limit.count(), leader, last_error),
                            0);
  }
  figures["failover_ms"] = us_between(killed_at, acked) / 1000.0;
  counts["failover"] = {{"killed_leader", leader},
                        {"new_leader", store.leader(kLeaderTimeout)},
                        {"acknowledged_before_kill", before},
                        {"failed_after_kill", failed},
                        {"last_error", last_error}};
  return Status::ok();
}

}  // namespace

std::string replicated_key(int phase, int client, uint64_t seq) {
  return fmt::format("{:02}{:02}{:012}", phase, client, seq);
}

Result<nlohmann::ordered_json> run_replicated(ReplicatedStore& store,
                                              const ReplicatedConfig& config) {
  nlohmann::ordered_json figures = nlohmann::ordered_json::object();
  nlohmann::ordered_json counts = nlohmann::ordered_json::object();
  int phase = 0;
  for (int clients : config.clients) {
    ORDO_RETURN_IF_ERROR(run_phase(store, phase++, clients, config, figures, counts));
  }
  if (config.failover) ORDO_RETURN_IF_ERROR(run_failover(store, phase, config, figures, counts));
  nlohmann::ordered_json out;
  out["figures"] = std::move(figures);
  out["counts"] = std::move(counts);
  return out;
}

}  // namespace ordo::bench
