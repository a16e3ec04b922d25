#include "connection_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "ordo/assert.h"
#include "ordo/sys/log_rate.h"
#include "protocol.h"

namespace ordo::node {
namespace {

using Clock = std::chrono::steady_clock;

// A request has this long to arrive once its first byte has; a reply this
// long to leave; a TLS handshake this long once the client has begun it.
constexpr auto kRequestArrival = std::chrono::seconds(30);
constexpr auto kReplySend = std::chrono::seconds(30);
constexpr auto kHandshake = std::chrono::seconds(10);
// How long a connection at the limit waits for workers to hand back
// connections they may be closing (see make_room).
constexpr auto kRoomWait = std::chrono::milliseconds(50);
// A worker started beyond the pool ends after this long without work.
constexpr auto kWorkerLinger = std::chrono::seconds(10);
// How often the poller looks at the stop flag and for idle connections.
constexpr int kPollMs = 200;
// How long a worker that has sent a reply waits on the connection for the
// next request (see serve_requests).
constexpr long kNextRequestWaitNs = 1'000'000;

std::string peer_of(const sockaddr_in& sa) {
  char host[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &sa.sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(sa.sin_port));
}

// epoll data of the listener and of the wake-up eventfd; connections carry
// their Conn*.
char listener_tag;
char wake_tag;

}  // namespace

// Not in the anonymous namespace: ConnectionServer::Impl (a type with
// linkage) holds it.
namespace connection_server_internal {
struct Conn {
  sys::Stream stream;
  std::string peer;         // "IPv4:port" of the client, for messages
  bool handshaken = false;  // true from the start without TLS
  bool in_service = false;  // with a worker (the poller's view)
  // Set by a hello that named another cluster: the connection's requests
  // other than hello are refused with it.
  std::string wrong_cluster;
  Clock::time_point idle_since;
};
}  // namespace connection_server_internal
using connection_server_internal::Conn;

std::vector<std::pair<std::string, std::string>> ConnectionCounters::entries() const {
  return {
      {"connections_open", std::to_string(connections_open.load())},
      {"connections_accepted", std::to_string(connections_accepted.load())},
      {"connections_refused", std::to_string(connections_refused.load())},
      {"connections_idle_closed", std::to_string(connections_idle_closed.load())},
      {"worker_threads", std::to_string(worker_threads.load())},
      {"tls_handshake_failures", std::to_string(tls_handshake_failures.load())},
      {"tls_plaintext_refused", std::to_string(tls_plaintext_refused.load())},
      {"tls_peers_refused", std::to_string(tls_peers_refused.load())},
  };
}

size_t default_worker_count() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::max<size_t>(4, 2 * static_cast<size_t>(cores));
}

struct ConnectionServer::Impl {
  Impl(int listen, std::shared_ptr<sys::TlsContext> context, ConnectionLimits l, RequestHandler& h,
       ConnectionCounters& c)
      : listen_fd(listen), tls(std::move(context)), limits(l), handler(h), counters(c) {}

  int listen_fd;
  std::shared_ptr<sys::TlsContext> tls;
  ConnectionLimits limits;
  RequestHandler& handler;
  ConnectionCounters& counters;
  int epoll_fd = -1;
  int wake_fd = -1;
  // Every open connection; touched by the poller thread only.
  std::unordered_map<Conn*, std::unique_ptr<Conn>> conns;

  std::mutex mu;
  std::condition_variable work_cv;
  std::deque<Conn*> ready;              // guarded by mu: for a worker
  std::vector<Conn*> returned;          // guarded by mu: served, back to the poller
  bool stopping = false;                // guarded by mu
  size_t idle_workers = 0;              // guarded by mu: waiting for work
  size_t live_workers = 0;              // guarded by mu
  std::vector<std::thread::id> exited;  // guarded by mu: to be joined
  // Every worker thread not yet joined; touched by the poller thread only.
  std::map<std::thread::id, std::thread> workers;
  sys::RateLimitedLog refusals;  // report()'s lines

  // --- workers ---

