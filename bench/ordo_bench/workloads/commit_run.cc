// The timed part of the commit workload.
#include <chrono>
#include <memory>
#include <random>

#include "commit_workload.h"
#include "kv_registry.h"
#include "rows.h"
#include "sync_probe.h"

namespace ordo::bench {
namespace {

constexpr size_t kKeyBytes = 8;

// One timed one-row commit: row `i` at `version`; returns its microseconds.
Result<double> commit_one(KvEngine& db, TableId table, uint64_t i, uint64_t version) {
  const auto start = std::chrono::steady_clock::now();
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvWrite> txn, db.begin_write());
  const auto value = row_value(i, version);
  ORDO_RETURN_IF_ERROR(
      txn->put(table, row_key(i, kKeyBytes), ByteView(value.data(), value.size())));
  ORDO_RETURN_IF_ERROR(txn->commit());
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
      .count();
}

// The last committed row must read back at its version.
Status check_row(KvEngine& db, TableId table, uint64_t i, uint64_t version) {
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> read, db.begin_read());
  ORDO_ASSIGN_OR_RETURN(ByteView value, read->get(table, row_key(i, kKeyBytes)));
  const auto expected = row_value(i, version);
  if (value != ByteView(expected.data(), expected.size())) {
    return Status::corruption("row " + std::to_string(i) + " does not read back as committed");
  }
  return Status::ok();
}

Result<CommitAtSize> run_size(KvEngine& db, TableId table, SyncProbe& probe, uint64_t rows,
                              const CommitConfig& config, std::mt19937_64& rng,
                              std::vector<double>& all_floor) {
  CommitAtSize at;
  at.rows = rows;
  std::vector<double> commits, floor;
  uint64_t i = 0;
  for (uint64_t k = 1; k <= config.commits; ++k) {
    i = rng() % rows;
    ORDO_ASSIGN_OR_RETURN(const double us, commit_one(db, table, i, rows + k));
    commits.push_back(us);
    if (config.probe_every > 0 && k % config.probe_every == 0) {
      ORDO_ASSIGN_OR_RETURN(const double floor_us, probe.probe_us());
      floor.push_back(floor_us);
      all_floor.push_back(floor_us);
    }
  }
  if (config.commits > 0) ORDO_RETURN_IF_ERROR(check_row(db, table, i, rows + config.commits));
  at.commit = summarize_latency(commits);
  at.floor = summarize_latency(floor);
  return at;
}

}  // namespace

Result<CommitRun> run_commit(const std::string& path, const CommitProbePaths& probes,
                             const CommitConfig& config) {
  CommitRun run;
  run.engine = config.engine;
  ORDO_ASSIGN_OR_RETURN(SyncProbe probe, SyncProbe::create(probes.interleaved));
  KvOptions options;
  options.durable = config.sync;
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvEngine> db, open_engine(config.engine, path, options));
  ORDO_ASSIGN_OR_RETURN(const TableId table, db->open_table("rows"));
  std::mt19937_64 rng(config.seed);
  std::vector<double> all_floor;
  uint64_t loaded = 0;
  for (const uint64_t rows : config.preloads) {
    const auto start = std::chrono::steady_clock::now();
    ORDO_RETURN_IF_ERROR(load_rows(*db, table, loaded, rows, kKeyBytes, config.load_batch));
    loaded = rows;
    const double preload_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ORDO_ASSIGN_OR_RETURN(CommitAtSize at,
                          run_size(*db, table, probe, rows, config, rng, all_floor));
    at.preload_seconds = preload_seconds;
    run.sizes.push_back(at);
  }
  run.floor = summarize_latency(all_floor);
  for (const unsigned threads : loaded > 0 ? config.threads : std::vector<unsigned>{}) {
    ORDO_ASSIGN_OR_RETURN(ConcurrentCommits arm,
                          run_concurrent_commits(*db, table, loaded, threads, config));
    run.concurrent.push_back(arm);
  }
  ORDO_ASSIGN_OR_RETURN(run.floors, measure_floors(probes, config));
  ORDO_ASSIGN_OR_RETURN(run.store, close_store(*db, path));
  return run;
}

}  // namespace ordo::bench
