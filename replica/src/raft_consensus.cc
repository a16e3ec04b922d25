// Consensus over the canonical Raft C library (libraft 0.15) with its libuv
// I/O and TCP transport. The only file that includes raft.h.
//
// One libuv loop runs on a thread of its own. Callers' requests are queued
// under mu_ and handed to the loop with uv_async_send; every raft_* call,
// every StateMachine call and every completion happens on the loop thread.
// A 20 ms timer copies Raft's state into status_ for status().
#include <uv.h>
// raft.h declares its API without extern "C".
extern "C" {
#include <raft.h>
#include <raft/uv.h>
}

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "consensus.h"
#include "ordo/base/errno_status.h"
#include "ordo/sys/ports.h"

namespace ordo::replica {

namespace {

constexpr uint64_t kStatusRefreshMs = 20;
// How often a follower whose apply failed on the environment applies again.
constexpr uint64_t kApplyRetryMs = 200;

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

// libraft 0.15's TCP transport leaves Nagle's algorithm on: a small
// AppendEntries (or its result) written while an earlier one is unacknowledged
// waits for the peer's delayed ACK (up to 40 ms on Linux). This transport
// forwards every call to the one raft_uv_tcp_init made and turns Nagle off
// (TCP_NODELAY) on each connection it hands to Raft, outgoing or accepted.
struct NoDelayTransport {
  raft_uv_transport outer{};           // what raft_uv_init is given
  raft_uv_transport* inner = nullptr;  // the TCP transport; inner->data points here
  raft_uv_accept_cb accept_cb = nullptr;
  raft_uv_transport_close_cb close_cb = nullptr;
};

// A connect in flight: the TCP transport's request, and Raft's.
struct NoDelayConnect {
  raft_uv_connect req{};
  raft_uv_connect* outer = nullptr;
  raft_uv_connect_cb outer_cb = nullptr;
};

void set_nodelay(uv_stream_t* stream) {
  if (stream != nullptr && stream->type == UV_TCP) {
    (void)uv_tcp_nodelay(reinterpret_cast<uv_tcp_t*>(stream), 1);
  }
}

NoDelayTransport* nodelay_of(raft_uv_transport* outer) {
  return static_cast<NoDelayTransport*>(outer->impl);
}

void copy_errmsg(raft_uv_transport* to, const raft_uv_transport* from) {
  std::memcpy(to->errmsg, from->errmsg, sizeof to->errmsg);
}

int nodelay_init(raft_uv_transport* t, raft_id id, const char* address) {
  raft_uv_transport* inner = nodelay_of(t)->inner;
  int rv = inner->init(inner, id, address);
  if (rv != 0) copy_errmsg(t, inner);
  return rv;
}

void nodelay_accepted(raft_uv_transport* inner, raft_id id, const char* address,
                      uv_stream_t* stream) {
  auto* self = static_cast<NoDelayTransport*>(inner->data);
  set_nodelay(stream);
  self->accept_cb(&self->outer, id, address, stream);
}

int nodelay_listen(raft_uv_transport* t, raft_uv_accept_cb cb) {
  NoDelayTransport* self = nodelay_of(t);
  self->accept_cb = cb;
  int rv = self->inner->listen(self->inner, &nodelay_accepted);
  if (rv != 0) copy_errmsg(t, self->inner);
  return rv;
}

void nodelay_connected(raft_uv_connect* req, uv_stream_t* stream, int status) {
  auto* c = static_cast<NoDelayConnect*>(req->data);
  if (status == 0) set_nodelay(stream);
  raft_uv_connect* outer = c->outer;
  raft_uv_connect_cb cb = c->outer_cb;
  delete c;
  cb(outer, stream, status);
}

int nodelay_connect(raft_uv_transport* t, raft_uv_connect* req, raft_id id, const char* address,
                    raft_uv_connect_cb cb) {
  NoDelayTransport* self = nodelay_of(t);
  auto* c = new NoDelayConnect;
  c->outer = req;
  c->outer_cb = cb;
  c->req.data = c;
  req->cb = cb;
  int rv = self->inner->connect(self->inner, &c->req, id, address, &nodelay_connected);
  if (rv != 0) {
    delete c;
    copy_errmsg(t, self->inner);
  }
  return rv;
}

void nodelay_closed(raft_uv_transport* inner) {
  auto* self = static_cast<NoDelayTransport*>(inner->data);
  if (self->close_cb != nullptr) self->close_cb(&self->outer);
}

void nodelay_close(raft_uv_transport* t, raft_uv_transport_close_cb cb) {
  NoDelayTransport* self = nodelay_of(t);
  self->close_cb = cb;
  self->inner->close(self->inner, &nodelay_closed);
}

// Wraps `inner` (made by raft_uv_tcp_init) into `self->outer`.
void nodelay_wrap(NoDelayTransport* self, raft_uv_transport* inner) {
  self->inner = inner;
  inner->data = self;
  self->outer.data = nullptr;
  self->outer.impl = self;
  self->outer.init = &nodelay_init;
  self->outer.listen = &nodelay_listen;
  self->outer.connect = &nodelay_connect;
  self->outer.close = &nodelay_close;
}

class RaftConsensus;

// One request in flight inside Raft; the raft_* struct comes first so that
// the callbacks get back to it.
struct ApplyRequest {
  struct raft_apply req {};
  RaftConsensus* self = nullptr;
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
  ChangeDone done;
};

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
  ~RaftConsensus() override { stop(); }

