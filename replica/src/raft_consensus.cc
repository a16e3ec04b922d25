// Consensus over the canonical Raft C library (libraft 0.15) with its libuv
// I/O, on the transport of raft_transport.h (the cluster handshake in front
// of Raft), its messages sent through send_coalescer.h. With those two, the
// only file that includes raft.h.
//
// One libuv loop runs on a thread of its own. Callers' requests are queued
// under mu_ and the loop is woken through an eventfd; every raft_* call,
// every StateMachine call and every completion happens on the loop thread.
// A 20 ms timer copies Raft's state into status_ for status().
//
// Disk errors: libraft 0.15 does not recover from a failed write of its log
// (a follower keeps the unwritten entries in memory, rejects them and never
// writes them again; io's "errored" flag is never read). Every disk call is
// watched (the raft_io methods are wrapped); on a failure, or when Raft went
// unavailable, the timer closes Raft and starts it again from its files on
// the same loop, at most once a second, until a write succeeds.
#include <uv.h>
// raft.h declares its API without extern "C".
extern "C" {
#include <raft.h>
#include <raft/uv.h>
}

#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "consensus.h"
#include "leader_contact.h"
#include "ordo/assert.h"
#include "ordo/base/errno_status.h"
#include "ordo/sys/log_rate.h"
#include "raft_transport.h"
#include "send_coalescer.h"

namespace ordo::replica {

namespace {

constexpr uint64_t kStatusRefreshMs = 20;
// How often a follower whose apply failed on the environment applies again.
constexpr uint64_t kApplyRetryMs = 200;
// A pending snapshot install is retried after this long, doubled after each
// failure up to the most.
constexpr auto kInstallRetryFirst = std::chrono::milliseconds(200);
constexpr auto kInstallRetryMost = std::chrono::milliseconds(5000);
// Raft restarts after a disk error at most this often.
constexpr auto kReopenInterval = std::chrono::seconds(1);
// libraft preallocates each open segment of its log, this size (its
// default, set here so that the figure is ours), before the first append
// after a start: a restart on a disk with less room fails again, so Raft
// waits for it. (Smaller segments on a nearly full disk lead libraft 0.15
// into closing a segment's writer twice, an abort.)
constexpr uint64_t kSegmentBytes = 8ull << 20;
constexpr uint64_t kRestartNeedsBytes = kSegmentBytes;
// A disk error is taken as cleared when Raft ran this long after a restart
// without another one (a replica with nothing to write sees no success).
constexpr auto kDiskErrorQuietPeriod = std::chrono::seconds(3);
// In raft_dir: written once this replica saw itself in a configuration, so
// that a configuration without it means it was removed (not: not added yet).
constexpr const char* kMemberMarker = "member";
// In raft_dir: the index of a removal notice (RaftConsensus::mark_removed).
constexpr const char* kRemovedMarker = "removed";

// libraft 0.15's raft_strerror does not know RAFT_NOSPACE.
std::string code_text(int rv) {
  return rv == RAFT_NOSPACE ? "no space left on device" : raft_strerror(rv);
}

Role role_of(int state) {
  switch (state) {
    case RAFT_FOLLOWER:
      return Role::kFollower;
    case RAFT_CANDIDATE:
      return Role::kCandidate;
    case RAFT_LEADER:
      return Role::kLeader;
    default:
      return Role::kUnavailable;
  }
}

// libraft 0.15's TCP transport sends entry payloads as they are but the
// receiver steps over each one rounded up to 8 bytes, so a payload must be a
// multiple of 8 bytes long. Each entry is framed: its length as 8 big-endian
// bytes, the bytes, zeros up to the next multiple of 8.
constexpr size_t kFrameHeader = 8;

size_t framed_size(size_t n) { return kFrameHeader + (n + 7) / 8 * 8; }

void frame(const std::string& entry, char* out) {
  uint64_t n = entry.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(n >> (56 - 8 * i));
  std::memcpy(out + kFrameHeader, entry.data(), entry.size());
  std::memset(out + kFrameHeader + entry.size(), 0,
              framed_size(entry.size()) - kFrameHeader - entry.size());
}

// The entry inside a frame; an empty view (which no batch decodes from)
// for a frame that does not hold together.
ByteView unframe(const raft_buffer& buf) {
  if (buf.len < kFrameHeader) return ByteView();
  const auto* p = static_cast<const unsigned char*>(buf.base);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n = (n << 8) | p[i];
  if (n > buf.len - kFrameHeader) return ByteView();
  return ByteView(p + kFrameHeader, static_cast<size_t>(n));
}

WriteResult unknown(const std::string& why) {
  WriteResult r;
  r.outcome = Outcome::kUnknown;
  r.status = Status::io_error(why, 0);
  return r;
}

// A request refused before it reached Raft: certainly not done, and another
// member may take it (Busy with no leader: ordo-node answers not-leader, and
// its clients try the next node).
WriteResult not_proposed(const std::string& why) {
  WriteResult r;
  r.outcome = Outcome::kFailed;
  r.status = Status::busy("not proposed: " + why);
  return r;
}

class RaftConsensus;

// One request in flight inside Raft; the raft_* struct comes first so that
// the callbacks get back to it.
struct ApplyRequest {
  struct raft_apply req {};
  RaftConsensus* self = nullptr;
  uint64_t bytes = 0;  // counted in unapplied_bytes_ until on_apply
  WriteDone done;
};
struct BarrierRequest {
  struct raft_barrier req {};
  RaftConsensus* self = nullptr;
  WriteDone done;
};
struct ChangeRequest {
  struct raft_change req {};
  RaftConsensus* self = nullptr;
  uint64_t id = 0;
  bool then_assign_voter = false;  // raft_add done: assign the voter role next
  uint32_t catch_up_ms = 0;        // the promotion's limit
  bool promoting = false;          // raft_assign in progress
  bool rolling_back = false;       // raft_remove of a member that did not catch up
  Status rollback_reason;
  ChangeDone done;
};

// The proposer's result for a command entry the state machine is done with.
WriteResult applied_result(uint64_t index, ApplyOutcome outcome) {
  ORDO_ASSERT(!outcome.retry);
  WriteResult r;
  r.index = index;
  r.outcome = outcome.status.is_ok() ? Outcome::kApplied : Outcome::kFailed;
  r.status = std::move(outcome.status);
  r.prev = std::move(outcome.prev);
  return r;
}

// Ends an apply or barrier request: frees it, then calls its completion
// (which may start another request).
template <typename Request>
void complete(Request* req, WriteResult result) {
  WriteDone done = std::move(req->done);
  delete req;
  done(std::move(result));
}

std::function<void()> change_fail(ChangeRequest* req) {
  return [req] {
    ChangeDone d = std::move(req->done);
    delete req;
    d(Status::io_error("replica closing", 0));
  };
}

class RaftConsensus final : public Consensus {
 public:
  RaftConsensus(const ConsensusOptions& options, StateMachine& machine)
      : options_(options), machine_(machine) {}
  ~RaftConsensus() override {
    stop();
    if (wake_fd_ >= 0) ::close(wake_fd_);
  }

  Status start();

  void propose(std::string entry, WriteDone done,
               std::shared_ptr<ProposalTicket> ticket = nullptr) override;
  void barrier(WriteDone done) override;
  void add_member(const Member& member, uint32_t catch_up_ms, ChangeDone done) override;
  void remove_member(uint64_t id, ChangeDone done) override;
  void mark_removed(uint64_t index) override;
  ConsensusStatus status() const override {
    ConsensusStatus s;
    {
      std::lock_guard lock(mu_);
      s = status_;
    }
    // The transport lives on the loop thread; its two figures are atomics.
    if (const RaftTransport* t = live_transport_.load()) {
      s.cluster_id = t->cluster_id();
      s.refused_connections = refused_before_.load() + t->refused_connections();
    }
    return s;
  }
  void stop() override;

