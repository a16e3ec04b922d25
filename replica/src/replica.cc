// Replica: options, the write and read paths and membership over a
// Consensus and the ReplicaStateMachine.
#include "ordo/replica.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include "cluster_identity.h"
#include "consensus.h"
#include "ordo/sys/address.h"
#include "ordo/sys/tls.h"
#include "raft_handshake.h"
#include "removed_notice.h"
#include "snapshot_server.h"
#include "state_machine.h"

namespace ordo::replica {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kIdFile = "replica-id";

// One result handed from the Raft thread to a waiting caller; the caller
// may give up first, so both hold it.
template <typename T>
class Handoff {
 public:
  // Notified after the lock is released: a waiter woken under it would
  // block on the mutex at once and be woken a second time.
  void set(T value) {
    {
      std::lock_guard lock(mu_);
      value_ = std::move(value);
    }
    cv_.notify_all();
  }
  // The value, or nullopt once `timeout` passed.
  std::optional<T> wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return value_.has_value(); });
    return value_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<T> value_;
};

WriteResult failed(Status status) {
  WriteResult r;
  r.outcome = Outcome::kFailed;
  r.status = std::move(status);
  return r;
}

// Timeouts a cluster can run with (the install-snapshot timeout is 5x the
// election timeout and must fit libraft's unsigned milliseconds).
constexpr uint32_t kMinHeartbeatMs = 10;
constexpr uint32_t kMaxHeartbeatMs = 60000;
constexpr uint32_t kMaxElectionMs = 600000;

Status validate_options(const ReplicaOptions& o) {
  if (o.id == 0) return Status::invalid_argument("replica id 0: ids start at 1");
  ORDO_RETURN_IF_ERROR(snapshot_address(o.address).status());
  if (o.dir.empty()) return Status::invalid_argument("empty data directory");
  if (o.db_options.read_only) {
    return Status::invalid_argument("db_options.read_only: a replica applies the log to its file");
  }
  if (o.heartbeat_timeout_ms < kMinHeartbeatMs || o.heartbeat_timeout_ms > kMaxHeartbeatMs) {
    return Status::invalid_argument(
        "heartbeat_timeout_ms " + std::to_string(o.heartbeat_timeout_ms) + " is outside " +
        std::to_string(kMinHeartbeatMs) + ".." + std::to_string(kMaxHeartbeatMs));
  }
  if (o.election_timeout_ms < 2 * o.heartbeat_timeout_ms) {
    return Status::invalid_argument("election_timeout_ms " + std::to_string(o.election_timeout_ms) +
                                    " is below twice heartbeat_timeout_ms");
  }
  if (o.election_timeout_ms > kMaxElectionMs) {
    return Status::invalid_argument("election_timeout_ms " + std::to_string(o.election_timeout_ms) +
                                    " is over " + std::to_string(kMaxElectionMs));
  }
  if (o.snapshot_threshold == 0) return Status::invalid_argument("snapshot_threshold is 0");
  if (!o.cluster_secret.empty() && o.cluster_secret.size() < kMinSecretBytes) {
    return Status::invalid_argument("cluster secret of " + std::to_string(o.cluster_secret.size()) +
                                    " bytes: at least " + std::to_string(kMinSecretBytes) +
                                    " are needed");
  }
  if (o.snapshot_threshold_bytes == 0) {
    return Status::invalid_argument("snapshot_threshold_bytes is 0");
  }
  if (o.max_unapplied_bytes == 0) return Status::invalid_argument("max_unapplied_bytes is 0");
  if (!o.bootstrap.empty()) {
    bool self = false;
    for (const Member& m : o.bootstrap) {
      if (m.id == 0) return Status::invalid_argument("bootstrap member with id 0");
      // Its snapshot port is its Raft port + 1 (so not 65535).
      ORDO_RETURN_IF_ERROR(snapshot_address(m.address).status().with_context("bootstrap member " +
                                                                             std::to_string(m.id)));
      if (m.id == o.id) {
        self = true;
        if (!m.voter) {
          return Status::invalid_argument("the bootstrap list makes replica " +
                                          std::to_string(o.id) +
                                          " a non-voter: a new cluster needs it to vote");
        }
        if (m.address != o.address) {
          return Status::invalid_argument("bootstrap lists replica " + std::to_string(o.id) +
                                          " at " + m.address + ", not " + o.address);
        }
      }
    }
    if (!self) {
      return Status::invalid_argument("the bootstrap list does not hold replica " +
                                      std::to_string(o.id));
    }
  }
  return Status::ok();
}