  Status start();

  void propose(std::string entry, WriteDone done) override;
  void barrier(WriteDone done) override;
  void add_member(const Member& member, ChangeDone done) override;
  void remove_member(uint64_t id, ChangeDone done) override;
  ConsensusStatus status() const override {
    std::lock_guard lock(mu_);
    return status_;
  }
  void stop() override;

 private:
  // Runs `task` on the loop thread, or `rejected` on the caller's when the
  // loop no longer takes requests.
  void post(std::function<void()> task, const std::function<void()>& rejected);
  void refresh_status();
  void retry_stalled_apply();
  // Applies the kept entries in order; true once none is left.
  bool drain_deferred();
  WriteResult not_leader(int rv);
  Status change_status(int rv, const char* what);
  void begin_close();
  // Raft addresses to fetch a pending install from: the leader, then the
  // other members (this replica may lead itself).
  std::vector<std::string> install_sources();
  void report(const char* what, const Status& s);
  void close_without_loop_thread();

  static void on_async(uv_async_t* handle);
  static void on_timer(uv_timer_t* handle);
  static void on_raft_closed(struct raft* r);
  static void on_apply(struct raft_apply* req, int status, void* result);
  static void on_barrier(struct raft_barrier* req, int status);
  static void on_change(struct raft_change* req, int status);
  static int fsm_apply(raft_fsm* fsm, const raft_buffer* buf, void** result);
  static int fsm_snapshot(raft_fsm* fsm, raft_buffer* bufs[], unsigned* n_bufs);
  static int fsm_snapshot_finalize(raft_fsm* fsm, raft_buffer* bufs[], unsigned* n_bufs);
  static int fsm_restore(raft_fsm* fsm, raft_buffer* buf);

  const ConsensusOptions options_;
  StateMachine& machine_;

  uv_loop_t loop_{};
  uv_async_t async_{};
  uv_timer_t timer_{};
  raft_uv_transport transport_{};  // libraft's TCP transport
  NoDelayTransport nodelay_{};     // wraps transport_; given to raft_uv_init
  raft_io io_{};
  raft_fsm fsm_{};
  struct raft raft_ {};
  std::thread thread_;

  mutable std::mutex mu_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  bool accepting_ = false;                   // guarded by mu_
  bool stop_requested_ = false;              // guarded by mu_
  ConsensusStatus status_;                   // guarded by mu_
  std::mutex stop_mu_;                       // one stop() at a time

