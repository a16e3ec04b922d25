// The newest committed changes, in memory, for Replica::watch: a ring of
// whole log entries bounded in bytes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "ordo/replica.h"
#include "ordo/status.h"

namespace ordo::replica {

// Thread-safety: every member may be called from any thread at once;
// record/reset come from the apply thread, read from readers.
class WatchHistory {
 public:
  // Keeps about `capacity_bytes` (see ReplicaOptions::watch_history_bytes).
  explicit WatchHistory(size_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // Forgets every change: the history holds the entries after `applied_index`.
  void reset(uint64_t applied_index);
  // Records the changes of the batch applied at log `index` (above every
  // index recorded before); `batch` nullptr: the entry changed nothing (a
  // failed batch). Wakes readers waiting for a change.
  void record(uint64_t index, const WriteBatch* batch);
  // As Replica::watch.
  Result<WatchResult> read(const std::string* tree, uint64_t from_index, uint32_t from_offset,
                           size_t max_changes, size_t max_bytes, std::chrono::milliseconds wait);
  // Ends every wait with IOError("replica closing"), and every later read.
  void close();

 private:
  struct Entry {
    uint64_t index;
    std::vector<Change> changes;
    size_t bytes;
  };
  static constexpr size_t kChangeOverheadBytes = 64;

  // With mu_ held: collects into `out`; false when the position is gone.
  bool collect(const std::string* tree, uint64_t from_index, uint32_t from_offset,
               size_t max_changes, size_t max_bytes, WatchResult& out) const;

  const size_t capacity_bytes_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Entry> entries_;  // by index, ascending; guarded by mu_
  size_t bytes_ = 0;           // of entries_; guarded by mu_
  uint64_t first_index_ = 1;   // the oldest index the history covers; guarded by mu_
  uint64_t last_index_ = 0;    // the newest index recorded; guarded by mu_
  bool closed_ = false;        // guarded by mu_
};

}  // namespace ordo::replica
