// Serves copies of the live database to replicas installing a snapshot.
// Protocol on the snapshot port (Raft port + 1), one request per connection
// (its bytes: snapshot_wire.h): the client sends kCopyRequest, ' ', the
// cluster id (32 hex digits) and '\n'; the server takes a fresh copy of the
// database (a consistent snapshot of its last commit), then answers the
// copy's size, its XXH3-64 and the applied index it holds, each 8
// big-endian bytes, its cluster id (16 bytes), and then its bytes. A
// request it does not know, or a copy it could not make, is answered with
// kNoCopy alone; a request naming another cluster with kWrongCluster and
// the server's cluster id. A removal notice line (removed_notice.h) is
// handed to the RemovedHandler and not answered. With a TLS context the
// connection is TLS 1.3 from its first byte (both ends verify the other's
// certificate, sys/tls.h); a client that fails the handshake gets nothing.
//
// Each copy is a file of its own in the copies directory, unlinked as soon as
// it is made (the open descriptor keeps it until sent), so a crash leaves no
// copy behind. Copies cost the database's size in disk space and I/O while
// they are being served; nothing is kept between fetches.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cluster_identity.h"
#include "ordo/status.h"
#include "ordo/sys/address.h"
#include "ordo/sys/log_rate.h"
#include "ordo/sys/tls.h"
#include "removed_notice.h"
#include "snapshot_wire.h"

namespace ordo::replica {

// Writes a consistent copy of the live database to the open, empty regular
// file `fd` and returns the applied index the copy holds. Called on the
// connection's thread, possibly on several at once.
using CopyMaker = std::function<Result<uint64_t>(int fd)>;
// Gets each removal notice received; called on a connection's thread.
// Gets a removal notice's line (without '\n'), not yet checked.
using RemovedHandler = std::function<void(std::string_view line)>;

class SnapshotServer {
 public:
  // Listens on `at` at once (IOError when the port is taken) and serves
  // copies made by `make_copy` in `copies_dir` until destroyed. With
  // `cluster_id` set and known, a request must name that id (an unknown one
  // is refused too). `tls`: a server context, or null for plaintext.
  // `on_removed` gets the removal notices.
  //
  // Each connection has a thread of its own. It is first admitted: the TLS
  // handshake (when `tls`) and the whole request line within 5 s, at most
  // 32 connections at once (a newer one pushes the oldest out), so that
  // connections that never authenticate take no copy slot from a member.
  // A copy request that passes then waits for one of 4 copy slots (at
  // most 16 such requests wait; another is answered kNoCopy), and each
  // later send may wait 10 s. Refusals are counted and named on stderr, at
  // most one line a second.
  static Result<std::unique_ptr<SnapshotServer>> start(
      const sys::HostPort& at, std::string copies_dir, CopyMaker make_copy,
      ClusterIdSource cluster_id = {}, std::shared_ptr<const sys::TlsContext> tls = nullptr,
      RemovedHandler on_removed = {});
  ~SnapshotServer();  // stops accepting and joins the threads

  // Copies sent whole since start (from any thread).
  uint64_t copies_served() const { return copies_served_.load(); }
  // Connections closed unserved since start: a failed TLS handshake, no
  // whole request line in time (or pushed out while admitted), a request
  // it does not take, another cluster's (from any thread).
  uint64_t refused_connections() const { return refused_.load(); }

 private:
  SnapshotServer(int listen_fd, std::string copies_dir, CopyMaker make_copy,
                 ClusterIdSource cluster_id, std::shared_ptr<const sys::TlsContext> tls,
                 RemovedHandler on_removed);
  struct Worker {
    std::thread thread;
    int fd;            // -1 once the connection is closed (under workers_mu_)
    std::string peer;  // "IPv4:port", for messages
    bool admitted;     // past the request line (under workers_mu_)
  };
  void run();
  // Admits, then serves the connection of `w`.
  void handle(Worker& w);
  // The request's answer, with a copy slot held.
  void send_copy(sys::Stream& stream, const ClusterId& own);
  void refuse(const std::string& peer, const std::string& why);
  // Under workers_mu_: makes room for one more connection being admitted
  // by ending the oldest one, when kMaxAdmitting are.
  void make_room_locked();
  void reap_workers();  // joins the threads of finished connections

  int listen_fd_;
  std::string copies_dir_;
  CopyMaker make_copy_;
  RemovedHandler on_removed_;
  std::shared_ptr<const sys::TlsContext> tls_;
  ClusterIdSource cluster_id_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> copies_served_{0};
  std::atomic<uint64_t> refused_{0};
  sys::RateLimitedLog log_;
  std::thread thread_;
  std::mutex workers_mu_;
  std::condition_variable slot_cv_;
  std::list<Worker> workers_;  // guarded by workers_mu_, oldest first
  size_t copying_ = 0;         // guarded by workers_mu_: copy slots in use
  size_t waiting_ = 0;         // guarded by workers_mu_: admitted requests waiting for one
};

}  // namespace ordo::replica