  // Loop thread only.
  bool closing_ = false;
  // Set by fsm_apply just before Raft calls the entry's apply callback (Raft
  // calls it right after fsm->apply returns, with no other apply between).
  Status last_apply_status_;
  std::vector<PrevValue> last_apply_prev_;  // as last_apply_status_: the entry's prev values
  // Committed entries a follower could not apply (IOError, Full), in log
  // order: Raft counts them applied, the timer applies them every
  // kApplyRetryMs, snapshots wait until none is left. Not bounded: Raft's
  // own log holds the same entries in memory until the next snapshot.
  struct Deferred {
    uint64_t index;
    std::string entry;
  };
  std::deque<Deferred> deferred_;
  uint64_t stalled_ticks_ = 0;
  // The last failed restore, so that a start that fails in it says why.
  Status last_restore_status_;
  std::chrono::steady_clock::time_point last_report_{};
  // Requests inside Raft, each with how to end it as unknown should Raft
  // never call back.
  std::unordered_map<void*, std::function<void()>> outstanding_;
};

Status RaftConsensus::start() {
  int rv = uv_loop_init(&loop_);
  if (rv != 0) return Status::io_error(std::string("uv_loop_init: ") + uv_strerror(rv), -rv);
  uv_async_init(&loop_, &async_, &RaftConsensus::on_async);
  async_.data = this;
  uv_timer_init(&loop_, &timer_);
  timer_.data = this;

  transport_.data = nullptr;
  rv = raft_uv_tcp_init(&transport_, &loop_);
  if (rv != 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
    close_without_loop_thread();
    return Status::io_error(std::string("raft_uv_tcp_init: ") + raft_strerror(rv), 0);
  }
  nodelay_wrap(&nodelay_, &transport_);
  rv = raft_uv_init(&io_, &loop_, options_.raft_dir.c_str(), &nodelay_.outer);
  if (rv != 0) {
    std::string why = std::string("raft_uv_init ") + options_.raft_dir + ": " + io_.errmsg;
    raft_uv_tcp_close(&transport_);
    uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
    close_without_loop_thread();
    return Status::io_error(why, 0);
  }
  // The payload is a record of a few dozen bytes: nothing to compress.
  (void)raft_uv_set_snapshot_compression(&io_, false);

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
    raft_uv_tcp_close(&transport_);
    uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
    close_without_loop_thread();
    return Status::io_error(why, 0);
  }
  raft_.data = this;