  // A worker above limits.workers ends after kWorkerLinger without work.
  void work() {
    for (;;) {
      Conn* c = nullptr;
      {
        std::unique_lock lock(mu);
        ++idle_workers;
        const bool woken =
            work_cv.wait_for(lock, kWorkerLinger, [&] { return stopping || !ready.empty(); });
        --idle_workers;
        if (stopping || (!woken && live_workers > limits.workers)) {
          --live_workers;
          exited.push_back(std::this_thread::get_id());
          return;
        }
        if (!woken) continue;
        c = ready.front();
        ready.pop_front();
      }
      if (c->handshaken) {
        serve_requests(*c);
      } else {
        handshake(*c);
      }
      {
        std::lock_guard lock(mu);
        returned.push_back(c);
      }
      const uint64_t one = 1;
      (void)!::write(wake_fd, &one, sizeof one);
    }
  }

  // One line on stderr for a refused client, at most one a second (a
  // client retrying would repeat it); the counters have every refusal.
  void report(const std::string& peer, const std::string& why) {
    (void)refusals.print("ordo-node: client " + peer + ": " + why);
  }

  void handshake(Conn& c) {
    ORDO_ASSERT(tls != nullptr);
    // A client that does not begin with a TLS handshake record is not
    // speaking TLS: nothing it sends is read.
    unsigned char first = 0;
    const ssize_t n = ::recv(c.stream.fd(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      c.stream.close();  // gone before a byte
      return;
    }
    if (n == 1 && first != sys::kTlsHandshakeRecord) {
      counters.tls_plaintext_refused.fetch_add(1);
      counters.tls_handshake_failures.fetch_add(1);
      report(c.peer, "not TLS (a plaintext client?), closed");
      c.stream.close();
      return;
    }
    Result<sys::Stream> s = tls->handshake(c.stream.release(), Clock::now() + kHandshake);
    if (!s.is_ok()) {
      counters.tls_handshake_failures.fetch_add(1);
      if (s.status().errno_value() == EACCES) counters.tls_peers_refused.fetch_add(1);
      report(c.peer, s.status().message());
      return;  // the descriptor is closed
    }
    c.stream = std::move(*s);
    c.handshaken = true;
  }

  // A client in a request-reply loop sends its next request one round trip
  // after the reply: waiting that long for it on the connection spares the
  // hand-back to the poller and the poller's hand-off to a worker (two
  // thread wake-ups on the request's path). The worker stops waiting when
  // other connections wait for one, or the server stops.
  void serve_requests(Conn& c) {
    serve_request(c);
    while (c.stream.is_open() && (c.stream.buffered() > 0 || next_request_soon(c))) {
      serve_request(c);
    }
  }

  bool next_request_soon(const Conn& c) {
    {
      std::lock_guard lock(mu);
      if (stopping || !ready.empty()) return false;
    }
    pollfd p{c.stream.fd(), POLLIN, 0};
    const timespec wait{0, kNextRequestWaitNs};
    return ::ppoll(&p, 1, &wait, nullptr) > 0 && (p.revents & POLLIN) != 0;
  }

  void serve_request(Conn& c) {
    auto body = read_frame(c.stream, Clock::now() + kRequestArrival);
    if (!body.is_ok()) {
      if (body.status().is_invalid_argument()) {
        WireReply r;
        r.code = ReplyCode::kFailed;
        r.message = body.status().message();
        (void)write_frame(c.stream, encode_reply(r), Clock::now() + std::chrono::seconds(1));
      }
      c.stream.close();
      return;
    }
    WireReply reply;
    auto request = decode_request(*body);
    if (!request.is_ok()) {
      reply.code = ReplyCode::kFailed;
      reply.message = request.status().message();
    } else if (!c.wrong_cluster.empty() && request->op != Op::kHello) {
      reply.code = ReplyCode::kFailed;
      reply.message = c.wrong_cluster;
    } else {
      reply = handler.handle(*request);
      if (request->op == Op::kStatus && reply.code == ReplyCode::kOk) add_counters(reply);
      if (request->op == Op::kHello) {
        c.wrong_cluster = reply.code == ReplyCode::kOk ? std::string() : reply.message;
      }
    }
    if (!write_frame(c.stream, encode_reply(reply), Clock::now() + kReplySend).is_ok()) {
      c.stream.close();
    }
  }

  void add_counters(WireReply& reply) const {
    for (auto& [name, value] : counters.entries()) {
      reply.value += name + ": " + value + "\n";
      reply.entries.emplace_back(std::move(name), std::move(value));
    }
  }

  // --- the poller ---

  // Queues `c` for a worker. When no worker is free (all are in requests,
  // or in handshakes, that arrive slowly), one more is started, up to
  // max_connections: slow clients then hold threads of their own, as many
  // as there are of them, not the pool.
  void dispatch(Conn* c) {
    c->in_service = true;
    bool grow = false;
    {
      std::lock_guard lock(mu);
      ready.push_back(c);
      grow = ready.size() > idle_workers && live_workers < limits.max_connections;
      if (grow) ++live_workers;
    }
    work_cv.notify_one();
    if (grow) start_worker();
  }

  void start_worker() {
    std::thread t([this] { work(); });
    const std::thread::id id = t.get_id();
    workers.emplace(id, std::move(t));
    counters.worker_threads.store(workers.size());
  }

  // Joins the workers that have ended.
  void reap_workers() {
    std::vector<std::thread::id> ended;
    {
      std::lock_guard lock(mu);
      ended.swap(exited);
    }
    for (const std::thread::id& id : ended) {
      auto it = workers.find(id);
      if (it == workers.end()) continue;
      it->second.join();
      workers.erase(it);
    }
    if (!ended.empty()) counters.worker_threads.store(workers.size());
  }

  // Watches `c` for its next request (EPOLLONESHOT: one event, then it is
  // a worker's until handed back).
  bool arm(Conn* c, int op) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLONESHOT;
    ev.data.ptr = c;
    return ::epoll_ctl(epoll_fd, op, c->stream.fd(), &ev) == 0;
  }

