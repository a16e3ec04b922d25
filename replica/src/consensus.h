// The seam between the replica and a Raft library.
//
// The replica implements StateMachine; the Raft side (raft_consensus.cc, the
// only file that sees the Raft library) implements Consensus and calls the
// StateMachine on its own thread, one call at a time, in log order. Another
// Raft library replaces raft_consensus.cc by implementing these two classes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster_identity.h"
#include "ordo/byte_view.h"
#include "ordo/replica.h"
#include "ordo/status.h"

namespace ordo::replica {

// What StateMachine::apply made of one log entry.
struct ApplyOutcome {
  // true: the entry was not applied because of the environment (IOError,
  // Full, a damaged page): the Raft side applies it again later, before
  // any entry after it. false: the entry is done (the applied index
  // moved past it) and `status` is the proposer's result: ok, or a
  // deterministic failure every replica meets alike.
  bool retry = false;
  Status status;
  // With status ok and a batch that asked (WriteBatch::return_prev): the
  // values before its puts and dels, for the proposer (WriteResult::prev).
  std::vector<PrevValue> prev = {};
};

class StateMachine {
 public:
  virtual ~StateMachine() = default;
  // Applies the command entry at log `index` (entries come in index order;
  // an index at or below the applied index is skipped as done).
  virtual ApplyOutcome apply(uint64_t index, ByteView entry) = 0;
  // One entry of apply_batch; `outcome` is set when apply_batch succeeds.
  struct BatchEntry {
    uint64_t index;
    std::string entry;
    ApplyOutcome outcome = {};
  };
  // Applies `entries` (command entries, in index order) as
  // apply() would each, in one commit; a deterministic failure drops that
  // entry's changes alone. Ok: every entry is done, each with its outcome
  // (none with retry). An environment error: none of them is applied; apply()
  // them one at a time, which retries.
  virtual Status apply_batch(std::vector<BatchEntry>& entries) = 0;
  // A snapshot of the applied state as a small record (the Raft payload),
  // durable before it returns. Busy when none can be taken now (an install
  // is pending): the Raft side tries again at the next threshold.
  virtual Result<std::string> snapshot() = 0;
  // Brings the state to the snapshot `record`. `leader_address` is the Raft
  // address of the replica to fetch missing data from ("" when none is
  // known, e.g. at startup: a state behind the record then makes the
  // install pending, see install_pending). A fetch or install from the
  // leader that fails also leaves the install pending, and returns why:
  // the Raft side retries it (finish_install) until it succeeds.
  virtual Status restore(ByteView record, const std::string& leader_address) = 0;
  // Whether an install is pending: the state is behind what Raft counts
  // applied. It must be finished (finish_install) before the next apply;
  // meanwhile the replica must neither lead nor serve reads.
  virtual bool install_pending() const = 0;
  // Fetches the state from the first of `sources` (Raft addresses, tried in
  // order) that serves one at or past the pending record, and installs it.
  // Ok at once when nothing is pending.
  virtual Status finish_install(const std::vector<std::string>& sources) = 0;
};

// Raft-side view of the cluster, refreshed by the Raft thread.
struct ConsensusStatus {
  Role role = Role::kUnavailable;
  uint64_t term = 0;
  uint64_t leader_id = 0;
  std::string leader_address;
  uint64_t last_log_index = 0;
  uint64_t commit_index = 0;
  uint64_t last_applied = 0;  // Raft's: command, barrier and change entries
  std::vector<Member> members;
  ClusterId cluster_id;              // unknown until adopted (a joining replica)
  uint64_t refused_connections = 0;  // on the Raft port, since start
  // Log index of `members`; set before a membership change's completion.
  uint64_t configuration_index = 0;
  // "" while the Raft log's disk writes succeed; else the last failure.
  // Raft restarts itself in-process (from its files) about once a second
  // until a write succeeds again.
  std::string disk_error;
  // "" or, while Raft is down after a disk error, what its restart waits
  // for (room on the disk: the bytes needed and free).
  std::string disk_wait;
  uint64_t disk_errors = 0;        // failed Raft disk writes since start
  uint64_t raft_restarts = 0;      // in-process restarts after a disk error
  uint64_t log_entries = 0;        // entries in Raft's in-memory log
  uint64_t log_bytes = 0;          // their payload bytes
  uint64_t unapplied_bytes = 0;    // proposed here and not applied yet
  uint64_t proposals_refused = 0;  // refused over max_unapplied_bytes
};

struct ConsensusOptions {
  uint64_t id = 0;
  std::string address;            // Raft "IPv4:port"
  std::string raft_dir;           // the Raft log, term, vote and snapshot records
  std::vector<Member> bootstrap;  // used only when raft_dir holds no state
  uint32_t heartbeat_timeout_ms = 100;
  uint32_t election_timeout_ms = 1000;
  uint32_t snapshot_threshold = 8192;
  uint32_t snapshot_trailing = 4096;
  ClusterId cluster_id;        // unknown: adopted from the first member that connects
  std::string cluster_secret;  // empty: connections are not authenticated
  // Called on the Raft thread when the cluster id is adopted, to keep it.
  std::function<Status(const ClusterId&)> on_adopt_cluster_id;
  // Also snapshot once this many payload bytes were applied since the last
  // snapshot, and keep at most this many bytes of entries behind one.
  uint64_t snapshot_threshold_bytes = 64ull << 20;
  uint64_t snapshot_trailing_bytes = 16ull << 20;
  // The leader refuses a proposal while this many bytes it proposed are not
  // applied yet (Full, "too much unapplied data").
  uint64_t max_unapplied_bytes = 64ull << 20;
};

// Completion of a proposal or barrier: outcome, status, index and, on "not
// the leader", the leader known. Called once, on the Raft thread.
using WriteDone = std::function<void(WriteResult)>;
using ChangeDone = std::function<void(Status)>;

// Whether a proposal reached Raft, shared by its caller and the Raft
// thread: a caller that stops waiting withdraws a proposal still queued,
// whose outcome is then certainly "not done". Thread-safe.
class ProposalTicket {
 public:
  // Raft thread, before handing the entry to Raft: false when withdrawn.
  bool take() { return claim(kTaken); }
  // The caller: true when Raft never sees the entry; false once taken.
  bool withdraw() { return claim(kWithdrawn); }