// dir/replica-id holds the id of the replica the directory belongs to.
Status claim_dir(const std::string& dir, uint64_t id) {
  const std::string path = dir + "/" + std::string(kIdFile);
  std::ifstream in(path);
  if (in) {
    uint64_t owner = 0;
    in >> owner;
    if (owner != id) {
      return Status::invalid_argument("data directory " + dir + " belongs to replica " +
                                      std::to_string(owner) + ", not " + std::to_string(id));
    }
    return Status::ok();
  }
  std::ofstream out(path);
  out << id << "\n";
  out.close();
  if (!out) return Status::io_error("write " + path, errno);
  return Status::ok();
}

// libraft keeps its term and vote in metadata1/metadata2: a directory with
// either has been bootstrapped or joined.
bool has_raft_state(const std::string& raft_dir) {
  std::error_code ec;
  return fs::exists(raft_dir + "/metadata1", ec) || fs::exists(raft_dir + "/metadata2", ec);
}

}  // namespace

class ReplicaImpl {
 public:
  ReplicaImpl(const ReplicaOptions& options) : options_(options), ids_(options.id % 1024) {}
  ~ReplicaImpl() {
    if (machine_) machine_->history().close();
    if (consensus_) consensus_->stop();
    // The server's removal notices reach the consensus: it goes first.
    server_.reset();
    consensus_raw_.store(nullptr);
    consensus_.reset();
  }

  Status open() {
    ORDO_RETURN_IF_ERROR(validate_options(options_));
    std::error_code ec;
    fs::create_directories(options_.dir + "/" + std::string(kRaftDir), ec);
    if (ec) return Status::io_error("create " + options_.dir + ": " + ec.message(), ec.value());
    ORDO_RETURN_IF_ERROR(claim_dir(options_.dir, options_.id));
    const std::string raft_dir = options_.dir + "/" + std::string(kRaftDir);
    ORDO_ASSIGN_OR_RETURN(
        const ClusterId cluster_id,
        settle_cluster_id(options_, has_raft_state(raft_dir), [this](const std::string& line) {
          std::fprintf(stderr, "ordo replica %llu: %s\n",
                       static_cast<unsigned long long>(options_.id), line.c_str());
        }));
    {
      std::lock_guard lock(cluster_mu_);
      cluster_id_ = cluster_id;
    }
    const ClusterIdSource current_id = [this] {
      std::lock_guard lock(cluster_mu_);
      return cluster_id_;
    };

    // The snapshot port's TLS: the same files serve and fetch.
    std::shared_ptr<const sys::TlsContext> serve_tls;
    StateMachineOptions sm_options;
    const ReplicaOptions::SnapshotTls& t = options_.snapshot_tls;
    if (!t.cert_file.empty() || !t.key_file.empty() || !t.ca_file.empty()) {
      sys::TlsConfig config;
      config.cert_file = t.cert_file;
      config.key_file = t.key_file;
      config.ca_file = t.ca_file;
      config.allowed_peer_names = t.allowed_peer_names;
      ORDO_ASSIGN_OR_RETURN(serve_tls, sys::TlsContext::create(config, sys::TlsRole::kServer));
      ORDO_ASSIGN_OR_RETURN(sm_options.fetch_tls,
                            sys::TlsContext::create(config, sys::TlsRole::kClient));
    }
    fetch_tls_ = sm_options.fetch_tls;
    sm_options.dir = options_.dir;
    sm_options.db_options = options_.db_options;
    sm_options.watch_history_bytes = options_.watch_history_bytes;
    sm_options.cluster_id = current_id;
    ORDO_ASSIGN_OR_RETURN(machine_, ReplicaStateMachine::open(sm_options));

    ORDO_ASSIGN_OR_RETURN(std::string snap, snapshot_address(options_.address));
    ORDO_ASSIGN_OR_RETURN(sys::HostPort snap_at, sys::parse_address(snap));
    ReplicaStateMachine* machine = machine_.get();
    ORDO_ASSIGN_OR_RETURN(
        server_, SnapshotServer::start(
                     snap_at, machine_->copies_dir(),
                     [machine](int fd) { return machine->make_copy(fd); }, current_id, serve_tls,
                     [this, current_id](std::string_view line) {
                       Result<RemovedNotice> notice =
                           parse_removed_notice(line, current_id(), options_.cluster_secret);
                       if (!notice.is_ok()) {
                         std::fprintf(stderr, "ordo replica %llu: %s\n",
                                      static_cast<unsigned long long>(options_.id),
                                      notice.status().message().c_str());
                         return;
                       }
                       Consensus* c = consensus_raw_.load();
                       if (notice->id == options_.id && c != nullptr) {
                         c->mark_removed(notice->index);
                       }
                     }));

    ConsensusOptions c;
    c.id = options_.id;
    c.address = options_.address;
    c.raft_dir = options_.dir + "/" + std::string(kRaftDir);
    if (options_.initial_cluster_state == ReplicaOptions::InitialClusterState::kNew) {
      c.bootstrap = options_.bootstrap;
    }
    c.heartbeat_timeout_ms = options_.heartbeat_timeout_ms;
    c.election_timeout_ms = options_.election_timeout_ms;
    c.snapshot_threshold = options_.snapshot_threshold;
    c.snapshot_trailing = options_.snapshot_trailing;
    c.cluster_id = cluster_id;
    c.cluster_secret = options_.cluster_secret;
    c.on_adopt_cluster_id = [this](const ClusterId& id) {
      ORDO_RETURN_IF_ERROR(write_cluster_file(options_.dir, ClusterFile{id, ""}));
      std::lock_guard lock(cluster_mu_);
      cluster_id_ = id;
      return Status::ok();
    };
    c.snapshot_threshold_bytes = options_.snapshot_threshold_bytes;
    c.snapshot_trailing_bytes = options_.snapshot_trailing_bytes;
    c.max_unapplied_bytes = options_.max_unapplied_bytes;
    ORDO_ASSIGN_OR_RETURN(consensus_, start_raft_consensus(c, *machine_));
    consensus_raw_.store(consensus_.get());
    return Status::ok();
  }