 private:
  // Runs `task` on the loop thread, or `rejected` with the reason: on the
  // caller's thread when the loop no longer takes requests ("replica
  // closing"), on the loop thread while Raft is down after a disk error.
  using Rejected = std::function<void(const std::string& why)>;
  void post(std::function<void()> task, Rejected rejected);
  void refresh_status();
  // Makes the transport, the I/O and the Raft instance and starts Raft from
  // raft_dir (bootstrapping it first when `first`). On failure what was made
  // is closed: at once before raft_init, else through raft_close (state
  // kClosing until on_raft_closed).
  Status open_raft(bool first);
  void close_handles();
  // Timer: restarts Raft after a disk error or when it went unavailable,
  // once raft_dir has room for it (else disk_wait_ says what it waits for).
  void maybe_reopen();
  // Bytes free for an unprivileged writer on raft_dir's file system
  // (IOError when statvfs fails).
  Result<uint64_t> raft_dir_free_bytes() const;
  // raft_close, then maybe_reopen starts Raft again (loop thread, Raft up).
  void close_for_restart();
  void disk_failed(const char* what, int rv);
  void disk_ok();
  // Loop thread: bytes of the in-memory log's entries (all, or the newest
  // entries up to `index` within `budget_bytes`: how many).
  uint64_t log_bytes(uint64_t* entries) const;
  unsigned trailing_within(uint64_t index, uint64_t budget_bytes, unsigned max_entries) const;
  bool removed_from_configuration();
  void retry_stalled_apply();
  // Timer: while the state machine is behind Raft (an install pending),
  // fetches a copy again with backoff, and hands leadership to another
  // voter should this replica lead meanwhile.
  void retry_install();
  static void on_transfer(struct raft_transfer* req);
  // Applies the kept entries in order, each with apply(); stops at the first
  // that fails (reported) and keeps it and those after it. `applied`, when
  // given, receives each applied entry's index and outcome. True once none
  // is left.
  bool drain_deferred(
      const std::function<void(uint64_t index, ApplyOutcome outcome)>& applied = nullptr);
  // A barrier's result once Raft counts every entry before it applied.
  WriteResult barrier_result(uint64_t index) const;
  // Applies the pending entries in one commit (one at a time after an
  // environment error, keeping what fails for the timer), then ends the
  // requests that waited for them. Runs at the end of each loop iteration
  // that applied entries, and before whatever needs the file to hold every
  // entry Raft counts applied (a snapshot, a restore, a close).
  void flush_applies();
  // From the loop's check and idle phases: the held messages, then
  // flush_applies.
  void send_then_apply();
  static void on_flush_check(uv_check_t* handle);
  static void on_flush_idle(uv_idle_t* handle);
  // An entry Raft counts applied (kept or pending): its bytes toward the
  // next snapshot.
  void count_applied_bytes(uint64_t bytes);
  WriteResult not_leader(int rv);
  Status change_status(int rv, const char* what);
  void begin_close();
  // Raft addresses to fetch a pending install from: the leader, then the
  // other members (this replica may lead itself).
  std::vector<std::string> install_sources();
  void report(const char* what, const Status& s);
  void close_without_loop_thread();

  // Wakes the loop for queue_ (or a stop): a write to wake_fd_, made after
  // mu_ is released.
  void wake_loop();
  static void on_wake(uv_poll_t* handle, int status, int events);
  static void on_timer(uv_timer_t* handle);
  static void on_raft_closed(struct raft* r);
  static void on_apply(struct raft_apply* req, int status, void* result);
  static void on_barrier(struct raft_barrier* req, int status);
  static void on_change(struct raft_change* req, int status);
  static int fsm_apply(raft_fsm* fsm, const raft_buffer* buf, void** result);
  static int fsm_snapshot(raft_fsm* fsm, raft_buffer* bufs[], unsigned* n_bufs);
  static int fsm_snapshot_finalize(raft_fsm* fsm, raft_buffer* bufs[], unsigned* n_bufs);
  static int fsm_restore(raft_fsm* fsm, raft_buffer* buf);
  // Wrapped raft_io methods: each calls libuv's and notes a failure.
  static RaftConsensus* of_io(raft_io* io);
  static int io_append(raft_io* io, raft_io_append* req, const raft_entry entries[], unsigned n,
                       raft_io_append_cb cb);
  static int io_truncate(raft_io* io, raft_index index);
  static int io_snapshot_put(raft_io* io, unsigned trailing, raft_io_snapshot_put* req,
                             const raft_snapshot* snapshot, raft_io_snapshot_put_cb cb);
  static int io_set_term(raft_io* io, raft_term term);
  static int io_set_vote(raft_io* io, raft_id id);
  static int io_send(raft_io* io, raft_io_send* req, const raft_message* message,
                     raft_io_send_cb cb);
  // Raft's tick and receive callbacks pass through these (leader_contact.h).
  static int io_start(raft_io* io, unsigned msecs, raft_io_tick_cb tick, raft_io_recv_cb recv);
  static void io_close(raft_io* io, raft_io_close_cb cb);
  static void on_tick(raft_io* io);
  static void on_recv(raft_io* io, raft_message* message);
  // Loop thread: a peer closed its Raft connection to this replica.
  void peer_closed(uint64_t peer);
  // Loop thread: when the leader is gone (LeaderContact::campaign_due),
  // expires Raft's election timer so that its next tick starts an election.
  bool maybe_campaign();

  const ConsensusOptions options_;
  StateMachine& machine_;

  uv_loop_t loop_{};
  // The callers' wake-up: an eventfd the loop polls. Not uv_async_t: libuv
  // 1.44's async handle makes the woken loop spin, then yield, until the
  // sender's uv_async_send returns, and a loop thread woken on the
  // sender's core runs before the sender does.
  int wake_fd_ = -1;
  uv_poll_t wake_poll_{};
  uv_timer_t timer_{};
  uv_check_t flush_check_{};  // runs flush_applies after a loop iteration's applies
  uv_idle_t flush_idle_{};    // with it: no blocking poll while entries are pending
  // The transport given to raft_uv_init, one per Raft start (a restart after
  // a disk error makes a new one). The one before it is kept until the next
  // start: libraft may still close it after Raft's close callback.
  std::unique_ptr<RaftTransport> transport_;
  std::unique_ptr<RaftTransport> retired_transport_;
  std::atomic<const RaftTransport*> live_transport_{nullptr};
  std::atomic<uint64_t> refused_before_{0};  // refusals counted by retired transports
  ClusterId adopted_cluster_id_;             // loop thread: carried from one start to the next
  raft_io io_{};
  raft_fsm fsm_{};
  struct raft raft_ {};
  std::thread thread_;

  // libuv's raft_io methods that the io_* wrappers call.
  int (*uv_append_)(raft_io*, raft_io_append*, const raft_entry[], unsigned,
                    raft_io_append_cb) = nullptr;
  int (*uv_truncate_)(raft_io*, raft_index) = nullptr;
  int (*uv_snapshot_put_)(raft_io*, unsigned, raft_io_snapshot_put*, const raft_snapshot*,
                          raft_io_snapshot_put_cb) = nullptr;
  int (*uv_set_term_)(raft_io*, raft_term) = nullptr;
  int (*uv_set_vote_)(raft_io*, raft_id) = nullptr;
  int (*uv_send_)(raft_io*, raft_io_send*, const raft_message*, raft_io_send_cb) = nullptr;
  int (*uv_start_)(raft_io*, unsigned, raft_io_tick_cb, raft_io_recv_cb) = nullptr;
  void (*uv_close_)(raft_io*, raft_io_close_cb) = nullptr;
  // Every message goes out through it (send_coalescer.h); made with the loop.
  std::unique_ptr<SendCoalescer> coalescer_;
  raft_io_tick_cb raft_tick_ = nullptr;  // Raft's, given to io_start
  raft_io_recv_cb raft_recv_ = nullptr;

  struct Task {
    std::function<void()> run;
    Rejected rejected;
  };
  mutable std::mutex mu_;
  std::deque<Task> queue_;       // guarded by mu_
  bool accepting_ = false;       // guarded by mu_
  bool stop_requested_ = false;  // guarded by mu_
  ConsensusStatus status_;       // guarded by mu_
  std::mutex stop_mu_;           // one stop() at a time