 private:
  static constexpr int kQueued = 0;
  static constexpr int kTaken = 1;
  static constexpr int kWithdrawn = 2;
  bool claim(int to) {
    int queued = kQueued;
    return state_.compare_exchange_strong(queued, to) || state_.load() == to;
  }
  std::atomic<int> state_{kQueued};
};

// Thread-safe: every member may be called from any thread; requests are
// queued to the Raft thread. Completions run on the Raft thread and must
// not block on Consensus calls' results.
class Consensus {
 public:
  virtual ~Consensus() = default;  // stops if still running

  // Proposes `entry` as one command entry; done() gets kApplied with the
  // index once this replica applied it. A request refused before it
  // reached Raft (Raft restarting, the replica closing, `ticket`
  // withdrawn) ends kFailed with Busy "not proposed: ...".
  virtual void propose(std::string entry, WriteDone done,
                       std::shared_ptr<ProposalTicket> ticket = nullptr) = 0;
  // A barrier entry: done() once every entry before it is applied here.
  virtual void barrier(WriteDone done) = 0;
  // Adds `member` (as a spare, then assigns it the voter role once it
  // caught up). A member that does not catch up within `catch_up_ms` (a
  // catch-up round that long) is removed again: done() gets Busy("member N
  // did not catch up in T ms; not added").
  virtual void add_member(const Member& member, uint32_t catch_up_ms, ChangeDone done) = 0;
  virtual void remove_member(uint64_t id, ChangeDone done) = 0;
  // The leader says it removed this replica at or before log `index`: the
  // replica reports role kRemoved until a configuration past `index` holds
  // it again (kept in raft_dir across restarts).
  virtual void mark_removed(uint64_t index) = 0;
  virtual ConsensusStatus status() const = 0;
  // Stops Raft and joins its thread; pending completions fire with kUnknown
  // (or IOError "replica closing"). Idempotent.
  virtual void stop() = 0;
};

// The canonical Raft C library binding (raft_consensus.cc). Starts Raft at
// once: loads (or bootstraps) raft_dir, calls machine.restore for the newest
// snapshot, listens on options.address. `machine` must outlive the result.
Result<std::unique_ptr<Consensus>> start_raft_consensus(const ConsensusOptions& options,
                                                        StateMachine& machine);

}  // namespace ordo::replica
