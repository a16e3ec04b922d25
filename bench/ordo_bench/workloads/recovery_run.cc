#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "latency.h"
#include "ordo/database.h"
#include "recovery_workload.h"
#include "rows.h"

namespace ordo::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Status copy_file(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) return Status::io_error("copy " + from + " to " + to + ": " + ec.message(), ec.value());
  return Status::ok();
}

// The checkpoint's file with the log area of `live` written over its own.
Status make_machine_image(const std::string& checkpoint, const std::string& live,
                          const LogInfo& log, uint32_t page_size, const std::string& to) {
  ORDO_RETURN_IF_ERROR(copy_file(checkpoint, to));
  std::FILE* in = std::fopen(live.c_str(), "rb");
  std::FILE* out = std::fopen(to.c_str(), "r+b");
  Status s;
  std::vector<char> area(log.area_bytes);
  const long at = static_cast<long>(log.first_page * page_size);
  if (in == nullptr || out == nullptr || std::fseek(in, at, SEEK_SET) != 0 ||
      std::fread(area.data(), 1, area.size(), in) != area.size() ||
      std::fseek(out, at, SEEK_SET) != 0 ||
      std::fwrite(area.data(), 1, area.size(), out) != area.size()) {
    s = Status::io_error("writing the log area of " + live + " into " + to, errno);
  }
  if (in != nullptr) std::fclose(in);
  if (out != nullptr && std::fclose(out) != 0 && s.is_ok())
    s = Status::io_error("close " + to, errno);
  return s;
}

OpenTimes summarize(const std::vector<double>& ms) {
  OpenTimes t;
  if (ms.empty()) return t;
  const auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
  t.median_ms = nearest_rank_percentile(ms, 50);
  t.min_ms = *lo;
  t.max_ms = *hi;
  return t;
}

// Opens a fresh copy of `image` config.opens times; `check` sees each handle.
template <typename Check>
Result<OpenTimes> time_opens(const std::string& image, const std::string& scratch,
                             const Options& options, uint64_t opens, Check check) {
  std::vector<double> ms;
  for (uint64_t i = 0; i < opens; ++i) {
    ORDO_RETURN_IF_ERROR(copy_file(image, scratch));
    const auto t0 = Clock::now();
    Result<std::unique_ptr<Database>> db = Database::open(scratch, options);
    const auto t1 = Clock::now();
    if (!db.is_ok()) return db.status().with_context("open of a copy of " + image);
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    ORDO_RETURN_IF_ERROR(check(**db));
  }
  return summarize(ms);
}

}  // namespace

