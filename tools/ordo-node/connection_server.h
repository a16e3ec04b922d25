// The client port's connections: one thread (the caller of run()) owns the
// listener and every idle connection in one epoll set; a pool of worker
// threads serves a connection while a request is in progress (and a
// connection's TLS handshake), then hands it back. An idle connection costs
// a descriptor and a little memory, no thread. When every worker is busy
// (requests that arrive slowly hold theirs up to 30 s) another is started,
// up to max_connections; those beyond the pool end after 10 s without work.
//
// Limits: at most max_connections open (more are answered "too many
// connections" and closed; with TLS closed at once, no reply being
// possible before a handshake), a connection idle for idle_timeout is
// closed, a request has 30 s to arrive whole once its first byte has, a TLS
// handshake 10 s. With TLS every connection must complete a handshake
// (mutual: the client presents a certificate the CA signed, named in the
// allow-list when there is one) before any request is read; a plaintext
// request is not answered, the connection is closed and counted.
// Thread-safety: run() on one thread; counters() from any.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ordo/sys/tls.h"
#include "request_handler.h"

namespace ordo::node {

struct ConnectionLimits {
  uint32_t max_connections = 256;
  std::chrono::milliseconds idle_timeout{60000};
  size_t workers = 4;  // worker threads kept (more are started while all are busy)
};

// What the status reply reports of the client port (every field a count).
struct ConnectionCounters {
  std::atomic<uint64_t> connections_open{0};
  std::atomic<uint64_t> connections_accepted{0};
  std::atomic<uint64_t> connections_refused{0};  // over max_connections
  std::atomic<uint64_t> connections_idle_closed{0};
  std::atomic<uint64_t> worker_threads{0};          // the pool, and more while slow clients hold it
  std::atomic<uint64_t> tls_handshake_failures{0};  // plaintext and refused peers included
  std::atomic<uint64_t> tls_plaintext_refused{0};   // the first byte was not a TLS handshake
  std::atomic<uint64_t> tls_peers_refused{0};       // a certificate name off the allow-list

  // name, value pairs in a fixed order, for the status reply.
  std::vector<std::pair<std::string, std::string>> entries() const;
};

// The worker count for this machine: 2 per core, at least 4.
size_t default_worker_count();

class ConnectionServer {
 public:
  // Serves the non-blocking listening socket `listen_fd` (not owned) with
  // `handler`; `tls` null for plaintext. Counts into `counters`, which
  // must outlive this server (the metrics listener reads them too).
  ConnectionServer(int listen_fd, std::shared_ptr<sys::TlsContext> tls, ConnectionLimits limits,
                   RequestHandler& handler, ConnectionCounters& counters);
  ~ConnectionServer();
  ConnectionServer(const ConnectionServer&) = delete;
  ConnectionServer& operator=(const ConnectionServer&) = delete;

  // Serves until `stop` is true (looked at every 200 ms), then lets the
  // requests in progress end and closes every connection. IOError when the
  // epoll set cannot be made.
  Status run(const std::atomic<bool>& stop);

  const ConnectionCounters& counters() const { return counters_; }

 private:
  ConnectionCounters& counters_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ordo::node
