// The churn workload: load K keys (8-byte big-endian, 100-byte
// values) in one txn, then R rounds that each update every key once, in key
// order, in txns of T updates. Run twice on fresh files: without a reader,
// and with a read txn held open across rounds 6-10. After the load and after
// every round it records the file length, the pages ever used and the free
// and pending-free pages: whether the file holds its size under updates, and
// whether a held reader holds back pages only while it lives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "commit_settings.h"
#include "ordo/database.h"

namespace ordo::bench {

inline constexpr size_t kChurnValueBytes = 100;

struct ChurnConfig {
  uint64_t keys = 100'000;
  uint64_t rounds = 20;
  uint64_t txn_size = 1'000;  // updates per txn
  // The held reader begins before round reader_first and ends after round
  // reader_last (after that round's figures are taken).
  uint64_t reader_first = 6;
  uint64_t reader_last = 10;
  CommitSettings commits;

  uint64_t txns_per_round() const { return (keys + txn_size - 1) / txn_size; }
};

// The database right after the load (round 0) or after round `round`.
struct ChurnRow {
  uint64_t round = 0;
  bool reader_held = false;  // the held reader was open during this round
  double seconds = 0;        // the load or the round's updates and commits
  uint64_t file_bytes = 0;   // DatabaseInfo::file_bytes
  // Page high-water mark of the current meta x page size: every page the
  // file has ever handed out, whether in use or free now.
  uint64_t used_bytes = 0;
  uint64_t free_pages = 0;          // FreeSpace::free_pages
  uint64_t pending_free_pages = 0;  // FreeSpace::pending_pages
  uint64_t pages_reused = 0;        // Stats::pages_reused since open
  uint64_t pages_reused_in_round = 0;
};

struct ChurnRun {
  bool with_reader = false;
  std::string path;
  std::vector<ChurnRow> rows;  // rows[0]: after the load; rows[r]: after round r
  Stats stats;                 // since open
  uint64_t syncs_at_open = 0;  // Stats::syncs once open (creating the file)
  DatabaseInfo info;
  uint64_t reader_keys_checked = 0;  // keys the held reader read back at its end

  // Used bytes after the last round / after the load.
  double used_ratio() const;
  double file_ratio() const;
};

// "no reader" or "reader held".
std::string churn_run_label(const ChurnRun& run);

// Creates the database at `path` and runs the workload. The held reader (and
// the final state) must read back the values of their round, else Corruption.
Result<ChurnRun> run_churn(const std::string& path, const ChurnConfig& config, bool with_reader);

}  // namespace ordo::bench
