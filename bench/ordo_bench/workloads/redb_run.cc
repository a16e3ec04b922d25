// The timed phases of the redb workload.
#include <chrono>
#include <functional>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "kv_registry.h"
#include "latency.h"
#include "redb_pairs.h"
#include "redb_workload.h"
#include "rows.h"
#include "system_figures.h"

namespace ordo::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

double ms_since(SteadyClock::time_point start) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
}

// Puts pairs [from, to), a durable commit every `per_txn` of them; returns
// the milliseconds, commits included.
Result<double> write_pairs(KvEngine& db, TableId table, uint64_t seed, uint64_t from, uint64_t to,
                           uint64_t per_txn) {
  const SteadyClock::time_point start = SteadyClock::now();
  BatchWriter writer(db, per_txn);
  RedbPair pair;
  for (uint64_t i = from; i < to; ++i) {
    make_redb_pair(seed, i, pair);
    ORDO_RETURN_IF_ERROR(writer.put(table, pair.key_view(), pair.value_view()));
  }
  ORDO_RETURN_IF_ERROR(writer.finish());
  return ms_since(start);
}

// Looks up pairs [from, to) through `read`; each must read back its value.
Status read_pairs(KvRead& read, TableId table, uint64_t seed, uint64_t from, uint64_t to) {
  RedbPair pair;
  for (uint64_t i = from; i < to; ++i) {
    make_redb_pair(seed, i, pair);
    ORDO_ASSIGN_OR_RETURN(ByteView value, read.get(table, pair.key_view()));
    if (value != pair.value_view()) {
      return Status::corruption("pair " + std::to_string(i) + " reads back another value");
    }
  }
  return Status::ok();
}

// Range reads from the keys of pairs 0..count-1, `length` entries each;
// returns the entries visited. A range from a written key holds at least it.
Result<uint64_t> range_reads(KvRead& read, TableId table, const RedbConfig& config) {
  RedbPair pair;
  uint64_t visited = 0;
  uint64_t value_bytes = 0;
  const uint64_t count = config.range_reads_per_iteration();
  for (uint64_t i = 0; i < count; ++i) {
    make_redb_pair(config.seed, i, pair);
    ORDO_ASSIGN_OR_RETURN(const uint64_t n, read.scan(table, pair.key_view(), config.range_length,
                                                      [&](ByteView, ByteView value) {
                                                        value_bytes += value.size();
                                                      }));
    if (n == 0 && i < config.written()) {
      return Status::corruption("range read from pair " + std::to_string(i) + " found nothing");
    }
    visited += n;
  }
  if (value_bytes != visited * kRedbValueBytes) {
    return Status::corruption("range reads visited values of the wrong size");
  }
  return visited;
}

// Runs `phase` `iterations` times on one snapshot; the median milliseconds.
Result<double> median_ms(KvEngine& db, uint64_t iterations,
                         const std::function<Status(KvRead&)>& phase) {
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> read, db.begin_read());
  std::vector<double> ms;
  for (uint64_t k = 0; k < iterations; ++k) {
    const SteadyClock::time_point start = SteadyClock::now();
    ORDO_RETURN_IF_ERROR(phase(*read));
    ms.push_back(ms_since(start));
  }
  return nearest_rank_percentile(ms, 50);
}

// Every pair written, looked up by `threads` threads, each its contiguous
// share on its own snapshot.
Result<double> threaded_reads_ms(KvEngine& db, TableId table, const RedbConfig& config,
                                 unsigned threads) {
  ORDO_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<KvRead>> reads, begin_reads(db, threads));
  const uint64_t total = config.written();
  std::vector<Status> results(threads);
  const SteadyClock::time_point start = SteadyClock::now();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      results[t] =
          read_pairs(*reads[t], table, config.seed, total * t / threads, total * (t + 1) / threads);
    });
  }
  for (std::thread& w : workers) w.join();
  const double ms = ms_since(start);
  for (const Status& s : results) ORDO_RETURN_IF_ERROR(s);
  return ms;
}

