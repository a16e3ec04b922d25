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

#include "ordo/sys/socket.h"
#include "ordo/sys/stream.h"

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

Result<std::unique_ptr<SnapshotServer>> SnapshotServer::start(
    const sys::HostPort& at, std::string copies_dir, CopyMaker make_copy,
    ClusterIdSource cluster_id, std::shared_ptr<const sys::TlsContext> tls,
    RemovedHandler on_removed) {
  ORDO_ASSIGN_OR_RETURN(int fd, sys::listen_on(at, 16, sys::Blocking::kYes));
  return std::unique_ptr<SnapshotServer>(
      new SnapshotServer(fd, std::move(copies_dir), std::move(make_copy), std::move(cluster_id),
                         std::move(tls), std::move(on_removed)));
}

SnapshotServer::SnapshotServer(int listen_fd, std::string copies_dir, CopyMaker make_copy,
                               ClusterIdSource cluster_id,
                               std::shared_ptr<const sys::TlsContext> tls,
                               RemovedHandler on_removed)
    : listen_fd_(listen_fd),
      copies_dir_(std::move(copies_dir)),
      make_copy_(std::move(make_copy)),
      on_removed_(std::move(on_removed)),
      tls_(std::move(tls)),
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
  // The stream has a descriptor of its own (a dup): the caller closes `fd`,
  // and the destructor's shutdown(2) of `fd` ends this transfer too.
  const int dup_fd = ::dup(fd);
  if (dup_fd < 0) return;
  sys::Stream stream(dup_fd);
  if (tls_ != nullptr) {
    Result<sys::Stream> secured =
        tls_->handshake(stream.release(), sys::deadline_in(kRequestDeadline));
    if (!secured.is_ok()) {
      std::fprintf(stderr, "ordo snapshot server: %s\n", secured.status().to_string().c_str());
      return;
    }
    stream = std::move(*secured);
  }
  Result<std::string> request =
      stream.read_line(kMaxRemovedNoticeBytes, sys::deadline_in(kRequestDeadline));
  if (!request.is_ok()) return;
  auto refuse = [&](const Status& why) {
    if (!why.is_ok())
      std::fprintf(stderr, "ordo snapshot server: no copy: %s\n", why.to_string().c_str());
    (void)stream.send_all(encode_no_copy(), sys::deadline_in(kIoTimeout));
  };
  if (request->starts_with(kRemovedNotice)) {
    if (on_removed_) on_removed_(*request);
    return;
  }
  Result<ClusterId> asked = parse_copy_request(*request);
  if (!asked.is_ok()) return refuse(Status::ok());
  const ClusterId own = cluster_id_ ? cluster_id_() : ClusterId();
  if (own.known() && *asked != own) {
    std::fprintf(stderr,
                 "ordo snapshot server: refused a copy request for cluster %s: this node is "
                 "cluster %s\n",
                 asked->hex().c_str(), own.hex().c_str());
    (void)stream.send_all(encode_wrong_cluster(own), sys::deadline_in(kIoTimeout));
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
  if (digest->size == kNoCopy || digest->size == kWrongCluster) {
    ::close(*file);
    return refuse(Status::io_error("a copy of 2^64 - 2 bytes or more", 0));
  }
  s = stream.send_all(encode_copy_header({digest->size, digest->xxh3, *applied, own}),
                      sys::deadline_in(kIoTimeout));
  uint64_t sent = 0;
  while (s.is_ok() && sent < digest->size) {
    ssize_t n = ::pread(*file, buf.data(), buf.size(), static_cast<off_t>(sent));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the client sees a short copy and rejects it
    s = stream.send_all(std::string_view(buf.data(), static_cast<size_t>(n)),
                        sys::deadline_in(kIoTimeout));
    sent += static_cast<uint64_t>(n);
  }
  ::close(*file);
  if (s.is_ok() && sent == digest->size) copies_served_.fetch_add(1);
}

}  // namespace ordo::replica