  Status failed;
  if (!options_.bootstrap.empty()) {
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
    rv = raft_start(&raft_);
    if (rv != 0 && !last_restore_status_.is_ok()) {
      failed = last_restore_status_.with_context("restoring the newest snapshot");
    } else if (rv != 0) {
      // libraft 0.15 often leaves its message empty (a Raft port in use):
      // the code's name and the address say what failed.
      std::string msg = raft_strerror(rv);
      const std::string detail = raft_errmsg(&raft_);
      if (!detail.empty() && detail != msg) msg += " (" + detail + ")";
      Result<sys::HostPort> at = sys::parse_address(options_.address);
      const Status bind = at.is_ok() ? sys::bind_probe(*at) : Status::ok();
      if (bind.errno_value() != 0)
        msg += ": cannot bind it: " + base::errno_text(bind.errno_value());
      if (rv == RAFT_NOCONNECTION || msg.find("address") != std::string::npos ||
          msg.find("listen") != std::string::npos || msg.find("bind") != std::string::npos) {
        failed =
            Status::io_error("raft_start on " + options_.address + ": " + msg + "", EADDRINUSE);
      } else {
        failed = Status::io_error("raft_start on " + options_.address + ": " + msg, 0);
      }
    }
  }
  if (!failed.is_ok()) {
    closing_ = true;
    raft_close(&raft_, &RaftConsensus::on_raft_closed);
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

// Runs the loop on the calling thread until every handle closed.
void RaftConsensus::close_without_loop_thread() {
  uv_run(&loop_, UV_RUN_DEFAULT);
  (void)uv_loop_close(&loop_);
}

void RaftConsensus::post(std::function<void()> task, const std::function<void()>& rejected) {
  {
    std::lock_guard lock(mu_);
    if (accepting_) {
      queue_.push_back(std::move(task));
      uv_async_send(&async_);
      return;
    }
  }
  rejected();
}

void RaftConsensus::on_async(uv_async_t* handle) {
  auto* self = static_cast<RaftConsensus*>(handle->data);
  std::deque<std::function<void()>> tasks;
  bool stop = false;
  {
    std::lock_guard lock(self->mu_);
    tasks.swap(self->queue_);
    stop = self->stop_requested_;
  }
  for (auto& task : tasks) task();
  if (stop) self->begin_close();
}

void RaftConsensus::on_timer(uv_timer_t* handle) {
  auto* self = static_cast<RaftConsensus*>(handle->data);
  self->refresh_status();
  self->retry_stalled_apply();
}

bool RaftConsensus::drain_deferred() {
  while (!deferred_.empty()) {
    Deferred& d = deferred_.front();
    ApplyOutcome outcome = machine_.apply(d.index, ByteView(d.entry));
    if (outcome.retry) {
      report("cannot apply the log (retrying every 200 ms)",
             outcome.status.with_context("entry " + std::to_string(d.index)));
      return false;
    }
    deferred_.pop_front();
  }
  return true;
}

void RaftConsensus::retry_stalled_apply() {
  if (deferred_.empty() || closing_) return;
  if (++stalled_ticks_ * kStatusRefreshMs < kApplyRetryMs) return;
  stalled_ticks_ = 0;
  (void)drain_deferred();
}

void RaftConsensus::refresh_status() {
  ConsensusStatus s;
  s.role = role_of(raft_state(&raft_));
  s.term = raft_.current_term;
  raft_id leader_id = 0;
  const char* leader_address = nullptr;
  raft_leader(&raft_, &leader_id, &leader_address);
  s.leader_id = leader_id;
  if (leader_address != nullptr) s.leader_address = leader_address;
  s.last_log_index = raft_last_index(&raft_);
  s.commit_index = raft_.commit_index;
  s.last_applied = raft_last_applied(&raft_);
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

void RaftConsensus::propose(std::string entry, WriteDone done) {
  auto shared_done = std::make_shared<WriteDone>(std::move(done));
  post(
      [this, entry = std::move(entry), shared_done] {
        raft_buffer buf;
        buf.len = framed_size(entry.size());
        buf.base = raft_malloc(buf.len);
        if (buf.base == nullptr) {
          (*shared_done)(unknown("out of memory"));
          return;
        }
        frame(entry, static_cast<char*>(buf.base));
        auto* req = new ApplyRequest;
        req->self = this;
        req->done = std::move(*shared_done);
        req->req.data = req;
        int rv = raft_apply(&raft_, &req->req, &buf, 1, &RaftConsensus::on_apply);
        if (rv != 0) {
          raft_free(buf.base);  // ownership passes to Raft only on success
          complete(req, not_leader(rv));
          return;
        }
        outstanding_[req] = [req] { complete(req, unknown("replica closing")); };
      },
      [shared_done] { (*shared_done)(unknown("replica closing")); });
}

void RaftConsensus::on_apply(struct raft_apply* raw, int status, void* /*result*/) {
  auto* req = static_cast<ApplyRequest*>(raw->data);
  RaftConsensus* self = req->self;
  self->outstanding_.erase(req);
  WriteResult r;
  if (status == 0) {
    r.index = raw->index;
    r.status = self->last_apply_status_;
    r.outcome = r.status.is_ok() ? Outcome::kApplied : Outcome::kFailed;
    r.prev = std::move(self->last_apply_prev_);
  } else if (status == RAFT_SHUTDOWN) {
    r = unknown("replica closing");
  } else {
    r = unknown(std::string("leadership lost (") + raft_strerror(status) + ")");
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
      [shared_done] { (*shared_done)(unknown("replica closing")); });
}

void RaftConsensus::on_barrier(struct raft_barrier* raw, int status) {
  auto* req = static_cast<BarrierRequest*>(raw->data);
  RaftConsensus* self = req->self;
  self->outstanding_.erase(req);
  WriteResult r;
  if (status == 0 && !self->deferred_.empty()) {
    // Raft counts entries applied that this replica has still to apply.
    r = unknown(
        "entries before the barrier are not applied here yet (a disk error: see apply_error)");
  } else if (status == 0) {
    r.outcome = Outcome::kApplied;
    r.index = raw->index;
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

void RaftConsensus::add_member(const Member& member, ChangeDone done) {
  auto shared_done = std::make_shared<ChangeDone>(std::move(done));
  post(
      [this, member, shared_done] {
        auto* req = new ChangeRequest;
        req->self = this;
        req->id = member.id;
        req->then_assign_voter = member.voter;
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
      [shared_done] { (*shared_done)(Status::io_error("replica closing", 0)); });
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
      [shared_done] { (*shared_done)(Status::io_error("replica closing", 0)); });
}

void RaftConsensus::on_change(struct raft_change* raw, int status) {
  auto* req = static_cast<ChangeRequest*>(raw->data);
  RaftConsensus* self = req->self;
  self->outstanding_.erase(req);
  if (status == 0 && req->then_assign_voter && !self->closing_) {
    // Added as a spare; the voter role is given once it caught up (Raft runs
    // catch-up rounds before committing the assignment).
    req->then_assign_voter = false;
    int rv = raft_assign(&self->raft_, &req->req, req->id, RAFT_VOTER, &RaftConsensus::on_change);
    if (rv == 0) {
      self->outstanding_[req] = change_fail(req);
      return;
    }
    status = rv;
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
    Status s = self->machine_.finish_install(self->install_sources());
    if (!s.is_ok()) {
      self->report("snapshot install failed", s);
      return RAFT_IOERR;
    }
  }
  ApplyOutcome outcome{};
  if (!self->deferred_.empty() && !self->drain_deferred()) {
    outcome.retry = true;
  } else {
    outcome = self->machine_.apply(index, unframe(*buf));
    if (outcome.retry) {
      self->report("cannot apply the log (retrying every 200 ms)",
                   outcome.status.with_context("entry " + std::to_string(index)));
    }
  }
  if (outcome.retry) {
    // libraft 0.15 turns an apply error met while handling a heartbeat into
    // its unavailable state, for good: a follower keeps the entry itself and
    // the timer applies it (and those after it, in order) once it can. A
    // leader (whose proposers wait for the outcome) makes Raft try again at
    // each heartbeat reply instead.
    ByteView bytes = unframe(*buf);
    if (raft_state(&self->raft_) == RAFT_LEADER) return RAFT_IOERR;
    self->deferred_.push_back(Deferred{index, bytes.str()});
    self->last_apply_status_ = Status::ok();
    self->last_apply_prev_.clear();
    return 0;
  }
  self->last_apply_status_ = std::move(outcome.status);
  self->last_apply_prev_ = std::move(outcome.prev);
  return 0;
}

int RaftConsensus::fsm_snapshot(raft_fsm* fsm, raft_buffer* bufs[], unsigned* n_bufs) {
  auto* self = static_cast<RaftConsensus*>(fsm->data);
  // Raft would drop log entries this replica has still to apply.
  if (!self->deferred_.empty()) return RAFT_BUSY;
  Result<std::string> record = self->machine_.snapshot();
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
  raft_id leader_id = 0;
  const char* leader_address = nullptr;
  raft_leader(&self->raft_, &leader_id, &leader_address);
  // Itself as leader (a single member): nobody to fetch from, as at startup.
  if (leader_id == self->options_.id) leader_address = nullptr;
  Status s = self->machine_.restore(ByteView(buf->base, buf->len),
                                    leader_address != nullptr ? leader_address : "");
  self->last_restore_status_ = s;
  if (!s.is_ok()) {
    self->report("snapshot restore failed", s);
    return RAFT_IOERR;
  }
  raft_free(buf->base);
  return 0;
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
  const auto now = std::chrono::steady_clock::now();
  if (now - last_report_ < std::chrono::seconds(1)) return;
  last_report_ = now;
  std::fprintf(stderr, "ordo replica %llu: %s: %s\n", static_cast<unsigned long long>(options_.id),
               what, s.to_string().c_str());
}

void RaftConsensus::begin_close() {
  if (closing_) return;
  closing_ = true;
  uv_timer_stop(&timer_);
  raft_close(&raft_, &RaftConsensus::on_raft_closed);
}

void RaftConsensus::on_raft_closed(struct raft* r) {
  auto* self = static_cast<RaftConsensus*>(r->data != nullptr ? r->data : nullptr);
  if (self == nullptr) return;
  raft_uv_close(&self->io_);
  raft_uv_tcp_close(&self->transport_);
  if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&self->async_))) {
    uv_close(reinterpret_cast<uv_handle_t*>(&self->async_), nullptr);
  }
  if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&self->timer_))) {
    uv_close(reinterpret_cast<uv_handle_t*>(&self->timer_), nullptr);
  }
}

void RaftConsensus::stop() {
  std::lock_guard stop_lock(stop_mu_);
  {
    std::lock_guard lock(mu_);
    if (!accepting_) return;
    accepting_ = false;
    stop_requested_ = true;
    uv_async_send(&async_);
  }
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
