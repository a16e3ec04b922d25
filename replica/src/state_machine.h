// The replicated state: the ordo file, the entries applied to it, its
// snapshots (an fdatasync and a record of the applied index) and their
// install (a copy fetched from another replica).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "consensus.h"
#include "ordo/database.h"
#include "ordo/sys/tls.h"
#include "snapshot_record.h"
#include "watch_history.h"

namespace ordo::replica {

struct StateMachineOptions {
  std::string dir;     // the replica's data directory
  Options db_options;  // sync_commits is forced off
  std::chrono::milliseconds fetch_timeout{10000};
  size_t watch_history_bytes = size_t{64} << 20;     // ReplicaOptions::watch_history_bytes
  std::shared_ptr<const sys::TlsContext> fetch_tls;  // client context; null: plaintext
  // The replica's cluster id, carried in snapshot records and copy requests
  // (empty, or an unknown id: none is checked).
  ClusterIdSource cluster_id;
};

// Thread-safety: apply, snapshot, restore and finish_install run on the Raft
// thread only; begin_view, make_copy, applied_index and the counters from
// any thread.
class ReplicaStateMachine final : public StateMachine {
 public:
  // Opens (creates) dir/data.ordo and dir/copies (emptied: it holds only
  // copies in transit).
  static Result<std::unique_ptr<ReplicaStateMachine>> open(const StateMachineOptions& options);
  ~ReplicaStateMachine() override;

  ApplyOutcome apply(uint64_t index, ByteView entry) override;
  Status apply_batch(std::vector<BatchEntry>& entries) override;
  Result<std::string> snapshot() override;
  Status restore(ByteView record, const std::string& leader_address) override;
  bool install_pending() const override { return pending_index_.load() != 0; }
  // The applied index a pending install must reach (0: none pending).
  uint64_t pending_index() const { return pending_index_.load(); }
  // The last failed fetch or install ("" once one succeeded), and how many
  // failed since open.
  std::string install_error() const;
  uint64_t install_failures() const { return install_failures_.load(); }
  Status finish_install(const std::vector<std::string>& sources) override;

  // A consistent copy of the last commit written to `fd` (see CopyMaker in
  // snapshot_server.h); returns the applied index it holds. Holds off an
  // install meanwhile.
  Result<uint64_t> make_copy(int fd);

  // A read txn with the shared lock that keeps an install out.
  struct View {
    std::shared_lock<std::shared_mutex> lock;
    ReadTxn txn;
    uint64_t applied_index;
  };
  Result<View> begin_view();

  uint64_t applied_index() const { return applied_index_.load(); }
  // The environment error of the last apply that could not be done ("" once
  // an apply succeeds again).
  std::string apply_error() const;
  uint64_t snapshot_index() const { return snapshot_index_.load(); }
  uint64_t snapshots_taken() const { return snapshots_taken_.load(); }
  uint64_t snapshots_installed() const { return snapshots_installed_.load(); }
  // Database limits (fixed for the file's page size).
  uint32_t max_key_bytes() const { return max_key_bytes_.load(); }
  uint64_t max_value_bytes() const { return max_value_bytes_.load(); }

  std::string copies_dir() const;

  // The committed changes (Replica::watch).
  WatchHistory& history() { return history_; }

 private:
  explicit ReplicaStateMachine(StateMachineOptions options);
  Status open_database();
  // Closes and opens the file again (under install_mu_ held exclusively):
  // a commit that failed with IOError leaves the handle refusing writes.
  Status reopen_database();
  ApplyOutcome apply_once(uint64_t index, ByteView entry);
  // An apply succeeded: clears the last apply error (saying so on stderr).
  void note_apply_resumed(uint64_t index);
  ClusterId own_cluster_id() const {
    return options_.cluster_id ? options_.cluster_id() : ClusterId();
  }
  void close_database();
  // Fetches a copy from the snapshot server of the replica at Raft address
  // `source`, requires its applied index >= `min_index`, verifies it and
  // installs it as the live file.
  Status fetch_and_install(const std::string& source, uint64_t min_index);
  void note_install_failed(const Status& why);
  void note_install_done();
  // The install's steps, with install_mu_ held: close, rename over, reopen.
  Status replace_database(const std::string& copy_path, uint64_t applied_index);

  StateMachineOptions options_;
  std::string db_path_;
  std::shared_mutex install_mu_;  // shared: views and copies; exclusive: install
  std::unique_ptr<Database> db_;  // replaced only under install_mu_ held exclusively
  int sync_fd_ = -1;              // read-only descriptor of the file, for fdatasync
  std::atomic<uint64_t> applied_index_{0};
  mutable std::mutex apply_error_mu_;
  std::string apply_error_;  // guarded by apply_error_mu_
  std::atomic<uint64_t> snapshot_index_{0};
  // The record index an install must reach before the next apply; 0: none.
  std::atomic<uint64_t> pending_index_{0};
  std::atomic<uint64_t> snapshots_taken_{0};
  std::atomic<uint64_t> snapshots_installed_{0};
  std::atomic<uint64_t> install_failures_{0};
  mutable std::mutex install_error_mu_;
  std::string install_error_;  // guarded by install_error_mu_
  // Set at each open of the file (an install reopens it); read by writers.
  std::atomic<uint32_t> max_key_bytes_{0};
  std::atomic<uint64_t> max_value_bytes_{0};
  WatchHistory history_;
};

}  // namespace ordo::replica
