// The concurrent-commit arm of the commit workload: T threads, each making
// one-row commits through KvEngine::put_concurrent.
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "commit_workload.h"
#include "rows.h"

namespace ordo::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kConcurrentKeyBytes = 8;  // as the rest of the commit workload

// One thread's commits: random rows of [0, rows), each value at a version of
// its own (above any of the one-thread arm); their latencies in `us`.
Status commit_loop(KvEngine& db, TableId table, uint64_t rows, uint64_t count, uint64_t seed,
                   uint64_t first_version, std::vector<double>& us) {
  std::mt19937_64 rng(seed);
  for (uint64_t k = 0; k < count; ++k) {
    const uint64_t i = rng() % rows;
    const auto value = row_value(i, first_version + k);
    const SteadyClock::time_point start = SteadyClock::now();
    ORDO_RETURN_IF_ERROR(db.put_concurrent(table, row_key(i, kConcurrentKeyBytes),
                                           ByteView(value.data(), value.size())));
    us.push_back(std::chrono::duration<double, std::micro>(SteadyClock::now() - start).count());
  }
  return Status::ok();
}

}  // namespace

Result<ConcurrentCommits> run_concurrent_commits(KvEngine& db, TableId table, uint64_t rows,
                                                 unsigned threads, const CommitConfig& config) {
  std::vector<Status> results(threads);
  std::vector<std::vector<double>> us(threads);
  // Past every version the one-thread arms write (rows + commits).
  constexpr uint64_t kFirstVersion = uint64_t{1} << 40;
  const SteadyClock::time_point start = SteadyClock::now();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      us[t].reserve(config.thread_commits);
      results[t] =
          commit_loop(db, table, rows, config.thread_commits, config.seed + 1000 * threads + t,
                      kFirstVersion + t * config.thread_commits, us[t]);
    });
  }
  for (std::thread& w : workers) w.join();
  ConcurrentCommits arm;
  arm.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
  arm.threads = threads;
  std::vector<double> all;
  for (unsigned t = 0; t < threads; ++t) {
    ORDO_RETURN_IF_ERROR(results[t]);
    all.insert(all.end(), us[t].begin(), us[t].end());
  }
  arm.commits = all.size();
  arm.commit = summarize_latency(all);
  return arm;
}

}  // namespace ordo::bench