  Status validate_batch(const WriteBatch& batch) const {
    if (batch.empty()) return Status::invalid_argument("empty write batch");
    const uint32_t max_key = machine_->max_key_bytes();
    for (size_t i = 0; i < batch.ops().size(); ++i) {
      const WriteBatch::Op& op = batch.ops()[i];
      const std::string at = "op " + std::to_string(i) + ": ";
      if (op.tree == kSystemTree) {
        return Status::invalid_argument(at + "tree " + std::string(kSystemTree) + " is reserved");
      }
      if (op.tree.size() > max_key) {
        return Status::invalid_argument(at + "tree name of " + std::to_string(op.tree.size()) +
                                        " bytes (limit " + std::to_string(max_key) + ")");
      }
      if ((op.kind == WriteBatch::OpKind::kCreateTree ||
           op.kind == WriteBatch::OpKind::kDropTree) &&
          op.tree.empty()) {
        return Status::invalid_argument(at + "the default tree cannot be created or dropped");
      }
      if (op.key.size() > max_key) {
        return Status::invalid_argument(at + "key of " + std::to_string(op.key.size()) +
                                        " bytes (limit " + std::to_string(max_key) + ")");
      }
      if (op.value.size() > machine_->max_value_bytes()) {
        return Status::invalid_argument(at + "value of " + std::to_string(op.value.size()) +
                                        " bytes (limit " +
                                        std::to_string(machine_->max_value_bytes()) + ")");
      }
    }
    return Status::ok();
  }

  static Status removed() {
    return Status::io_error("removed from the cluster: this replica serves no reads or writes", 0);
  }

  WriteResult write(const WriteBatch& batch, std::chrono::milliseconds timeout) {
    Status valid = validate_batch(batch);
    if (!valid.is_ok()) return failed(valid);
    if (consensus_->status().role == Role::kRemoved) return failed(removed());
    auto handoff = std::make_shared<Handoff<WriteResult>>();
    auto ticket = std::make_shared<ProposalTicket>();
    consensus_->propose(
        batch.encode(), [handoff](WriteResult r) { handoff->set(std::move(r)); }, ticket);
    std::optional<WriteResult> r = handoff->wait(timeout);
    if (!r && ticket->withdraw()) {
      // The Raft thread was busy (a snapshot fetch) and never took it.
      return failed(Status::busy("not proposed: Raft did not take the write within the timeout"));
    }
    if (!r) {
      WriteResult timed_out;
      timed_out.outcome = Outcome::kUnknown;
      timed_out.status = Status::io_error("timed out", ETIMEDOUT);
      return timed_out;
    }
    return std::move(*r);
  }

