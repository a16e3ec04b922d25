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
  // copies made by `make_copy` in `copies_dir` until destroyed. Each
  // connection is served on a thread of its own, at most 4 at once (more
  // are closed at accept); the request line must arrive whole within 5 s,
  // and each later send may wait 10 s. With `cluster_id` set and known, a
  // request must name that id (an unknown one is refused too). `tls`: a
  // server context, or null for plaintext. `on_removed` gets the removal
  // notices.
  static Result<std::unique_ptr<SnapshotServer>> start(
      const sys::HostPort& at, std::string copies_dir, CopyMaker make_copy,
      ClusterIdSource cluster_id = {}, std::shared_ptr<const sys::TlsContext> tls = nullptr,
      RemovedHandler on_removed = {});
  ~SnapshotServer();  // stops accepting and joins the thread

  // Copies sent whole since start (from any thread).
  uint64_t copies_served() const { return copies_served_.load(); }

 private:
  SnapshotServer(int listen_fd, std::string copies_dir, CopyMaker make_copy,
                 ClusterIdSource cluster_id, std::shared_ptr<const sys::TlsContext> tls,
                 RemovedHandler on_removed);
  void run();
  void serve(int fd);
  void reap_workers();  // joins the threads of finished connections

  struct Worker {
    std::thread thread;
    int fd;  // -1 once the connection is closed (under workers_mu_)
  };

  int listen_fd_;
  std::string copies_dir_;
  CopyMaker make_copy_;
  RemovedHandler on_removed_;
  std::shared_ptr<const sys::TlsContext> tls_;
  ClusterIdSource cluster_id_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> copies_served_{0};
  std::thread thread_;
  std::mutex workers_mu_;
  std::list<Worker> workers_;  // guarded by workers_mu_
};

}  // namespace ordo::replica
