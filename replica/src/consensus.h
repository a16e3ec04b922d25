// The seam between the replica and a Raft library.
//
// The replica implements StateMachine; the Raft side (raft_consensus.cc, the
// only file that sees the Raft library) implements Consensus and calls the
// StateMachine on its own thread, one call at a time, in log order. Another
// Raft library replaces raft_consensus.cc by implementing these two classes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ordo/byte_view.h"
#include "ordo/replica.h"
#include "ordo/status.h"

namespace ordo::replica {

// What StateMachine::apply made of one log entry.
struct ApplyOutcome {
  // true: the entry was not applied because of the environment (IOError,
  // Full, a damaged page): the Raft side must not advance past it and
  // applies it again later. false: the entry is done (the applied index
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
  // A snapshot of the applied state as a small record (the Raft payload),
  // durable before it returns. Busy when none can be taken now (an install
  // is pending): the Raft side tries again at the next threshold.
  virtual Result<std::string> snapshot() = 0;
  // Brings the state to the snapshot `record`. `leader_address` is the Raft
  // address of the replica to fetch missing data from ("" when none is
  // known, e.g. at startup: a state behind the record then makes the
  // install pending, see install_pending).
  virtual Status restore(ByteView record, const std::string& leader_address) = 0;
  // Whether an install is pending: it must be finished (finish_install)
  // before the next apply.
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
};

// Completion of a proposal or barrier: outcome, status, index and, on "not
// the leader", the leader known. Called once, on the Raft thread.
using WriteDone = std::function<void(WriteResult)>;
using ChangeDone = std::function<void(Status)>;

// Thread-safe: every member may be called from any thread; requests are
// queued to the Raft thread. Completions run on the Raft thread and must
// not block on Consensus calls' results.
class Consensus {
 public:
  virtual ~Consensus() = default;  // stops if still running

  // Proposes `entry` as one command entry; done() gets kApplied with the
  // index once this replica applied it.
  virtual void propose(std::string entry, WriteDone done) = 0;
  // A barrier entry: done() once every entry before it is applied here.
  virtual void barrier(WriteDone done) = 0;
  // Adds `member` (as a spare, then assigns it the voter role once it caught up).
  virtual void add_member(const Member& member, ChangeDone done) = 0;
  virtual void remove_member(uint64_t id, ChangeDone done) = 0;
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
