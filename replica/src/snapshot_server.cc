#include "snapshot_server.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <list>
#include <memory>
#include <vector>

#include "codec.h"
#include "ordo/sys/socket.h"

namespace ordo::replica {

namespace {

// Each send of a reply (up to 1 MiB of a copy) must be done within this.
constexpr auto kIoTimeout = std::chrono::seconds(10);
// The whole request line must arrive within this.
constexpr auto kRequestDeadline = std::chrono::seconds(5);
// Connections served at once; more are closed at accept.
constexpr size_t kMaxConnections = 4;

// An empty file in `dir` that no name reaches: it goes away with its last
// descriptor, also when the process dies.
Result<int> anonymous_file(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // Filesystems without O_TMPFILE: a unique name, unlinked at once.
  std::string pattern = dir + "/serving-XXXXXX";
  fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (fd < 0) return Status::io_error("create a copy in " + dir, errno);
  ::unlink(pattern.c_str());
  return fd;
}

struct Digest {
  uint64_t size = 0;
  uint64_t xxh3 = 0;
};

Result<Digest> digest_fd(int fd, std::vector<char>& buf) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  XXH3_64bits_reset(state.get());
  Digest d;
  for (;;) {
    ssize_t n = ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(d.size));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::io_error("read copy", errno);
    if (n == 0) break;
    XXH3_64bits_update(state.get(), buf.data(), static_cast<size_t>(n));
    d.size += static_cast<uint64_t>(n);
  }
  d.xxh3 = XXH3_64bits_digest(state.get());
  return d;
}

}  // namespace

Result<std::unique_ptr<SnapshotServer>> SnapshotServer::start(const sys::HostPort& at,
                                                              std::string copies_dir,
                                                              CopyMaker make_copy,
                                                              ClusterIdSource cluster_id) {
  ORDO_ASSIGN_OR_RETURN(int fd, sys::listen_on(at, 16, sys::Blocking::kYes));
  return std::unique_ptr<SnapshotServer>(
      new SnapshotServer(fd, std::move(copies_dir), std::move(make_copy), std::move(cluster_id)));
}

SnapshotServer::SnapshotServer(int listen_fd, std::string copies_dir, CopyMaker make_copy,
                               ClusterIdSource cluster_id)
    : listen_fd_(listen_fd),
      copies_dir_(std::move(copies_dir)),
      make_copy_(std::move(make_copy)),
      cluster_id_(std::move(cluster_id)) {
  thread_ = std::thread([this] { run(); });
}

SnapshotServer::~SnapshotServer() {
  stopping_.store(true);
  // Wakes the blocking accept() (Linux returns EINVAL to it).
  ::shutdown(listen_fd_, SHUT_RDWR);
  thread_.join();
  ::close(listen_fd_);
  std::list<Worker> workers;
  {
    std::lock_guard lock(workers_mu_);
    // Ends every transfer at once: its next read or write fails.
    for (Worker& w : workers_) {
      if (w.fd >= 0) ::shutdown(w.fd, SHUT_RDWR);
    }
    workers.swap(workers_);
  }
  for (Worker& w : workers) w.thread.join();
}

void SnapshotServer::reap_workers() {
  std::list<Worker> finished;
  {
    std::lock_guard lock(workers_mu_);
    for (auto it = workers_.begin(); it != workers_.end();) {
      auto next = std::next(it);
      if (it->fd < 0) finished.splice(finished.end(), workers_, it);
      it = next;
    }
  }
  for (Worker& w : finished) w.thread.join();
}

void SnapshotServer::run() {
  while (!stopping_.load()) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    reap_workers();
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (stopping_.load()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    std::lock_guard lock(workers_mu_);
    if (workers_.size() >= kMaxConnections) {
      // The fetcher sees the connection closed and tries again later.
      ::close(fd);
      continue;
    }
    workers_.push_back(Worker{std::thread(), fd});
    Worker* w = &workers_.back();
    w->thread = std::thread([this, w, fd] {
      serve(fd);
      std::lock_guard done(workers_mu_);
      ::close(fd);
      w->fd = -1;
    });
  }
}

void SnapshotServer::serve(int fd) {
  Result<std::string> request = sys::read_line(fd, 64, sys::deadline_in(kRequestDeadline));
  if (!request.is_ok()) return;
  auto refuse = [&](const Status& why) {
    if (!why.is_ok())
      std::fprintf(stderr, "ordo snapshot server: no copy: %s\n", why.to_string().c_str());
    std::string header;
    codec::put_u64_be(header, kNoCopy);
    (void)sys::send_all(fd, header, sys::deadline_in(kIoTimeout));
  };
  const std::string prefix = std::string(kCopyRequest) + " ";
  if (request->compare(0, prefix.size(), prefix) != 0) return refuse(Status::ok());
  const ClusterId own = cluster_id_ ? cluster_id_() : ClusterId();
  const std::string asked = request->substr(prefix.size());
  if (own.known() && asked != own.hex()) {
    std::fprintf(stderr,
                 "ordo snapshot server: refused a copy request for cluster %s: this node is "
                 "cluster %s\n",
                 asked.substr(0, 32).c_str(), own.hex().c_str());
    std::string header;
    codec::put_u64_be(header, kWrongCluster);
    header.append(reinterpret_cast<const char*>(own.bytes.data()), own.bytes.size());
    (void)sys::send_all(fd, header, sys::deadline_in(kIoTimeout));
    return;
  }

  Result<int> file = anonymous_file(copies_dir_);
  if (!file.is_ok()) return refuse(file.status());
  std::vector<char> buf(1 << 20);
  Status s;
  Result<uint64_t> applied = make_copy_(*file);
  Result<Digest> digest =
      applied.is_ok() ? digest_fd(*file, buf) : Result<Digest>(applied.status());
  if (!digest.is_ok()) {
    ::close(*file);
    return refuse(digest.status());
  }
  std::string header;
  codec::put_u64_be(header, digest->size);
  codec::put_u64_be(header, digest->xxh3);
  codec::put_u64_be(header, *applied);
  header.append(reinterpret_cast<const char*>(own.bytes.data()), own.bytes.size());
  s = sys::send_all(fd, header, sys::deadline_in(kIoTimeout));
  uint64_t sent = 0;
  while (s.is_ok() && sent < digest->size) {
    ssize_t n = ::pread(*file, buf.data(), buf.size(), static_cast<off_t>(sent));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the client sees a short copy and rejects it
    s = sys::send_all(fd, std::string_view(buf.data(), static_cast<size_t>(n)),
                      sys::deadline_in(kIoTimeout));
    sent += static_cast<uint64_t>(n);
  }
  ::close(*file);
  if (s.is_ok() && sent == digest->size) copies_served_.fetch_add(1);
}

}  // namespace ordo::replica