  void erase(Conn* c) {
    conns.erase(c);
    counters.connections_open.store(conns.size());
  }

  void refuse(int fd) {
    counters.connections_refused.fetch_add(1);
    if (tls == nullptr) {
      WireReply r;
      r.code = ReplyCode::kFailed;
      r.message = "too many connections (" + std::to_string(limits.max_connections) + ")";
      (void)write_frame(fd, encode_reply(r), Clock::now() + std::chrono::seconds(1));
    }
    ::close(fd);
  }

  // Before a refusal: connections the workers have closed, and idle ones
  // whose clients have gone, are not counted against the limit. A client
  // that has just closed one connection and opens the next may find the
  // first still with a worker: up to kRoomWait is given for it to come back.
  void make_room() {
    take_returned();
    const auto until = Clock::now() + kRoomWait;
    while (conns.size() >= limits.max_connections && Clock::now() < until &&
           std::any_of(conns.begin(), conns.end(),
                       [](const auto& c) { return c.first->in_service; })) {
      pollfd p{wake_fd, POLLIN, 0};
      if (::poll(&p, 1, 5) > 0) {
        uint64_t count = 0;
        (void)!::read(wake_fd, &count, sizeof count);
      }
      take_returned();
    }
    for (auto it = conns.begin(); it != conns.end();) {
      Conn* c = it->first;
      if (!c->in_service && c->stream.peer_closed()) {
        ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->stream.fd(), nullptr);
        it = conns.erase(it);
      } else {
        ++it;
      }
    }
    counters.connections_open.store(conns.size());
  }

  void accept_all() {
    for (;;) {
      sockaddr_in sa{};
      socklen_t len = sizeof sa;
      const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&sa), &len,
                               SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;  // EAGAIN: none left; EMFILE and the like: the next round
      }
      if (conns.size() >= limits.max_connections) make_room();
      if (conns.size() >= limits.max_connections) {
        refuse(fd);
        continue;
      }
      auto c = std::make_unique<Conn>();
      c->stream = sys::Stream(fd);
      c->peer = peer_of(sa);
      c->handshaken = tls == nullptr;
      c->idle_since = Clock::now();
      if (!arm(c.get(), EPOLL_CTL_ADD)) continue;  // closed with c
      counters.connections_accepted.fetch_add(1);
      Conn* raw = c.get();
      conns.emplace(raw, std::move(c));
      counters.connections_open.store(conns.size());
    }
  }

  void take_returned() {
    std::vector<Conn*> back;
    {
      std::lock_guard lock(mu);
      back.swap(returned);
    }
    const auto now = Clock::now();
    for (Conn* c : back) {
      c->in_service = false;
      if (!c->stream.is_open()) {
        erase(c);  // its descriptor's close left the epoll set
        continue;
      }
      // Decrypted bytes in the TLS layer wake no epoll: serve them now.
      if (c->stream.buffered() > 0) {
        dispatch(c);
        continue;
      }
      c->idle_since = now;
      if (!arm(c, EPOLL_CTL_MOD)) erase(c);
    }
  }

  void close_idle() {
    const auto now = Clock::now();
    for (auto it = conns.begin(); it != conns.end();) {
      Conn* c = it->first;
      if (!c->in_service && now - c->idle_since > limits.idle_timeout) {
        ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->stream.fd(), nullptr);
        counters.connections_idle_closed.fetch_add(1);
        it = conns.erase(it);
      } else {
        ++it;
      }
    }
    counters.connections_open.store(conns.size());
  }

  Status run(const std::atomic<bool>& stop) {
    epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) return Status::io_error("epoll_create1", errno);
    wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd < 0) return Status::io_error("eventfd", errno);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = &listener_tag;
    if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev) != 0) {
      return Status::io_error("epoll_ctl", errno);
    }
    ev.data.ptr = &wake_tag;
    if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &ev) != 0) {
      return Status::io_error("epoll_ctl", errno);
    }
    limits.workers = std::max<size_t>(1, limits.workers);
    {
      std::lock_guard lock(mu);
      live_workers = limits.workers;
    }
    for (size_t i = 0; i < limits.workers; ++i) start_worker();
    auto last_sweep = Clock::now();
    epoll_event events[64];
    while (!stop.load()) {
      const int n = ::epoll_wait(epoll_fd, events, 64, kPollMs);
      bool accept = false;
      for (int i = 0; i < n; ++i) {
        void* tag = events[i].data.ptr;
        if (tag == &listener_tag) {
          accept = true;  // after the connections handed back are counted out
        } else if (tag == &wake_tag) {
          uint64_t count = 0;
          (void)!::read(wake_fd, &count, sizeof count);
        } else {
          dispatch(static_cast<Conn*>(tag));
        }
      }
      take_returned();
      reap_workers();
      if (accept) accept_all();
      if (Clock::now() - last_sweep >= std::chrono::milliseconds(kPollMs)) {
        close_idle();
        last_sweep = Clock::now();
      }
    }
    return Status::ok();
  }

  // Lets the workers end the requests they are serving, then closes every
  // connection.
  void shut_down() {
    {
      std::lock_guard lock(mu);
      stopping = true;
      ready.clear();
    }
    work_cv.notify_all();
    for (auto& [id, w] : workers) w.join();
    workers.clear();
    counters.worker_threads.store(0);
    conns.clear();
    counters.connections_open.store(0);
    if (epoll_fd >= 0) ::close(epoll_fd);
    if (wake_fd >= 0) ::close(wake_fd);
    epoll_fd = wake_fd = -1;
  }
};

ConnectionServer::ConnectionServer(int listen_fd, std::shared_ptr<sys::TlsContext> tls,
                                   ConnectionLimits limits, RequestHandler& handler,
                                   ConnectionCounters& counters)
    : counters_(counters),
      impl_(std::make_unique<Impl>(listen_fd, std::move(tls), limits, handler, counters_)) {}

ConnectionServer::~ConnectionServer() { impl_->shut_down(); }

Status ConnectionServer::run(const std::atomic<bool>& stop) {
  Status s = impl_->run(stop);
  impl_->shut_down();
  return s;
}

}  // namespace ordo::node