  // Loop thread only.
  bool closing_ = false;
  // kUp: raft_ runs. kClosing: raft_close called. kDown: closed (io_ and
  // transport_ freed); maybe_reopen starts it again unless closing_.
  enum class RaftState { kUp, kClosing, kDown };
  RaftState raft_state_ = RaftState::kDown;
  bool reopen_wanted_ = false;  // a disk error: restart Raft at the next tick
  std::chrono::steady_clock::time_point last_open_{};
  std::string disk_error_;  // "" when none is outstanding
  std::string disk_wait_;   // "" or what a restart waits for (room on the disk)
  sys::RateLimitedLog restart_log_{std::chrono::seconds(5)};
  uint64_t disk_errors_ = 0;
  uint64_t raft_restarts_ = 0;
  uint64_t unapplied_bytes_ = 0;  // payload bytes proposed, not yet applied
  uint64_t proposals_refused_ = 0;
  uint64_t bytes_since_snapshot_ = 0;  // applied since the last snapshot
  // Entry bytes in AppendEntries sends not completed yet, per peer: a peer
  // that reads nothing (stopped) keeps them in memory (io_send).
  std::unordered_map<raft_id, uint64_t> send_bytes_;
  uint64_t sends_refused_ = 0;
  LeaderContact leader_contact_;
  bool was_member_ = false;  // kMemberMarker exists
  uint64_t removed_at_ = 0;  // a removal notice's index; 0: none
  // Committed entries this replica could not apply (IOError, Full), in log
  // order (a leader's only from a flush that met the error; fsm_apply
  // refuses the leader's next ones meanwhile): Raft counts them applied,
  // the timer applies them every
  // kApplyRetryMs, snapshots wait until none is left. Not bounded: Raft's
  // own log holds the same entries in memory until the next snapshot.
  struct Deferred {
    uint64_t index;
    std::string entry;
  };
  std::deque<Deferred> deferred_;
  // Committed entries Raft counts applied that wait for flush_applies, in
  // log order; empty whenever deferred_ is not (they would follow it).
  std::vector<StateMachine::BatchEntry> pending_;
  // Requests whose entry (or, for a barrier, every entry before it) is in
  // pending_: they end after the flush, once the file holds their entries.
  struct Waiting {
    uint64_t index;
    ApplyRequest* apply;      // a proposal's, or nullptr
    BarrierRequest* barrier;  // a barrier's, or nullptr
  };
  std::vector<Waiting> waiting_;
  uint64_t stalled_ticks_ = 0;
  // The next try of a pending install, and the wait after it fails.
  std::chrono::steady_clock::time_point next_install_try_{};
  std::chrono::milliseconds install_backoff_{0};
  struct raft_transfer transfer_ {};
  bool transferring_ = false;  // transfer_ is with Raft
  // The last failed restore, so that a start that fails in it says why.
  Status last_restore_status_;
  sys::RateLimitedLog report_log_;  // report()'s lines
  // Requests inside Raft, each with how to end it as unknown should Raft
  // never call back.
  std::unordered_map<void*, std::function<void()>> outstanding_;
};

Status RaftConsensus::start() {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return Status::io_error("eventfd", errno);
  int rv = uv_loop_init(&loop_);
  if (rv != 0) return Status::io_error(std::string("uv_loop_init: ") + uv_strerror(rv), -rv);
  uv_poll_init(&loop_, &wake_poll_, wake_fd_);
  wake_poll_.data = this;
  uv_poll_start(&wake_poll_, UV_READABLE, &RaftConsensus::on_wake);
  uv_timer_init(&loop_, &timer_);
  timer_.data = this;
  uv_check_init(&loop_, &flush_check_);
  flush_check_.data = this;
  uv_idle_init(&loop_, &flush_idle_);
  flush_idle_.data = this;
  coalescer_ = std::make_unique<SendCoalescer>(&loop_);
  was_member_ = ::access((options_.raft_dir + "/" + kMemberMarker).c_str(), F_OK) == 0;
  if (std::FILE* f = std::fopen((options_.raft_dir + "/" + kRemovedMarker).c_str(), "r")) {
    unsigned long long at = 0;
    if (std::fscanf(f, "%llu", &at) == 1) removed_at_ = at;
    std::fclose(f);
  }

  Status failed = open_raft(true);
  if (!failed.is_ok()) {
    closing_ = true;
    // After raft_init, on_raft_closed closes the handles.
    if (raft_state_ == RaftState::kDown) close_handles();
    close_without_loop_thread();
    return failed;
  }

  refresh_status();
  uv_timer_start(&timer_, &RaftConsensus::on_timer, kStatusRefreshMs, kStatusRefreshMs);
  {
    std::lock_guard lock(mu_);
    accepting_ = true;
  }
  thread_ = std::thread([this] {
    // libuv writes to peers with write(2): a peer that went away would
    // raise SIGPIPE and end the host process. Blocked on this thread, the
    // write fails with EPIPE instead, and the host's signal handling stays
    // as it is.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
  });
  return Status::ok();
}

void RaftConsensus::close_handles() {
  for (uv_handle_t* h :
       {reinterpret_cast<uv_handle_t*>(&wake_poll_), reinterpret_cast<uv_handle_t*>(&timer_),
        reinterpret_cast<uv_handle_t*>(&flush_check_),
        reinterpret_cast<uv_handle_t*>(&flush_idle_)}) {
    if (!uv_is_closing(h)) uv_close(h, nullptr);
  }
  coalescer_->close();
}

Status RaftConsensus::open_raft(bool first) {
  last_open_ = std::chrono::steady_clock::now();
  io_ = raft_io{};
  raft_ = raft{};
  RaftTransportOptions transport;
  transport.cluster_id = options_.cluster_id;
  if (transport_ != nullptr) {
    // A restart: the id adopted and the refusals counted so far carry over.
    if (transport_->cluster_id().known()) adopted_cluster_id_ = transport_->cluster_id();
    refused_before_.fetch_add(transport_->refused_connections());
    live_transport_.store(nullptr);
    retired_transport_ = std::move(transport_);
  }
  if (!transport.cluster_id.known()) transport.cluster_id = adopted_cluster_id_;
  transport.secret = options_.cluster_secret;
  transport.on_adopt = options_.on_adopt_cluster_id;
  transport.log_name = "ordo replica " + std::to_string(options_.id);
  transport.on_peer_closed = [this](uint64_t peer) { peer_closed(peer); };
  transport_ = make_raft_transport(&loop_, std::move(transport));
  live_transport_.store(transport_.get());
  int rv = raft_uv_init(&io_, &loop_, options_.raft_dir.c_str(), transport_->raw());
  if (rv != 0) {
    std::string why = std::string("raft_uv_init ") + options_.raft_dir + ": " + io_.errmsg;
    return Status::io_error(why, 0);
  }
  // The payload is a record of a few dozen bytes: nothing to compress.
  (void)raft_uv_set_snapshot_compression(&io_, false);
  raft_uv_set_segment_size(&io_, static_cast<size_t>(kSegmentBytes));
  uv_append_ = io_.append;
  uv_truncate_ = io_.truncate;
  uv_snapshot_put_ = io_.snapshot_put;
  uv_set_term_ = io_.set_term;
  uv_set_vote_ = io_.set_vote;
  uv_send_ = io_.send;
  uv_start_ = io_.start;
  uv_close_ = io_.close;
  coalescer_->attach(&io_, uv_send_);
  send_bytes_.clear();
  leader_contact_ = LeaderContact();
  transferring_ = false;  // a transfer ends with the Raft instance that made it
  io_.append = &RaftConsensus::io_append;
  io_.truncate = &RaftConsensus::io_truncate;
  io_.snapshot_put = &RaftConsensus::io_snapshot_put;
  io_.set_term = &RaftConsensus::io_set_term;
  io_.set_vote = &RaftConsensus::io_set_vote;
  io_.send = &RaftConsensus::io_send;
  io_.start = &RaftConsensus::io_start;
  io_.close = &RaftConsensus::io_close;

  fsm_.version = 2;
  fsm_.data = this;
  fsm_.apply = &RaftConsensus::fsm_apply;
  fsm_.snapshot = &RaftConsensus::fsm_snapshot;
  fsm_.snapshot_finalize = &RaftConsensus::fsm_snapshot_finalize;
  fsm_.restore = &RaftConsensus::fsm_restore;
  fsm_.snapshot_async = nullptr;

  rv = raft_init(&raft_, &io_, &fsm_, options_.id, options_.address.c_str());
  if (rv != 0) {
    std::string why = std::string("raft_init: ") + raft_errmsg(&raft_);
    raft_uv_close(&io_);
    return Status::io_error(why, 0);
  }
  raft_.data = this;
  raft_state_ = RaftState::kUp;

  Status failed;
  if (first && !options_.bootstrap.empty()) {
    raft_configuration conf;
    raft_configuration_init(&conf);
    for (const Member& m : options_.bootstrap) {
      rv = raft_configuration_add(&conf, m.id, m.address.c_str(),
                                  m.voter ? RAFT_VOTER : RAFT_STANDBY);
      if (rv != 0) {
        failed = Status::invalid_argument(std::string("bootstrap member ") + std::to_string(m.id) +
                                          ": " + raft_strerror(rv));
        break;
      }
    }
    if (failed.is_ok()) {
      rv = raft_bootstrap(&raft_, &conf);
      // RAFT_CANTBOOTSTRAP: the directory holds state already; start from it.
      if (rv != 0 && rv != RAFT_CANTBOOTSTRAP) {
        failed = Status::io_error(std::string("raft_bootstrap: ") + raft_errmsg(&raft_), 0);
      }
    }
    raft_configuration_close(&conf);
  }
  if (failed.is_ok()) {
    raft_set_heartbeat_timeout(&raft_, options_.heartbeat_timeout_ms);
    raft_set_election_timeout(&raft_, options_.election_timeout_ms);
    raft_set_snapshot_threshold(&raft_, options_.snapshot_threshold);
    raft_set_snapshot_trailing(&raft_, options_.snapshot_trailing);
    // The leader sends a snapshot to a follower again only after this long
    // (libraft's default is 30 s): a send to a follower that was down waits
    // that long before the next try.
    raft_set_install_snapshot_timeout(&raft_, 5 * options_.election_timeout_ms);
    // A replica coming back after a partition does not disrupt the leader.
    raft_set_pre_vote(&raft_, true);
    bytes_since_snapshot_ = 0;
    rv = raft_start(&raft_);
    if (rv != 0 && !last_restore_status_.is_ok()) {
      failed = last_restore_status_.with_context("restoring the newest snapshot");
    } else if (rv != 0) {
      const Status listen = transport_->listen_status();
      if (!listen.is_ok()) {
        // The transport's own record (errno EADDRINUSE for a port in use):
        // libraft 0.15 passes on only RAFT_IOERR and often no message.
        failed = listen.with_context("raft_start");
      } else {
        std::string msg = raft_strerror(rv);
        const std::string detail = raft_errmsg(&raft_);
        if (!detail.empty() && detail != msg) msg += " (" + detail + ")";
        failed = Status::io_error("raft_start on " + options_.address + ": " + msg, 0);
      }
    }
  }
  if (!failed.is_ok()) {
    raft_state_ = RaftState::kClosing;
    raft_close(&raft_, &RaftConsensus::on_raft_closed);
    return failed;
  }
  return Status::ok();
}

// Runs the loop on the calling thread until every handle closed.
void RaftConsensus::close_without_loop_thread() {
  uv_run(&loop_, UV_RUN_DEFAULT);
  (void)uv_loop_close(&loop_);
}

void RaftConsensus::post(std::function<void()> task, Rejected rejected) {
  bool wake = false;
  {
    std::unique_lock lock(mu_);
    if (!accepting_) {
      lock.unlock();
      rejected("replica closing");
      return;
    }
    // One wake-up per queue the loop has yet to take: whoever finds it
    // empty writes, after unlocking (the loop then does not wake into a
    // held mutex).
    wake = queue_.empty();
    queue_.push_back(Task{std::move(task), std::move(rejected)});
  }
  if (wake) wake_loop();
}

void RaftConsensus::wake_loop() {
  const uint64_t one = 1;
  // EAGAIN only when the counter is near 2^64: the loop is woken anyway.
  (void)!::write(wake_fd_, &one, sizeof one);
}

void RaftConsensus::on_wake(uv_poll_t* handle, int /*status*/, int /*events*/) {
  auto* self = static_cast<RaftConsensus*>(handle->data);
  uint64_t count = 0;
  (void)!::read(self->wake_fd_, &count, sizeof count);
  std::deque<Task> tasks;
  bool stop = false;
  {
    std::lock_guard lock(self->mu_);
    tasks.swap(self->queue_);
    stop = self->stop_requested_;
  }
  for (auto& task : tasks) {
    if (self->raft_state_ == RaftState::kUp) {
      task.run();
    } else {
      task.rejected("Raft is restarting after a disk error: " + self->disk_error_);
    }
  }
  if (stop) self->begin_close();
}

void RaftConsensus::on_timer(uv_timer_t* handle) {
  auto* self = static_cast<RaftConsensus*>(handle->data);
  self->maybe_reopen();
  if (self->raft_state_ != RaftState::kUp) {
    self->refresh_status();
    return;
  }
  self->refresh_status();
  self->retry_install();
  self->retry_stalled_apply();
}

void RaftConsensus::disk_failed(const char* what, int rv) {
  // Failures while Raft closes are its cancelled requests.
  if (closing_ || raft_state_ != RaftState::kUp || rv == RAFT_CANCELED) return;
  ++disk_errors_;
  std::string why = std::string(what) + ": " + code_text(rv);
  if (io_.errmsg[0] != '\0') why += " (" + std::string(io_.errmsg) + ")";
  if (disk_error_.empty()) {
    std::fprintf(stderr, "ordo replica %llu: Raft log disk error: %s; restarting Raft\n",
                 static_cast<unsigned long long>(options_.id), why.c_str());
  }
  disk_error_ = std::move(why);
  reopen_wanted_ = true;
}

void RaftConsensus::disk_ok() {
  if (disk_error_.empty() || raft_state_ != RaftState::kUp || reopen_wanted_) return;
  std::fprintf(stderr, "ordo replica %llu: Raft log disk error cleared\n",
               static_cast<unsigned long long>(options_.id));
  disk_error_.clear();
}

void RaftConsensus::close_for_restart() {
  flush_applies();
  reopen_wanted_ = false;
  raft_state_ = RaftState::kClosing;
  raft_close(&raft_, &RaftConsensus::on_raft_closed);
}

void RaftConsensus::maybe_reopen() {
  if (closing_) return;
  const auto now = std::chrono::steady_clock::now();
  if (raft_state_ == RaftState::kUp) {
    // Raft goes unavailable for good on errors it meets handling a message
    // or a tick (a failed term or vote write among them).
    if (!reopen_wanted_ && raft_state(&raft_) == RAFT_UNAVAILABLE) {
      ++disk_errors_;
      if (disk_error_.empty()) {
        disk_error_ = "Raft went unavailable";
        if (raft_errmsg(&raft_)[0] != '\0') disk_error_ += std::string(": ") + raft_errmsg(&raft_);
        std::fprintf(stderr, "ordo replica %llu: %s; restarting Raft\n",
                     static_cast<unsigned long long>(options_.id), disk_error_.c_str());
      }
      reopen_wanted_ = true;
    }
    if (!reopen_wanted_) {
      if (!disk_error_.empty() && now - last_open_ >= kDiskErrorQuietPeriod) disk_ok();
      return;
    }
    if (now - last_open_ < kReopenInterval) return;
    close_for_restart();
    return;
  }
  if (raft_state_ != RaftState::kDown || now - last_open_ < kReopenInterval) return;
  Result<uint64_t> free_bytes = raft_dir_free_bytes();
  if (free_bytes.is_ok() && *free_bytes < kRestartNeedsBytes) {
    // libraft would fail its first append again: wait for room.
    last_open_ = now;
    disk_wait_ = "room on the Raft log's disk: " + std::to_string(kRestartNeedsBytes) +
                 " bytes needed free in " + options_.raft_dir + ", " + std::to_string(*free_bytes) +
                 " free";
    (void)restart_log_.print("ordo replica " + std::to_string(options_.id) +
                             ": Raft waits to restart for " + disk_wait_);
    return;
  }
  disk_wait_.clear();
  (void)restart_log_.print("ordo replica " + std::to_string(options_.id) + ": restarting Raft (" +
                           (free_bytes.is_ok() ? std::to_string(*free_bytes) + " bytes free in " +
                                                     options_.raft_dir + ", " +
                                                     std::to_string(kRestartNeedsBytes) + " needed"
                                               : free_bytes.status().to_string()) +
                           ")");
  // Entries kept for a retried apply are in the log on disk: Raft applies
  // them again (the state machine skips the ones it holds).
  deferred_.clear();
  ++raft_restarts_;
  Status s = open_raft(false);
  if (!s.is_ok()) {
    report("Raft restart failed (retrying every second)", s);
    if (disk_error_.empty()) disk_error_ = s.to_string();
  }
}

Result<uint64_t> RaftConsensus::raft_dir_free_bytes() const {
  struct statvfs fs {};
  if (::statvfs(options_.raft_dir.c_str(), &fs) != 0) {
    return base::os_error("statvfs " + options_.raft_dir, errno);
  }
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

bool RaftConsensus::drain_deferred(
    const std::function<void(uint64_t index, ApplyOutcome outcome)>& applied) {
  while (!deferred_.empty()) {
    Deferred& d = deferred_.front();
    ApplyOutcome outcome = machine_.apply(d.index, ByteView(d.entry));
    if (outcome.retry) {
      report("cannot apply the log (retrying every 200 ms)",
             outcome.status.with_context("entry " + std::to_string(d.index)));
      return false;
    }
    if (applied) applied(d.index, std::move(outcome));
    deferred_.pop_front();
  }
  return true;
}

WriteResult RaftConsensus::barrier_result(uint64_t index) const {
  ORDO_ASSERT(pending_.empty());  // flushed before a barrier ends
  if (!deferred_.empty() && deferred_.front().index < index) {
    // Raft counts entries applied that this replica has still to apply.
    return unknown(
        "entries before the barrier are not applied here yet (a disk error: see apply_error)");
  }
  WriteResult r;
  r.outcome = Outcome::kApplied;
  r.index = index;
  return r;
}

void RaftConsensus::flush_applies() {
  uv_check_stop(&flush_check_);
  uv_idle_stop(&flush_idle_);
  if (pending_.empty()) {
    ORDO_ASSERT(waiting_.empty());
    return;
  }
  ORDO_ASSERT(deferred_.empty());  // pending_ grows only when it is
  std::vector<StateMachine::BatchEntry> batch;
  batch.swap(pending_);
  // The batch's entry at log `index` (entries in log order).
  auto entry_at = [&batch](uint64_t index) -> StateMachine::BatchEntry& {
    auto it =
        std::lower_bound(batch.begin(), batch.end(), index,
                         [](const StateMachine::BatchEntry& e, uint64_t i) { return e.index < i; });
    ORDO_ASSERT(it != batch.end() && it->index == index);
    return *it;
  };
  // An entry alone needs no savepoint: apply() commits it as it is. A batch
  // that met an environment error left nothing in the file.
  const bool batched = batch.size() > 1 && machine_.apply_batch(batch).is_ok();
  if (!batched) {
    // One at a time, as kept entries are: the first that fails and every one
    // after it stay kept for the timer.
    for (StateMachine::BatchEntry& e : batch) {
      e.outcome.retry = true;
      deferred_.push_back(Deferred{e.index, std::move(e.entry)});
    }
    (void)drain_deferred([&](uint64_t index, ApplyOutcome outcome) {
      entry_at(index).outcome = std::move(outcome);
    });
  }
  std::vector<Waiting> waiting;
  waiting.swap(waiting_);
  for (Waiting& w : waiting) {
    if (w.barrier != nullptr) {
      complete(w.barrier, barrier_result(w.index));
      continue;
    }
    ORDO_ASSERT(w.apply != nullptr);
    // A proposal whose entry was in the batch.
    StateMachine::BatchEntry& e = entry_at(w.index);
    if (e.outcome.retry) {
      complete(w.apply, unknown("entry " + std::to_string(w.index) +
                                " is committed but not applied here yet (a disk error: see "
                                "apply_error); it is applied when the disk allows"));
    } else {
      complete(w.apply, applied_result(w.index, std::move(e.outcome)));
    }
  }
}

// The messages this iteration made go out before the apply: a follower's
// AppendEntries reply (made in the same pass as the apply of the entries
// the leader's message committed) then does not wait for that commit.
void RaftConsensus::send_then_apply() {
  if (raft_state_ == RaftState::kUp && !closing_) coalescer_->flush();
  flush_applies();
}

void RaftConsensus::on_flush_check(uv_check_t* handle) {
  static_cast<RaftConsensus*>(handle->data)->send_then_apply();
}

void RaftConsensus::on_flush_idle(uv_idle_t* handle) {
  static_cast<RaftConsensus*>(handle->data)->send_then_apply();
}

void RaftConsensus::retry_stalled_apply() {
  // Kept entries wait for the install (retry_install drains them).
  if (deferred_.empty() || closing_ || machine_.install_pending()) return;
  if (++stalled_ticks_ * kStatusRefreshMs < kApplyRetryMs) return;
  stalled_ticks_ = 0;
  (void)drain_deferred();
}

void RaftConsensus::retry_install() {
  if (closing_ || !machine_.install_pending()) {
    install_backoff_ = std::chrono::milliseconds(0);
    return;
  }
  if (raft_.state == RAFT_LEADER && !transferring_) {
    // A leader whose state is behind would serve none of its proposals and
    // no read: another voter leads (0: the most up to date).
    transfer_.data = this;
    if (raft_transfer(&raft_, &transfer_, 0, &RaftConsensus::on_transfer) == 0) {
      transferring_ = true;
      std::fprintf(stderr,
                   "ordo replica %llu: leading with a snapshot install pending; handing "
                   "leadership to another voter\n",
                   static_cast<unsigned long long>(options_.id));
    }
  }
  const auto now = std::chrono::steady_clock::now();
  if (now < next_install_try_) return;
  Status s = machine_.finish_install(install_sources());
  if (!s.is_ok()) {
    install_backoff_ = std::clamp(2 * install_backoff_, kInstallRetryFirst, kInstallRetryMost);
    next_install_try_ = now + install_backoff_;
    report(("snapshot install failed (retrying in " + std::to_string(install_backoff_.count()) +
            " ms)")
               .c_str(),
           s);
    return;
  }
  install_backoff_ = std::chrono::milliseconds(0);
  std::fprintf(stderr, "ordo replica %llu: snapshot installed (applied index %llu)\n",
               static_cast<unsigned long long>(options_.id),
               static_cast<unsigned long long>(raft_last_applied(&raft_)));
  // The entries kept meanwhile follow (those the copy holds are skipped).
  (void)drain_deferred();
}

void RaftConsensus::on_transfer(struct raft_transfer* req) {
  static_cast<RaftConsensus*>(req->data)->transferring_ = false;
}

void RaftConsensus::refresh_status() {
  if (raft_state_ != RaftState::kUp) {
    std::lock_guard lock(mu_);
    status_.role = Role::kUnavailable;
    status_.disk_error = disk_error_;
    status_.disk_wait = disk_wait_;
    status_.disk_errors = disk_errors_;
    status_.raft_restarts = raft_restarts_;
    status_.log_entries = 0;
    status_.log_bytes = 0;
    status_.unapplied_bytes = unapplied_bytes_;
    status_.proposals_refused = proposals_refused_;
    return;
  }
  ConsensusStatus s;
  s.role = role_of(raft_state(&raft_));
  if (removed_from_configuration()) s.role = Role::kRemoved;
  s.disk_error = disk_error_;
  s.disk_wait = disk_wait_;
  s.disk_errors = disk_errors_;
  s.raft_restarts = raft_restarts_;
  s.log_bytes = log_bytes(&s.log_entries);
  s.unapplied_bytes = unapplied_bytes_;
  s.proposals_refused = proposals_refused_;
  s.term = raft_.current_term;
  raft_id leader_id = 0;
  const char* leader_address = nullptr;
  raft_leader(&raft_, &leader_id, &leader_address);
  s.leader_id = leader_id;
  if (leader_address != nullptr) s.leader_address = leader_address;
  s.last_log_index = raft_last_index(&raft_);
  s.commit_index = raft_.commit_index;
  s.last_applied = raft_last_applied(&raft_);
  s.configuration_index = raft_.configuration_index;
  for (unsigned i = 0; i < raft_.configuration.n; ++i) {
    const raft_server& server = raft_.configuration.servers[i];
    s.members.push_back(Member{server.id, server.address, server.role == RAFT_VOTER});
  }
  std::lock_guard lock(mu_);
  status_ = std::move(s);
}

WriteResult RaftConsensus::not_leader(int rv) {
  WriteResult r;
  r.outcome = Outcome::kFailed;
  raft_id leader_id = 0;
  const char* leader_address = nullptr;
  raft_leader(&raft_, &leader_id, &leader_address);
  r.leader_id = leader_id;
  if (leader_address != nullptr) r.leader_address = leader_address;
  if (rv == RAFT_NOTLEADER) {
    r.status =
        Status::busy("not the leader; leader is " +
                     (leader_id == 0 ? std::string("unknown")
                                     : std::to_string(leader_id) + " at " + r.leader_address));
  } else {
    r.status = Status::io_error(std::string("raft: ") + raft_strerror(rv), 0);
  }
  return r;
}

void RaftConsensus::propose(std::string entry, WriteDone done,
                            std::shared_ptr<ProposalTicket> ticket) {
  auto shared_done = std::make_shared<WriteDone>(std::move(done));
  post(
      [this, entry = std::move(entry), shared_done, ticket = std::move(ticket)] {
        if (ticket != nullptr && !ticket->take()) {
          (*shared_done)(not_proposed("withdrawn by the caller before Raft took it"));
          return;
        }
        raft_buffer buf;
        buf.len = framed_size(entry.size());
        buf.base = raft_malloc(buf.len);
        if (buf.base == nullptr) {
          (*shared_done)(not_proposed("out of memory"));
          return;
        }
        frame(entry, static_cast<char*>(buf.base));
        auto* req = new ApplyRequest;
        req->self = this;
        req->bytes = buf.len;
        req->done = std::move(*shared_done);
        req->req.data = req;
        // One entry is always taken, however large: the budget bounds the
        // backlog, not an entry's size.
        if (unapplied_bytes_ > 0 && unapplied_bytes_ + buf.len > options_.max_unapplied_bytes &&
            raft_state(&raft_) == RAFT_LEADER) {
          raft_free(buf.base);
          ++proposals_refused_;
          WriteResult r;
          r.outcome = Outcome::kFailed;
          r.status =
              Status::full("too much unapplied data: " + std::to_string(unapplied_bytes_) +
                           " bytes proposed and not applied yet (budget " +
                           std::to_string(options_.max_unapplied_bytes) + "); try again later");
          complete(req, std::move(r));
          return;
        }
        if (removed_from_configuration()) {
          raft_free(buf.base);
          WriteResult r;
          r.outcome = Outcome::kFailed;
          r.status = Status::io_error("removed from the cluster", 0);
          complete(req, std::move(r));
          return;
        }
        int rv = raft_apply(&raft_, &req->req, &buf, 1, &RaftConsensus::on_apply);
        if (rv != 0) {
          raft_free(buf.base);  // ownership passes to Raft only on success
          complete(req, not_leader(rv));
          return;
        }
        unapplied_bytes_ += req->bytes;
        outstanding_[req] = [req] {
          req->self->unapplied_bytes_ -= req->bytes;
          complete(req, unknown("replica closing"));
        };
      },
      [shared_done](const std::string& why) { (*shared_done)(not_proposed(why)); });
}

void RaftConsensus::on_apply(struct raft_apply* raw, int status, void* /*result*/) {
  auto* req = static_cast<ApplyRequest*>(raw->data);
  RaftConsensus* self = req->self;
  self->outstanding_.erase(req);
  self->unapplied_bytes_ -= req->bytes;
  if (status == 0 && !self->pending_.empty() && self->pending_.back().index == raw->index) {
    // fsm_apply left the entry for flush_applies, which ends the request.
    self->waiting_.push_back(Waiting{raw->index, req, nullptr});
    return;
  }
  WriteResult r;
  if (status == 0) {
    // Not reached: fsm_apply returns 0 with the entry in pending_ (found
    // above), or with it in deferred_ on a follower, which has no requests.
    ORDO_DCHECK(false);
    r = unknown("entry " + std::to_string(raw->index) + " was not applied here");
  } else if (status == RAFT_SHUTDOWN && !self->closing_) {
    r = unknown("Raft restarting after a disk error: " + self->disk_error_);
  } else if (status == RAFT_SHUTDOWN) {
    r = unknown("replica closing");
  } else if (status == RAFT_NOSPACE || status == RAFT_IOERR) {
    r = unknown("the leader could not write its Raft log: " + code_text(status));
  } else {
    r = unknown(std::string("leadership lost (") + code_text(status) + ")");
  }
  complete(req, std::move(r));
}

void RaftConsensus::barrier(WriteDone done) {
  auto shared_done = std::make_shared<WriteDone>(std::move(done));
  post(
      [this, shared_done] {
        auto* req = new BarrierRequest;
        req->self = this;
        req->done = std::move(*shared_done);
        req->req.data = req;
        int rv = raft_barrier(&raft_, &req->req, &RaftConsensus::on_barrier);
        if (rv != 0) {
          complete(req, not_leader(rv));
          return;
        }
        outstanding_[req] = [req] { complete(req, unknown("replica closing")); };
      },
      [shared_done](const std::string& why) { (*shared_done)(not_proposed(why)); });
}

void RaftConsensus::on_barrier(struct raft_barrier* raw, int status) {
  auto* req = static_cast<BarrierRequest*>(raw->data);
  RaftConsensus* self = req->self;
  self->outstanding_.erase(req);
  if (status == 0 && !self->pending_.empty()) {
    // Entries before it wait for flush_applies, which ends the request.
    self->waiting_.push_back(Waiting{raw->index, nullptr, req});
    return;
  }
  WriteResult r;
  if (status == 0) {
    r = self->barrier_result(raw->index);
  } else if (status == RAFT_SHUTDOWN) {
    r = unknown("replica closing");
  } else {
    r = unknown(std::string("leadership lost (") + raft_strerror(status) + ")");
  }
  complete(req, std::move(r));
}

Status RaftConsensus::change_status(int rv, const char* what) {
  switch (rv) {
    case 0:
      return Status::ok();
    case RAFT_NOTLEADER: {
      WriteResult r = not_leader(rv);
      return r.status;
    }
    case RAFT_CANTCHANGE:
      return Status::busy(std::string(what) + ": another change is in progress");
    case RAFT_DUPLICATEID:
      return Status::invalid_argument(std::string(what) + ": the id is a member already");
    case RAFT_DUPLICATEADDRESS:
      return Status::invalid_argument(std::string(what) + ": the address is a member's already");
    case RAFT_BADID:
      return Status::invalid_argument(std::string(what) + ": no member has that id");
    case RAFT_BADROLE:
      return Status::invalid_argument(std::string(what) + ": the member has that role already");
    default:
      return Status::io_error(std::string(what) + ": " + raft_strerror(rv), 0);
  }
}

void RaftConsensus::add_member(const Member& member, uint32_t catch_up_ms, ChangeDone done) {
  auto shared_done = std::make_shared<ChangeDone>(std::move(done));
  post(
      [this, member, catch_up_ms, shared_done] {
        auto* req = new ChangeRequest;
        req->self = this;
        req->id = member.id;
        req->then_assign_voter = member.voter;
        req->catch_up_ms = catch_up_ms;
        req->done = std::move(*shared_done);
        req->req.data = req;
        int rv = raft_add(&raft_, &req->req, member.id, member.address.c_str(),
                          &RaftConsensus::on_change);
        if (rv != 0) {
          ChangeDone d = std::move(req->done);
          delete req;
          d(change_status(rv, "add member"));
          return;
        }
        outstanding_[req] = change_fail(req);
      },
      [shared_done](const std::string& why) { (*shared_done)(Status::io_error(why, 0)); });
}

void RaftConsensus::remove_member(uint64_t id, ChangeDone done) {
  auto shared_done = std::make_shared<ChangeDone>(std::move(done));
  post(
      [this, id, shared_done] {
        auto* req = new ChangeRequest;
        req->self = this;
        req->id = id;
        req->done = std::move(*shared_done);
        req->req.data = req;
        int rv = raft_remove(&raft_, &req->req, id, &RaftConsensus::on_change);
        if (rv != 0) {
          ChangeDone d = std::move(req->done);
          delete req;
          d(change_status(rv, "remove member"));
          return;
        }
        outstanding_[req] = change_fail(req);
      },
      [shared_done](const std::string& why) { (*shared_done)(Status::io_error(why, 0)); });
}

void RaftConsensus::on_change(struct raft_change* raw, int status) {
  auto* req = static_cast<ChangeRequest*>(raw->data);
  RaftConsensus* self = req->self;
  self->outstanding_.erase(req);
  // status() shows the configuration this change left before any caller
  // hears its outcome (the timer alone would show it up to a tick later).
  self->refresh_status();
  if (status == 0 && req->then_assign_voter && !self->closing_) {
    // Added as a spare; the voter role is given once it caught up (Raft runs
    // catch-up rounds before committing the assignment).
    req->then_assign_voter = false;
    req->promoting = true;
    // libraft ends the promotion with RAFT_NOCONNECTION once a catch-up
    // round lasts longer than this.
    raft_set_max_catch_up_round_duration(&self->raft_, req->catch_up_ms);
    int rv = raft_assign(&self->raft_, &req->req, req->id, RAFT_VOTER, &RaftConsensus::on_change);
    if (rv == 0) {
      self->outstanding_[req] = change_fail(req);
      return;
    }
    status = rv;
  }
  if (status != 0 && req->promoting && !self->closing_ && status != RAFT_SHUTDOWN &&
      status != RAFT_LEADERSHIPLOST) {
    // The member stays a non-voter otherwise, and a second add of its id
    // fails: remove it (from the loop, outside libraft's callback).
    req->promoting = false;
    req->rolling_back = true;
    req->rollback_reason =
        status == RAFT_NOCONNECTION
            ? Status::busy("member " + std::to_string(req->id) + " did not catch up in " +
                           std::to_string(req->catch_up_ms) + " ms; not added")
            : self->change_status(status, "add member").with_context("not added");
    self->post(
        [self, req] {
          int rv = raft_remove(&self->raft_, &req->req, req->id, &RaftConsensus::on_change);
          if (rv == 0) {
            self->outstanding_[req] = change_fail(req);
          } else {
            on_change(&req->req, rv);
          }
        },
        [req](const std::string& why) {
          ChangeDone d = std::move(req->done);
          Status reason = req->rollback_reason;
          delete req;
          d(Status::io_error(reason.message() + "; the non-voter is still a member: " + why, 0));
        });
    return;
  }
  if (req->rolling_back) {
    ChangeDone done = std::move(req->done);
    Status reason = req->rollback_reason;
    const uint64_t id = req->id;
    delete req;
    if (status == 0) {
      done(std::move(reason));
    } else {
      done(Status::io_error(reason.message() + "; removing non-voter " + std::to_string(id) +
                                " failed: " + raft_strerror(status),
                            0));
    }
    return;
  }
  if (status == 0) {
    std::lock_guard lock(self->mu_);
    self->status_.configuration_index = self->raft_.configuration_index;
  }
  Status s = status == 0                     ? Status::ok()
             : status == RAFT_SHUTDOWN       ? Status::io_error("replica closing", 0)
             : status == RAFT_LEADERSHIPLOST ? Status::io_error("leadership lost", 0)
                                             : self->change_status(status, "membership change");
  ChangeDone done = std::move(req->done);
  delete req;
  done(std::move(s));
}

int RaftConsensus::fsm_apply(raft_fsm* fsm, const raft_buffer* buf, void** result) {
  auto* self = static_cast<RaftConsensus*>(fsm->data);
  *result = nullptr;
  // Raft sets last_applied to the entry's index right after this returns;
  // barriers and configuration entries advance it without calling apply.
  const uint64_t index = raft_last_applied(&self->raft_) + 1;
  if (self->machine_.install_pending()) {
    // The state is behind what Raft counts applied: the entry waits for the
    // install (retry_install, on the timer) like an entry the disk refused.
    // A leader steps aside meanwhile; until then Raft retries its apply.
    if (raft_state(&self->raft_) == RAFT_LEADER) return RAFT_IOERR;
    self->count_applied_bytes(buf->len);
    self->deferred_.push_back(Deferred{index, unframe(*buf).str()});
    return 0;
  }
  if (!self->deferred_.empty() && !self->drain_deferred()) {
    // Entries before it wait for the disk. libraft 0.15 turns an apply error
    // met while handling a heartbeat into its unavailable state, for good: a
    // follower keeps the entry itself and the timer applies it (and those
    // after it, in order) once it can. A leader, whose proposers would wait
    // on a kept entry, makes Raft try it again at each heartbeat reply.
    if (raft_state(&self->raft_) == RAFT_LEADER) return RAFT_IOERR;
    self->count_applied_bytes(buf->len);
    self->deferred_.push_back(Deferred{index, unframe(*buf).str()});
    return 0;
  }
  self->count_applied_bytes(buf->len);
  // Applied with the loop iteration's other entries, in one commit, at its
  // end (flush_applies); the requests waiting for it end then. The idle
  // handle keeps the loop from blocking in poll first when the entry came
  // from a timer (the check phase follows the poll).
  if (self->pending_.empty()) {
    uv_check_start(&self->flush_check_, &RaftConsensus::on_flush_check);
    uv_idle_start(&self->flush_idle_, &RaftConsensus::on_flush_idle);
  }
  ORDO_ASSERT(self->pending_.empty() || self->pending_.back().index < index);
  self->pending_.push_back(StateMachine::BatchEntry{index, unframe(*buf).str()});
  return 0;
}

void RaftConsensus::count_applied_bytes(uint64_t bytes) {
  // Bounds the in-memory log by bytes: past the budget, a threshold of one
  // entry makes Raft snapshot right after this batch of applies
  // (fsm_snapshot puts the entry count back).
  bytes_since_snapshot_ += bytes;
  if (bytes_since_snapshot_ >= options_.snapshot_threshold_bytes) {
    raft_set_snapshot_threshold(&raft_, 1);
  }
}

int RaftConsensus::fsm_snapshot(raft_fsm* fsm, raft_buffer* bufs[], unsigned* n_bufs) {
  auto* self = static_cast<RaftConsensus*>(fsm->data);
  self->flush_applies();
  // Raft would drop log entries this replica has still to apply.
  if (!self->deferred_.empty()) return RAFT_BUSY;
  Result<std::string> record = self->machine_.snapshot();
  if (record.is_ok()) {
    // Raft snapshots at last_applied and keeps `trailing` entries behind:
    // as many as the count allows and the byte budget holds.
    raft_set_snapshot_threshold(&self->raft_, self->options_.snapshot_threshold);
    raft_set_snapshot_trailing(&self->raft_,
                               self->trailing_within(raft_last_applied(&self->raft_),
                                                     self->options_.snapshot_trailing_bytes,
                                                     self->options_.snapshot_trailing));
    self->bytes_since_snapshot_ = 0;
  }
  if (!record.is_ok()) {
    // Busy: an install is pending; Raft takes the snapshot at a later apply.
    if (record.status().is_busy()) return RAFT_BUSY;
    self->report("snapshot failed", record.status());
    return RAFT_IOERR;
  }
  auto* array = static_cast<raft_buffer*>(raft_malloc(sizeof(raft_buffer)));
  if (array == nullptr) return RAFT_NOMEM;
  array[0].len = record->size();
  array[0].base = raft_malloc(record->size());
  if (array[0].base == nullptr) {
    raft_free(array);
    return RAFT_NOMEM;
  }
  std::memcpy(array[0].base, record->data(), record->size());
  *bufs = array;
  *n_bufs = 1;
  return 0;
}

// fsm version 2: the buffers stay ours; Raft hands them back here.
int RaftConsensus::fsm_snapshot_finalize(raft_fsm* /*fsm*/, raft_buffer* bufs[], unsigned* n_bufs) {
  if (*bufs != nullptr) {
    for (unsigned i = 0; i < *n_bufs; ++i) raft_free((*bufs)[i].base);
    raft_free(*bufs);
  }
  *bufs = nullptr;
  *n_bufs = 0;
  return 0;
}

// On success the buffer is ours to free (Raft passes its ownership).
int RaftConsensus::fsm_restore(raft_fsm* fsm, raft_buffer* buf) {
  auto* self = static_cast<RaftConsensus*>(fsm->data);
  self->flush_applies();  // the restore replaces the state they are applied to
  raft_id leader_id = 0;
  const char* leader_address = nullptr;
  raft_leader(&self->raft_, &leader_id, &leader_address);
  // Itself as leader (a single member): nobody to fetch from, as at startup.
  if (leader_id == self->options_.id) leader_address = nullptr;
  Status s = self->machine_.restore(ByteView(buf->base, buf->len),
                                    leader_address != nullptr ? leader_address : "");
  if (!s.is_ok() && self->machine_.install_pending()) {
    // libraft has moved its log to the snapshot whatever this returns, and
    // would neither apply the entries it covers nor send the snapshot
    // again: the install stays pending and the timer retries it.
    self->install_backoff_ = kInstallRetryFirst;
    self->next_install_try_ = std::chrono::steady_clock::now() + self->install_backoff_;
    self->report("snapshot install failed (retrying)", s);
    s = Status::ok();
  }
  self->last_restore_status_ = s;
  if (!s.is_ok()) {
    self->report("snapshot restore failed", s);
    return RAFT_IOERR;
  }
  raft_free(buf->base);
  return 0;
}

uint64_t RaftConsensus::log_bytes(uint64_t* entries) const {
  const raft_log& log = raft_.log;
  const size_t n = log.back >= log.front ? log.back - log.front : log.size - log.front + log.back;
  uint64_t bytes = 0;
  for (size_t i = 0; i < n; ++i) bytes += log.entries[(log.front + i) % log.size].buf.len;
  *entries = n;
  return bytes;
}

unsigned RaftConsensus::trailing_within(uint64_t index, uint64_t budget_bytes,
                                        unsigned max_entries) const {
  const raft_log& log = raft_.log;
  const size_t n = log.back >= log.front ? log.back - log.front : log.size - log.front + log.back;
  // Entry `index` sits at position index - offset - 1 from the front; the
  // trailing entries are those at and before it.
  if (index <= log.offset || index - log.offset > n) return 1;
  size_t pos = static_cast<size_t>(index - log.offset - 1);
  uint64_t bytes = 0;
  unsigned kept = 0;
  for (;;) {
    bytes += log.entries[(log.front + pos) % log.size].buf.len;
    if (kept > 0 && bytes > budget_bytes) break;
    ++kept;
    if (kept >= max_entries || pos == 0) break;
    --pos;
  }
  // Zero would make libraft's I/O drop every segment, entries after the
  // snapshot among them.
  return kept == 0 ? 1 : kept;
}

void RaftConsensus::mark_removed(uint64_t index) {
  post(
      [this, index] {
        if (removed_at_ == 0) {
          std::fprintf(stderr, "ordo replica %llu: removed from the cluster (log index %llu)\n",
                       static_cast<unsigned long long>(options_.id),
                       static_cast<unsigned long long>(index));
        }
        removed_at_ = std::max(removed_at_, index);
        const std::string path = options_.raft_dir + "/" + kRemovedMarker;
        if (std::FILE* f = std::fopen(path.c_str(), "w")) {
          std::fprintf(f, "%llu\n", static_cast<unsigned long long>(removed_at_));
          std::fclose(f);
        }
      },
      [](const std::string&) {});
}

bool RaftConsensus::removed_from_configuration() {
  bool member = false;
  for (unsigned i = 0; i < raft_.configuration.n; ++i) {
    if (raft_.configuration.servers[i].id == options_.id) member = true;
  }
  if (removed_at_ != 0) {
    if (!member || raft_.configuration_index <= removed_at_) return true;
    // Added again.
    removed_at_ = 0;
    (void)::unlink((options_.raft_dir + "/" + kRemovedMarker).c_str());
  }
  if (raft_.configuration.n == 0) return false;
  if (member && !was_member_) {
    // A new member catching up replays configurations from before it was
    // added: only one that held it before counts as a removal.
    was_member_ = true;
    const std::string path = options_.raft_dir + "/" + kMemberMarker;
    if (std::FILE* f = std::fopen(path.c_str(), "w")) std::fclose(f);
  }
  return !member && was_member_;
}

RaftConsensus* RaftConsensus::of_io(raft_io* io) {
  return static_cast<RaftConsensus*>(static_cast<struct raft*>(io->data)->data);
}

namespace {
// An append (or snapshot put) in libuv's hands: its request, and Raft's.
template <typename Req, typename Cb>
struct WrappedIo {
  Req req{};
  Req* outer = nullptr;
  Cb outer_cb = nullptr;
  RaftConsensus* self = nullptr;
  uint64_t bytes = 0;  // io_send: entry bytes, for send_bytes_[peer]
  raft_id peer = 0;

  // Wraps Raft's request `outer` (its callback `cb`): the wrapper's own
  // request points back at it; the completion callback frees it.
  static WrappedIo* wrap(RaftConsensus* self, Req* outer, Cb cb) {
    auto* w = new WrappedIo;
    w->outer = outer;
    w->outer_cb = cb;
    w->self = self;
    w->req.data = w;
    outer->cb = cb;
    return w;
  }
};
}  // namespace

int RaftConsensus::io_append(raft_io* io, raft_io_append* req, const raft_entry entries[],
                             unsigned n, raft_io_append_cb cb) {
  RaftConsensus* self = of_io(io);
  using W = WrappedIo<raft_io_append, raft_io_append_cb>;
  auto* w = W::wrap(self, req, cb);
  int rv = self->uv_append_(io, &w->req, entries, n, [](raft_io_append* inner, int status) {
    auto* done = static_cast<W*>(inner->data);
    raft_io_append* outer = done->outer;
    raft_io_append_cb outer_cb = done->outer_cb;
    RaftConsensus* owner = done->self;
    delete done;
    outer_cb(outer, status);
    if (status != 0) {
      owner->disk_failed("append", status);
      // Raft closes before it handles anything else. libuv's I/O takes
      // back the failed entries' indexes while libraft keeps them: a later
      // append would be written under the wrong indexes (a follower then
      // loads a log that skips entries), and a leader that truncated its
      // log would read past it at the next reply.
      if (owner->raft_state_ == RaftState::kUp && owner->reopen_wanted_) {
        owner->close_for_restart();
      }
    } else {
      owner->disk_ok();
    }
  });
  // On an error w is not freed: libuv may have queued the request and
  // end it later.
  if (rv != 0) self->disk_failed("append", rv);
  return rv;
}

int RaftConsensus::io_snapshot_put(raft_io* io, unsigned trailing, raft_io_snapshot_put* req,
                                   const raft_snapshot* snapshot, raft_io_snapshot_put_cb cb) {
  RaftConsensus* self = of_io(io);
  using W = WrappedIo<raft_io_snapshot_put, raft_io_snapshot_put_cb>;
  auto* w = W::wrap(self, req, cb);
  int rv = self->uv_snapshot_put_(io, trailing, &w->req, snapshot,
                                  [](raft_io_snapshot_put* inner, int status) {
                                    auto* done = static_cast<W*>(inner->data);
                                    raft_io_snapshot_put* outer = done->outer;
                                    raft_io_snapshot_put_cb outer_cb = done->outer_cb;
                                    RaftConsensus* owner = done->self;
                                    delete done;
                                    outer_cb(outer, status);
                                    if (status != 0) owner->disk_failed("snapshot", status);
                                  });
  if (rv != 0) self->disk_failed("snapshot", rv);  // w: as in io_append
  return rv;
}

// libraft's leader sends a follower in pipeline mode every new entry as it
// comes, whether or not the follower reads; a stopped follower's socket
// fills and libuv queues the rest, each send holding its entries in memory
// (snapshots do not free them). Past snapshot_trailing_bytes in flight to
// one peer a send with entries fails at once: libraft then probes that
// peer once a heartbeat, and sends a snapshot once its log moved on.
int RaftConsensus::io_send(raft_io* io, raft_io_send* req, const raft_message* message,
                           raft_io_send_cb cb) {
  RaftConsensus* self = of_io(io);
  if (message->type != RAFT_IO_APPEND_ENTRIES || message->append_entries.n_entries == 0) {
    return self->coalescer_->send(req, message, cb);
  }
  uint64_t bytes = 0;
  for (unsigned i = 0; i < message->append_entries.n_entries; ++i) {
    bytes += message->append_entries.entries[i].buf.len;
  }
  uint64_t& in_flight = self->send_bytes_[message->server_id];
  if (in_flight > 0 && in_flight + bytes > self->options_.snapshot_trailing_bytes) {
    ++self->sends_refused_;
    // Failed as a send that did not get through: libraft releases the
    // entries and moves the peer to probe mode (nothing of req is used
    // after the call returns in that mode).
    req->cb = cb;
    cb(req, RAFT_NOCONNECTION);
    return 0;
  }
  using W = WrappedIo<raft_io_send, raft_io_send_cb>;
  auto* w = W::wrap(self, req, cb);
  w->bytes = bytes;
  w->peer = message->server_id;
  int rv = self->coalescer_->send(&w->req, message, [](raft_io_send* inner, int status) {
    auto* done = static_cast<W*>(inner->data);
    raft_io_send* outer = done->outer;
    raft_io_send_cb outer_cb = done->outer_cb;
    auto it = done->self->send_bytes_.find(done->peer);
    if (it != done->self->send_bytes_.end()) it->second -= std::min(it->second, done->bytes);
    delete done;
    outer_cb(outer, status);
  });
  ORDO_ASSERT(rv == 0);  // the coalescer reports a failed send to the callback
  in_flight += bytes;
  return 0;
}

int RaftConsensus::io_start(raft_io* io, unsigned msecs, raft_io_tick_cb tick,
                            raft_io_recv_cb recv) {
  RaftConsensus* self = of_io(io);
  self->raft_tick_ = tick;
  self->raft_recv_ = recv;
  return self->uv_start_(io, msecs, &RaftConsensus::on_tick, &RaftConsensus::on_recv);
}

void RaftConsensus::io_close(raft_io* io, raft_io_close_cb cb) {
  RaftConsensus* self = of_io(io);
  // libuv's I/O takes no send once closing: what is held fails as libuv
  // fails the sends it still has.
  self->coalescer_->cancel(RAFT_CANCELED);
  self->uv_close_(io, cb);
}

void RaftConsensus::on_tick(raft_io* io) {
  RaftConsensus* self = of_io(io);
  if (self->machine_.install_pending() &&
      (self->raft_.state == RAFT_FOLLOWER || self->raft_.state == RAFT_CANDIDATE)) {
    // Its election timer never runs out: a replica whose state is behind
    // its log starts no election (it still votes: its log is whole).
    self->raft_.election_timer_start = io->time(io);
  } else {
    (void)self->maybe_campaign();
  }
  self->raft_tick_(io);
}

void RaftConsensus::on_recv(raft_io* io, raft_message* message) {
  RaftConsensus* self = of_io(io);
  const raft_time now = io->time(io);
  switch (message->type) {
    case RAFT_IO_TIMEOUT_NOW:
      // A replica whose state is behind its log takes no leadership.
      if (self->machine_.install_pending()) return;
      self->leader_contact_.message_from(message->server_id, now);
      break;
    case RAFT_IO_APPEND_ENTRIES:
    case RAFT_IO_INSTALL_SNAPSHOT:
      self->leader_contact_.message_from(message->server_id, now);
      break;
    case RAFT_IO_REQUEST_VOTE: {
      // libraft refuses a vote while this follower knows a leader, until its
      // own randomized timer expires; the thesis's rule (leader_contact.h)
      // grants it once the leader is gone. The flag skips that one check;
      // the term and log checks stay.
      raft_id leader = 0;
      const char* address = nullptr;
      raft_leader(&self->raft_, &leader, &address);
      if (self->raft_.state == RAFT_FOLLOWER && leader != 0 &&
          self->leader_contact_.leader_gone(leader, now, self->options_.election_timeout_ms)) {
        message->request_vote.disrupt_leader = true;
      }
      break;
    }
    default:
      break;
  }
  self->raft_recv_(io, message);
}

void RaftConsensus::peer_closed(uint64_t peer) {
  if (raft_state_ != RaftState::kUp) return;
  leader_contact_.closed_by(peer, io_.time(&io_));
  // At once rather than at the next tick: an election is a few round trips.
  if (maybe_campaign()) raft_tick_(&io_);
}

bool RaftConsensus::maybe_campaign() {
  if (raft_state_ != RaftState::kUp || raft_.state != RAFT_FOLLOWER) return false;
  if (machine_.install_pending()) return false;  // on_tick: no election while behind
  raft_id leader = 0;
  const char* address = nullptr;
  raft_leader(&raft_, &leader, &address);
  if (leader == 0 || leader == options_.id) return false;
  std::vector<uint64_t> voters;
  for (unsigned i = 0; i < raft_.configuration.n; ++i) {
    if (raft_.configuration.servers[i].role == RAFT_VOTER) {
      voters.push_back(raft_.configuration.servers[i].id);
    }
  }
  const raft_time now = io_.time(&io_);
  if (!leader_contact_.campaign_due(leader, options_.id, voters, now,
                                    2 * uint64_t{options_.heartbeat_timeout_ms})) {
    return false;
  }
  // libraft has no call that starts an election on a follower; its tick
  // starts one once this timer expired.
  const unsigned timeout = raft_.follower_state.randomized_election_timeout;
  raft_.election_timer_start = now >= timeout ? now - timeout : 0;
  std::fprintf(
      stderr, "ordo replica %llu: leader %llu closed its Raft connection; starting an election\n",
      static_cast<unsigned long long>(options_.id), static_cast<unsigned long long>(leader));
  return true;
}

int RaftConsensus::io_truncate(raft_io* io, raft_index index) {
  RaftConsensus* self = of_io(io);
  int rv = self->uv_truncate_(io, index);
  if (rv != 0) self->disk_failed("truncate", rv);
  return rv;
}

int RaftConsensus::io_set_term(raft_io* io, raft_term term) {
  RaftConsensus* self = of_io(io);
  int rv = self->uv_set_term_(io, term);
  if (rv != 0) self->disk_failed("term", rv);
  return rv;
}

int RaftConsensus::io_set_vote(raft_io* io, raft_id id) {
  RaftConsensus* self = of_io(io);
  int rv = self->uv_set_vote_(io, id);
  if (rv != 0) self->disk_failed("vote", rv);
  return rv;
}

std::vector<std::string> RaftConsensus::install_sources() {
  std::vector<std::string> sources;
  raft_id leader_id = 0;
  const char* leader_address = nullptr;
  raft_leader(&raft_, &leader_id, &leader_address);
  if (leader_address != nullptr && leader_id != options_.id) sources.push_back(leader_address);
  for (unsigned i = 0; i < raft_.configuration.n; ++i) {
    const raft_server& server = raft_.configuration.servers[i];
    if (server.id != options_.id && server.id != leader_id) sources.push_back(server.address);
  }
  return sources;
}

// Raft only learns "failed" and retries later; this line is the one place
// the reason shows. At most one a second: the retries come with every
// heartbeat.
void RaftConsensus::report(const char* what, const Status& s) {
  (void)report_log_.print("ordo replica " + std::to_string(options_.id) + ": " + what + ": " +
                          s.to_string());
}

void RaftConsensus::begin_close() {
  if (closing_) return;
  flush_applies();
  closing_ = true;
  uv_timer_stop(&timer_);
  switch (raft_state_) {
    case RaftState::kUp:
      raft_state_ = RaftState::kClosing;
      raft_close(&raft_, &RaftConsensus::on_raft_closed);
      break;
    case RaftState::kClosing:  // on_raft_closed closes the handles
      break;
    case RaftState::kDown:
      close_handles();
      break;
  }
}

void RaftConsensus::on_raft_closed(struct raft* r) {
  auto* self = static_cast<RaftConsensus*>(r->data != nullptr ? r->data : nullptr);
  if (self == nullptr) return;
  raft_uv_close(&self->io_);
  self->raft_state_ = RaftState::kDown;
  if (self->closing_) {
    self->close_handles();
    return;
  }
  // A restart: requests Raft did not end end as unknown; maybe_reopen
  // starts Raft again.
  auto left = std::move(self->outstanding_);
  self->outstanding_.clear();
  for (auto& [req, fail] : left) fail();
}

void RaftConsensus::stop() {
  std::lock_guard stop_lock(stop_mu_);
  {
    std::lock_guard lock(mu_);
    if (!accepting_) return;
    accepting_ = false;
    stop_requested_ = true;
  }
  wake_loop();
  thread_.join();
  (void)uv_loop_close(&loop_);
  // Requests Raft never answered end as unknown. Every task queued before
  // stop() ran in the loop's last drain: post() takes none after it.
  auto left = std::move(outstanding_);
  outstanding_.clear();
  for (auto& [req, fail] : left) fail();
  std::lock_guard lock(mu_);
  status_.role = Role::kUnavailable;
}

}  // namespace

Result<std::unique_ptr<Consensus>> start_raft_consensus(const ConsensusOptions& options,
                                                        StateMachine& machine) {
  auto consensus = std::make_unique<RaftConsensus>(options, machine);
  ORDO_RETURN_IF_ERROR(consensus->start());
  return std::unique_ptr<Consensus>(std::move(consensus));
}

}  // namespace ordo::replica
