// The recovery workload: how long a writable open takes after a crash with a
// full log. Load P rows (8-byte big-endian keys, V-byte values) and take a
// checkpoint, then commit C rows per durable txn at the right edge (new keys
// after the loaded ones) until the log holds at least F% of its area or K
// txns were committed. Three images of the file are then opened, each a fresh
// copy, each R times:
//   clean    the file after the handle closed (a checkpoint, no records);
//   process  the file as the handle left it, not closed: what a process
//            that died leaves (every page in the page cache; open checks the
//            pages of the logged txns and takes the last record);
//   machine  the file as the last checkpoint left it with the log area of the
//            end: what a crash of the machine that lost every page written
//            since the checkpoint leaves (open replays every record, then
//            takes a checkpoint).
// The copies are in the page cache: the times are the engine's work and its
// syncs, not cold reads.
#pragma once

#include <cstdint>
#include <string>

#include "ordo/status.h"

namespace ordo::bench {

struct RecoveryConfig {
  uint64_t preload = 1'000'000;    // rows loaded before the checkpoint
  uint64_t value_bytes = 100;      // bytes of each value
  uint64_t rows_per_commit = 10;   // rows of each logged txn
  uint64_t log_bytes = 0;          // Options::log_bytes (0: the engine's default)
  uint64_t fill_pct = 95;          // stop once the log holds this share of its area
  uint64_t max_commits = 100'000;  // or after this many txns
  uint64_t opens = 5;              // opens of each image
};

// Milliseconds of the opens of one image.
struct OpenTimes {
  double median_ms = 0;  // nearest rank
  double min_ms = 0;
  double max_ms = 0;
};

struct RecoveryRun {
  uint64_t commits = 0;      // logged txns committed
  uint64_t checkpoints = 0;  // checkpoints the engine took among them
  uint64_t log_area_bytes = 0;
  uint64_t log_records = 0;       // records since the last checkpoint, at the crash
  uint64_t log_head_bytes = 0;    // their bytes
  uint64_t replayed_records = 0;  // what the machine-crash open replayed
  uint64_t replayed_bytes = 0;
  uint64_t file_bytes = 0;
  OpenTimes clean;  // Database::open to the returned handle, per image
  OpenTimes process;
  OpenTimes machine;
};

// Runs the workload in `dir` (a fresh directory the caller removes).
Result<RecoveryRun> run_recovery(const std::string& dir, const RecoveryConfig& config);

// The text report on stdout, or one JSON document ("workload", "engine",
// "figures").
void print_recovery_text(const RecoveryConfig& config, const RecoveryRun& run);
std::string recovery_json(const RecoveryConfig& config, const RecoveryRun& run);

}  // namespace ordo::bench