// Deletes the first half of the pairs written in one durable txn.
Result<double> remove_pairs(KvEngine& db, TableId table, const RedbConfig& config) {
  const SteadyClock::time_point start = SteadyClock::now();
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvWrite> txn, db.begin_write());
  RedbPair pair;
  for (uint64_t i = 0; i < config.removals(); ++i) {
    make_redb_pair(config.seed, i, pair);
    ORDO_RETURN_IF_ERROR(txn->del(table, pair.key_view()));
  }
  ORDO_RETURN_IF_ERROR(txn->commit());
  return ms_since(start);
}

Status write_phases(KvEngine& db, TableId table, const RedbConfig& c, RedbRun& run) {
  const uint64_t individual_end = c.entries + c.individual_writes;
  ORDO_ASSIGN_OR_RETURN(run.bulk_load_ms, write_pairs(db, table, c.seed, 0, c.entries, c.entries));
  ORDO_ASSIGN_OR_RETURN(run.individual_writes_ms,
                        write_pairs(db, table, c.seed, c.entries, individual_end, 1));
  if (c.batch_writes > 0 && c.batch_size > 0) {
    ORDO_ASSIGN_OR_RETURN(run.batch_writes_ms, write_pairs(db, table, c.seed, individual_end,
                                                           c.written(), c.batch_size));
  }
  return Status::ok();
}

Status read_phases(KvEngine& db, TableId table, const RedbConfig& c, RedbRun& run) {
  ORDO_ASSIGN_OR_RETURN(run.random_reads_ms, median_ms(db, c.iterations, [&](KvRead& read) {
                          return read_pairs(read, table, c.seed, 0, c.reads_per_iteration());
                        }));
  ORDO_ASSIGN_OR_RETURN(run.random_range_reads_ms, median_ms(db, c.iterations, [&](KvRead& read) {
                          ORDO_ASSIGN_OR_RETURN(run.range_entries, range_reads(read, table, c));
                          return Status::ok();
                        }));
  for (const unsigned threads : c.read_threads) {
    ORDO_ASSIGN_OR_RETURN(const double ms, threaded_reads_ms(db, table, c, threads));
    run.threaded_reads_ms.emplace_back(threads, ms);
  }
  return Status::ok();
}

constexpr std::string_view kTable = "x";  // redb's table name

// Every phase up to the removals, on a new store; closes it and returns its
// bytes at rest (an open ordo file still holds its preallocated extents).
Result<uint64_t> timed_phases(const std::string& path, const RedbConfig& config, RedbRun& run) {
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvEngine> db, open_engine(config.engine, path, {}));
  ORDO_ASSIGN_OR_RETURN(const TableId table, db->open_table(kTable));
  ORDO_RETURN_IF_ERROR(write_phases(*db, table, config, run));
  ORDO_RETURN_IF_ERROR(read_phases(*db, table, config, run));
  ORDO_ASSIGN_OR_RETURN(run.removals_ms, remove_pairs(*db, table, config));
  ORDO_ASSIGN_OR_RETURN(const StoreFigures at_rest, close_store(*db, path));
  return at_rest.usage.file_bytes;
}

// Reopens the store and compacts it the engine's way.
Status compact_phase(const std::string& path, const std::string& copy_path,
                     const RedbConfig& config, RedbRun& run) {
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvEngine> db, open_engine(config.engine, path, {}));
  ORDO_RETURN_IF_ERROR(db->open_table(kTable).status());
  const SteadyClock::time_point start = SteadyClock::now();
  ORDO_ASSIGN_OR_RETURN(const std::string compacted, db->compact(copy_path));
  run.compaction_ms = ms_since(start);
  ORDO_ASSIGN_OR_RETURN(run.store, close_store(*db, path));
  ORDO_ASSIGN_OR_RETURN(const FileUsage after, path_usage(compacted));
  run.compacted_bytes = after.file_bytes;
  return Status::ok();
}

}  // namespace

Result<RedbRun> run_redb(const std::string& path, const std::string& copy_path,
                         const RedbConfig& config) {
  if (config.entries == 0 || config.iterations == 0 || config.range_length == 0) {
    return Status::invalid_argument("redb needs entries, iterations and range length > 0");
  }
  RedbRun run;
  run.engine = config.engine;
  ORDO_ASSIGN_OR_RETURN(run.uncompacted_bytes, timed_phases(path, config, run));
  ORDO_RETURN_IF_ERROR(compact_phase(path, copy_path, config, run));
  return run;
}

}  // namespace ordo::bench