  Result<ReadView> read(ReadMode mode, std::chrono::milliseconds timeout) {
    // Its state stops at its removal: stale for good.
    if (consensus_->status().role == Role::kRemoved) return removed();
    if (const uint64_t pending = machine_->pending_index(); pending != 0) {
      // Its file lacks entries Raft counts applied: any read could miss
      // acknowledged writes. Busy: ordo-node sends the client elsewhere.
      return Status::busy("this replica's state is behind its log (a snapshot install up to " +
                          std::to_string(pending) + " is pending); read from another member");
    }
    if (mode == ReadMode::kLinearizable) {
      ConsensusStatus st = consensus_->status();
      if (st.role != Role::kLeader) {
        return Status::busy("not the leader; leader is " +
                            (st.leader_id == 0
                                 ? std::string("unknown")
                                 : std::to_string(st.leader_id) + " at " + st.leader_address));
      }
      auto handoff = std::make_shared<Handoff<WriteResult>>();
      consensus_->barrier([handoff](WriteResult r) { handoff->set(std::move(r)); });
      std::optional<WriteResult> r = handoff->wait(timeout);
      if (!r) return Status::io_error("timed out", ETIMEDOUT);
      if (r->outcome != Outcome::kApplied) return r->status;
    }
    ORDO_ASSIGN_OR_RETURN(ReplicaStateMachine::View view, machine_->begin_view());
    return ReadView(std::move(view.lock), std::move(view.txn), view.applied_index);
  }

  Status change(bool add, const Member& member, std::chrono::milliseconds timeout) {
    auto handoff = std::make_shared<Handoff<Status>>();
    auto done = [handoff](Status s) { handoff->set(std::move(s)); };
    if (add) {
      // Catching up gets three quarters of the time; the rest is for
      // committing the entries (and removing a member that did not).
      const auto catch_up = std::clamp<std::chrono::milliseconds>(
          timeout * 3 / 4, std::chrono::milliseconds(2 * options_.heartbeat_timeout_ms),
          std::chrono::hours(1));
      consensus_->add_member(member, static_cast<uint32_t>(catch_up.count()), done);
    } else {
      consensus_->remove_member(member.id, done);
    }
    std::optional<Status> s = handoff->wait(timeout);
    if (!s) return Status::io_error("timed out", ETIMEDOUT);
    return *s;
  }

  Status add_member(const Member& member, std::chrono::milliseconds timeout) {
    if (member.id == 0) return Status::invalid_argument("member id 0: ids start at 1");
    ORDO_RETURN_IF_ERROR(snapshot_address(member.address).status());
    return change(true, member, timeout);
  }

  Status remove_member(uint64_t id, std::chrono::milliseconds timeout) {
    if (id == 0) return Status::invalid_argument("member id 0: ids start at 1");
    std::string address;
    for (const Member& m : consensus_->status().members) {
      if (m.id == id) address = m.address;
    }
    ORDO_RETURN_IF_ERROR(change(false, Member{id, {}, true}, timeout));
    // libraft sends the removed member nothing more: tell it, so that it
    // stops serving its state. Best effort: a member that is down learns
    // nothing (stop it).
    Result<std::string> snap = snapshot_address(address);
    Result<sys::HostPort> to =
        snap.is_ok() ? sys::parse_address(*snap) : Result<sys::HostPort>(snap.status());
    if (id != options_.id && to.is_ok()) {
      ClusterId own;
      {
        std::lock_guard lock(cluster_mu_);
        own = cluster_id_;
      }
      RemovedNotice notice{id, consensus_->status().configuration_index, own};
      Status s = send_removed_notice(*to, notice, options_.cluster_secret, std::chrono::seconds(1),
                                     fetch_tls_.get());
      if (!s.is_ok()) {
        std::fprintf(stderr, "ordo replica %llu: %s\n",
                     static_cast<unsigned long long>(options_.id), s.to_string().c_str());
      }
    }
    return Status::ok();
  }

  ReplicaStatus status() const {
    ConsensusStatus c = consensus_->status();
    ReplicaStatus s;
    s.id = options_.id;
    s.address = options_.address;
    s.role = c.role;
    s.term = c.term;
    s.leader_id = c.leader_id;
    s.leader_address = c.leader_address;
    s.last_log_index = c.last_log_index;
    s.applied_index = machine_->applied_index();
    s.snapshot_index = machine_->snapshot_index();
    s.snapshots_taken = machine_->snapshots_taken();
    s.snapshots_installed = machine_->snapshots_installed();
    s.install_pending_index = machine_->pending_index();
    s.install_error = machine_->install_error();
    s.install_failures = machine_->install_failures();
    s.apply_error = machine_->apply_error();
    s.disk_error = c.disk_error;
    s.disk_wait = c.disk_wait;
    s.disk_errors = c.disk_errors;
    s.raft_restarts = c.raft_restarts;
    s.raft_log_entries = c.log_entries;
    s.raft_log_bytes = c.log_bytes;
    s.unapplied_bytes = c.unapplied_bytes;
    s.proposals_refused = c.proposals_refused;
    s.members = std::move(c.members);
    s.cluster_id = c.cluster_id.hex();
    s.raft_refused_connections = c.refused_connections;
    return s;
  }

