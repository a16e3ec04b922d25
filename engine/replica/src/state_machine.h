// The replicated state: the ordo file, the entries applied to it, its
// snapshots (copies in dir/copies) and their install.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "consensus.h"
#include "ordo/database.h"
#include "snapshot_record.h"

namespace ordo::replica {

struct StateMachineOptions {
  std::string dir;           // the replica's data directory
  Options db_options;        // sync_commits is forced off
  uint32_t copies_kept = 2;  // copies kept besides the newest
  std::chrono::milliseconds fetch_timeout{10000};
};

// Thread-safety: apply, snapshot and restore run on the Raft thread only;
// begin_view, applied_index and the counters from any thread.
class ReplicaStateMachine final : public StateMachine {
 public:
  // Opens (creates) dir/data.ordo and dir/copies.
  static Result<std::unique_ptr<ReplicaStateMachine>> open(const StateMachineOptions& options);

  ApplyOutcome apply(uint64_t index, ByteView entry) override;
  Result<std::string> snapshot() override;
  Status restore(ByteView record, const std::string& leader_address) override;

  // A read txn with the shared lock that keeps an install out.
  struct View {
    std::shared_lock<std::shared_mutex> lock;
    ReadTxn txn;
    uint64_t applied_index;
  };
  Result<View> begin_view();

  uint64_t applied_index() const { return applied_index_.load(); }
  uint64_t snapshot_index() const { return snapshot_index_.load(); }
  uint64_t snapshots_taken() const { return snapshots_taken_.load(); }
  uint64_t snapshots_installed() const { return snapshots_installed_.load(); }
  // Database limits (fixed for the file's page size).
  uint32_t max_key_bytes() const { return max_key_bytes_.load(); }
  uint64_t max_value_bytes() const { return max_value_bytes_.load(); }

  std::string copies_dir() const;

 private:
  explicit ReplicaStateMachine(StateMachineOptions options);
  Status open_database();
  // Installs the verified copy at `copy_path` as the live file.
  Status install(const std::string& copy_path, uint64_t applied_index);
  // install()'s steps, with install_mu_ held: close, copy over, reopen.
  Status replace_database(const std::string& copy_path, uint64_t applied_index);
  // Makes sure dir/copies/<name> holds the copy the record names, fetching
  // it from `leader_address` when missing or damaged.
  Status obtain_copy(const SnapshotRecord& record, const std::string& leader_address);
  void prune_copies();

  StateMachineOptions options_;
  std::string db_path_;
  std::shared_mutex install_mu_;  // shared: views; exclusive: install
  std::unique_ptr<Database> db_;  // replaced only under install_mu_ held exclusively
  std::atomic<uint64_t> applied_index_{0};
  std::atomic<uint64_t> snapshot_index_{0};
  std::atomic<uint64_t> snapshots_taken_{0};
  std::atomic<uint64_t> snapshots_installed_{0};
  // Set at each open of the file (an install reopens it); read by writers.
  std::atomic<uint32_t> max_key_bytes_{0};
  std::atomic<uint64_t> max_value_bytes_{0};
};

}  // namespace ordo::replica