Result<RecoveryRun> run_recovery(const std::string& dir, const RecoveryConfig& config) {
  const std::string live = dir + "/live.ordo";
  const std::string checkpoint = dir + "/checkpoint.ordo";
  const std::string process = dir + "/process.ordo";
  const std::string machine = dir + "/machine.ordo";
  const std::string scratch = dir + "/open.ordo";
  Options options;
  options.log_bytes = config.log_bytes;
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::open(live, options));
  const std::string value(config.value_bytes, 'v');
  uint64_t next = 0;
  while (next < config.preload) {
    ORDO_ASSIGN_OR_RETURN(auto w, db->begin_write());
    for (uint64_t end = std::min(config.preload, next + 100'000); next < end; ++next) {
      ORDO_RETURN_IF_ERROR(w.append(w.default_tree(), row_key(next, 8), value));
    }
    ORDO_RETURN_IF_ERROR(w.commit());
  }
  ORDO_RETURN_IF_ERROR(db->checkpoint());
  ORDO_RETURN_IF_ERROR(copy_file(live, checkpoint));

  RecoveryRun run;
  DatabaseInfo info = db->info();
  run.log_area_bytes = info.log.area_bytes;
  const uint64_t fill_bytes = info.log.area_bytes * config.fill_pct / 100;
  while (run.commits < config.max_commits && info.log.head_bytes < fill_bytes) {
    const uint64_t epoch = info.log.epoch;
    ORDO_ASSIGN_OR_RETURN(auto w, db->begin_write());
    for (uint64_t r = 0; r < config.rows_per_commit; ++r, ++next) {
      ORDO_RETURN_IF_ERROR(w.append(w.default_tree(), row_key(next, 8), value));
    }
    ORDO_RETURN_IF_ERROR(w.commit());
    ++run.commits;
    info = db->info();
    if (info.log.epoch != epoch) {
      // A checkpoint came first (pages held, or a txn too large for the log):
      // the crash image starts from it. Its own commit's pages are in the
      // copy, as the page cache may have written them.
      ++run.checkpoints;
      ORDO_RETURN_IF_ERROR(copy_file(live, checkpoint));
    }
  }
  run.log_records = info.log.records;
  run.log_head_bytes = info.log.head_bytes;
  run.file_bytes = info.file_bytes;
  const uint64_t last_txn = info.txn_id;
  ORDO_RETURN_IF_ERROR(copy_file(live, process));
  ORDO_RETURN_IF_ERROR(
      make_machine_image(checkpoint, live, info.log, info.page_size_bytes, machine));
  db.reset();  // closes with a checkpoint: the clean image

  auto same_txn = [&](Database& d) {
    const DatabaseInfo got = d.info();
    if (got.txn_id != last_txn) {
      return Status::corruption(
          fmt::format("open recovered txn {}, the last commit was {}", got.txn_id, last_txn));
    }
    return Status::ok();
  };
  ORDO_ASSIGN_OR_RETURN(run.clean, time_opens(live, scratch, options, config.opens, same_txn));
  ORDO_ASSIGN_OR_RETURN(run.process, time_opens(process, scratch, options, config.opens, same_txn));
  ORDO_ASSIGN_OR_RETURN(
      run.machine, time_opens(machine, scratch, options, config.opens, [&](Database& d) {
        ORDO_RETURN_IF_ERROR(same_txn(d));
        const DatabaseInfo got = d.info();
        if (run.log_records > 0 && got.log.replayed_records != run.log_records) {
          return Status::corruption(fmt::format("open replayed {} records of {}",
                                                got.log.replayed_records, run.log_records));
        }
        run.replayed_records = got.log.replayed_records;
        run.replayed_bytes = got.log.replayed_bytes;
        return Status::ok();
      }));
  std::error_code ec;
  for (const std::string& f : {checkpoint, process, machine, scratch}) fs::remove(f, ec);
  return run;
}

void print_recovery_text(const RecoveryConfig& config, const RecoveryRun& run) {
  fmt::print(
      "recovery: {} rows loaded, then {} txns of {} rows ({}-byte values) at the right "
      "edge; {} checkpoints among them\n",
      config.preload, run.commits, config.rows_per_commit, config.value_bytes, run.checkpoints);
  fmt::print("log at the crash: {} records, {} of {} bytes; file {} bytes\n", run.log_records,
             run.log_head_bytes, run.log_area_bytes, run.file_bytes);
  fmt::print("open (ms, median [min - max] of {}):\n", config.opens);
  auto row = [](const char* what, const OpenTimes& t) {
    fmt::print("  {:<34} {:>9.2f} [{:.2f} - {:.2f}]\n", what, t.median_ms, t.min_ms, t.max_ms);
  };
  row("clean (closed, no records)", run.clean);
  row("after a process crash", run.process);
  row("after a machine crash (replay)", run.machine);
  fmt::print("replayed: {} records, {} bytes\n", run.replayed_records, run.replayed_bytes);
}

std::string recovery_json(const RecoveryConfig& config, const RecoveryRun& run) {
  nlohmann::ordered_json j;
  j["workload"] = "recovery";
  j["engine"] = "ordo";
  j["settings"] = {{"preload", config.preload},
                   {"value_bytes", config.value_bytes},
                   {"rows_per_commit", config.rows_per_commit},
                   {"log_bytes", run.log_area_bytes},
                   {"fill_pct", config.fill_pct},
                   {"opens", config.opens}};
  auto& f = j["figures"];
  f["commits"] = run.commits;
  f["checkpoints"] = run.checkpoints;
  f["log_records"] = run.log_records;
  f["log_head_bytes"] = run.log_head_bytes;
  f["replayed_records"] = run.replayed_records;
  f["replayed_bytes"] = run.replayed_bytes;
  f["file_bytes"] = run.file_bytes;
  f["open_clean_ms"] = run.clean.median_ms;
  f["open_process_crash_ms"] = run.process.median_ms;
  f["open_machine_crash_ms"] = run.machine.median_ms;
  return j.dump(2);
}

}  // namespace ordo::bench