  Status wait_ready(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto left = [&] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
    };
    // A leader known ...
    ConsensusStatus st = consensus_->status();
    while (st.leader_id == 0) {
      if (left().count() <= 0) return Status::io_error("timed out: no leader known", ETIMEDOUT);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      st = consensus_->status();
    }
    if (st.role == Role::kLeader) {
      // The leader's own commit index covers earlier terms' entries once an
      // entry of its term commits: a barrier.
      Result<ReadView> view = read(ReadMode::kLinearizable, left());
      return view.status();
    }
    // ... and a follower applied what the leader's heartbeats say is
    // committed: sampled after two heartbeats, so it is the leader's value
    // at the time of the call or later.
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * options_.heartbeat_timeout_ms));
    const uint64_t target = consensus_->status().commit_index;
    while (consensus_->status().last_applied < target) {
      if (left().count() <= 0) return Status::io_error("timed out catching up", ETIMEDOUT);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return Status::ok();
  }

  Id64 next_id64() { return ids_.next(); }

  Result<WatchResult> watch(const std::string* tree, uint64_t from_index, uint32_t from_offset,
                            size_t max_changes, size_t max_bytes, std::chrono::milliseconds wait) {
    return machine_->history().read(tree, from_index, from_offset, max_changes, max_bytes, wait);
  }

 private:
  const ReplicaOptions options_;
  // The cluster id: settled at open, or adopted later on the Raft thread.
  mutable std::mutex cluster_mu_;
  ClusterId cluster_id_;  // guarded by cluster_mu_
  Id64Generator ids_;
  std::unique_ptr<ReplicaStateMachine> machine_;
  std::unique_ptr<SnapshotServer> server_;
  // The snapshot port's client TLS context (null: plaintext), also for removal notices.
  std::shared_ptr<const sys::TlsContext> fetch_tls_;
  std::unique_ptr<Consensus> consensus_;
  std::atomic<Consensus*> consensus_raw_{nullptr};  // for the server's thread
};

// ---- ReadView ----

ReadView::ReadView(std::shared_lock<std::shared_mutex> lock, ReadTxn txn, uint64_t applied_index)
    : lock_(std::move(lock)), txn_(std::move(txn)), applied_index_(applied_index) {}
ReadView::ReadView(ReadView&& other) noexcept = default;
ReadView& ReadView::operator=(ReadView&& other) noexcept {
  // The txn ends before the lock it relies on is released.
  txn_ = std::move(other.txn_);
  lock_ = std::move(other.lock_);
  applied_index_ = other.applied_index_;
  return *this;
}
ReadView::~ReadView() { txn_.abort(); }

Result<std::string> ReadView::get(std::string_view tree, ByteView key) {
  Tree handle = txn_.default_tree();
  if (!tree.empty()) {
    ORDO_ASSIGN_OR_RETURN(handle, txn_.open_tree(tree));
  }
  ORDO_ASSIGN_OR_RETURN(ByteView value, txn_.get(handle, key));
  return value.str();
}

// ---- Replica ----

Result<std::unique_ptr<Replica>> Replica::open(const ReplicaOptions& options) {
  auto impl = std::make_unique<ReplicaImpl>(options);
  ORDO_RETURN_IF_ERROR(impl->open());
  return std::unique_ptr<Replica>(new Replica(std::move(impl)));
}

Replica::Replica(std::unique_ptr<ReplicaImpl> impl) : impl_(std::move(impl)) {}
Replica::~Replica() = default;

WriteResult Replica::write(const WriteBatch& batch, std::chrono::milliseconds timeout) {
  return impl_->write(batch, timeout);
}
Id64 Replica::next_id64() { return impl_->next_id64(); }
Result<ReadView> Replica::read(ReadMode mode, std::chrono::milliseconds timeout) {
  return impl_->read(mode, timeout);
}
Status Replica::add_member(const Member& member, std::chrono::milliseconds timeout) {
  return impl_->add_member(member, timeout);
}
Status Replica::remove_member(uint64_t id, std::chrono::milliseconds timeout) {
  return impl_->remove_member(id, timeout);
}
ReplicaStatus Replica::status() const { return impl_->status(); }
Result<WatchResult> Replica::watch(const std::string* tree, uint64_t from_index,
                                   uint32_t from_offset, size_t max_changes, size_t max_bytes,
                                   std::chrono::milliseconds wait) {
  return impl_->watch(tree, from_index, from_offset, max_changes, max_bytes, wait);
}
Status Replica::wait_ready(std::chrono::milliseconds timeout) { return impl_->wait_ready(timeout); }

}  // namespace ordo::replica
