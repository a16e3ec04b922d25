// The timed part of the reads workload.
#include <chrono>
#include <memory>
#include <random>
#include <thread>

#include "kv_registry.h"
#include "reads_workload.h"
#include "rows.h"

namespace ordo::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

// Lookups of one thread through its own reader until `count` are done or
// `deadline` passed (checked every kDeadlineEvery lookups); returns how many.
constexpr uint64_t kDeadlineEvery = 1024;

Result<uint64_t> lookup_loop(KvRead& read, TableId table, const ReadsConfig& config, uint64_t seed,
                             uint64_t count, SteadyClock::time_point deadline) {
  std::mt19937_64 rng(seed);
  uint64_t done = 0;
  for (; done < count; ++done) {
    if (done % kDeadlineEvery == 0 && SteadyClock::now() >= deadline) break;
    const uint64_t i = rng() % config.keys;
    ORDO_ASSIGN_OR_RETURN(ByteView value, read.get(table, row_key(i, config.key_bytes)));
    if (row_of_value(value) != i) {
      return Status::corruption("lookup of row " + std::to_string(i) + " read another row");
    }
  }
  return done;
}

// `per_request`: each thread's lookups through KvEngine::begin_request_reads
// (a snapshot per lookup) instead of one snapshot for all.
Result<LookupFigures> lookup_phase(KvEngine& db, TableId table, const ReadsConfig& config,
                                   unsigned threads, bool per_request) {
  std::vector<std::unique_ptr<KvRead>> reads;
  for (unsigned t = 0; t < threads; ++t) {
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> read,
                          per_request ? db.begin_request_reads() : db.begin_read());
    reads.push_back(std::move(read));
  }
  const bool timed = config.seconds > 0;
  const uint64_t count = timed ? UINT64_MAX : config.lookups;
  std::vector<Result<uint64_t>> results(threads, Status::invalid_argument("not run"));
  const SteadyClock::time_point start = SteadyClock::now();
  const SteadyClock::time_point deadline =
      timed ? start + std::chrono::duration_cast<SteadyClock::duration>(
                          std::chrono::duration<double>(config.seconds))
            : SteadyClock::time_point::max();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      results[t] = lookup_loop(*reads[t], table, config, config.seed + 1 + t, count, deadline);
    });
  }
  for (std::thread& w : workers) w.join();
  LookupFigures figures;
  figures.seconds = seconds_since(start);
  figures.threads = threads;
  for (const Result<uint64_t>& r : results) {
    if (!r.is_ok()) return r.status();
    figures.lookups += *r;
  }
  return figures;
}

Status scan_phase(KvEngine& db, TableId table, const ReadsConfig& config, ReadsRun& run) {
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> read, db.begin_read());
  std::mt19937_64 rng(config.seed);
  uint64_t bytes = 0;  // used, so the visits are not optimized away
  const SteadyClock::time_point start = SteadyClock::now();
  for (uint64_t s = 0; s < config.scans; ++s) {
    const uint64_t from = rng() % (config.keys - config.scan_length + 1);
    ORDO_ASSIGN_OR_RETURN(
        const uint64_t n,
        read->scan(table, row_key(from, config.key_bytes), config.scan_length,
                   [&](ByteView key, ByteView value) { bytes += key.size() + value.size(); }));
    if (n != config.scan_length) {
      return Status::corruption("scan from row " + std::to_string(from) + " visited " +
                                std::to_string(n) + " rows");
    }
    run.scanned_keys += n;
  }
  run.scan_seconds = seconds_since(start);
  run.scans = config.scans;
  if (bytes != run.scanned_keys * (config.key_bytes + kRowValueBytes)) {
    return Status::corruption("scans visited rows of the wrong size");
  }
  return Status::ok();
}

Status run_on(KvEngine& db, const ReadsConfig& config, ReadsRun& run) {
  ORDO_ASSIGN_OR_RETURN(const TableId table, db.open_table("rows"));
  const SteadyClock::time_point start = SteadyClock::now();
  ORDO_RETURN_IF_ERROR(load_rows(db, table, 0, config.keys, config.key_bytes, config.load_batch));
  run.load_seconds = seconds_since(start);
  for (const unsigned threads : config.threads) {
    ORDO_ASSIGN_OR_RETURN(LookupFigures figures, lookup_phase(db, table, config, threads, false));
    run.lookups.push_back(figures);
  }
  for (const unsigned threads : config.threads) {
    ORDO_ASSIGN_OR_RETURN(LookupFigures figures, lookup_phase(db, table, config, threads, true));
    run.request_lookups.push_back(figures);
  }
  return scan_phase(db, table, config, run);
}

}  // namespace

Result<ReadsRun> run_reads(const std::string& path, const ReadsConfig& config) {
  if (config.scan_length == 0 || config.keys < config.scan_length) {
    return Status::invalid_argument("reads needs keys >= scan length > 0");
  }
  ReadsRun run;
  run.engine = config.engine;
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvEngine> db, open_engine(config.engine, path, {}));
  ORDO_RETURN_IF_ERROR(run_on(*db, config, run));
  ORDO_ASSIGN_OR_RETURN(run.store, close_store(*db, path));
  return run;
}

}  // namespace ordo::bench
