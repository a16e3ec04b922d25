// Serves the copies in dir/copies to replicas installing a snapshot.
// Protocol on the snapshot port (Raft port + 1), one request per connection:
// the client sends a copy name and '\n'; the server answers the copy's size
// as 8 big-endian bytes and then its bytes, or kNoCopy alone when the name
// is not a copy name (snapshot_record.h) or no such copy is here.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "address.h"
#include "ordo/status.h"

namespace ordo::replica {

inline constexpr uint64_t kNoCopy = ~uint64_t{0};

class SnapshotServer {
 public:
  // Listens on `at` at once (IOError when the port is taken) and serves
  // `copies_dir` on a thread of its own until destroyed.
  static Result<std::unique_ptr<SnapshotServer>> start(const HostPort& at, std::string copies_dir);
  ~SnapshotServer();  // stops accepting and joins the thread

 private:
  SnapshotServer(int listen_fd, std::string copies_dir);
  void run();
  void serve(int fd);

  int listen_fd_;
  std::string copies_dir_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace ordo::replica
