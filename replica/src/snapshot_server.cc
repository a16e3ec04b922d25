#include "snapshot_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
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
// Connections not yet past their request line (TLS handshake included); a
// newer one pushes the oldest out.
constexpr size_t kMaxAdmitting = 32;
// Copies made and sent at once, and admitted requests that may wait for one.
constexpr size_t kMaxCopying = 4;
constexpr size_t kMaxWaiting = 16;

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
  ORDO_ASSIGN_OR_RETURN(int fd, sys::listen_on(at, 64, sys::Blocking::kYes));
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
  }
  slot_cv_.notify_all();  // requests waiting for a slot give up (stopping_)
  {
    std::lock_guard lock(workers_mu_);
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

void SnapshotServer::refuse(const std::string& peer, const std::string& why) {
  refused_.fetch_add(1);
  (void)log_.print("ordo snapshot server: refused " + peer + ": " + why);
}

void SnapshotServer::make_room_locked() {
  size_t admitting = 0;
  Worker* oldest = nullptr;
  for (Worker& w : workers_) {
    if (w.fd < 0 || w.admitted) continue;
    if (oldest == nullptr) oldest = &w;
    ++admitting;
  }
  if (admitting < kMaxAdmitting || oldest == nullptr) return;
  // Its handshake or request read fails at once; its thread closes it.
  ::shutdown(oldest->fd, SHUT_RDWR);
  oldest->admitted = true;  // no longer counted: it is on its way out
}

void SnapshotServer::run() {
  while (!stopping_.load()) {
    sockaddr_in from{};
    socklen_t from_len = sizeof from;
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&from), &from_len, SOCK_CLOEXEC);
    reap_workers();
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (stopping_.load()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    char host[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &from.sin_addr, host, sizeof host);
    std::lock_guard lock(workers_mu_);
    make_room_locked();
    workers_.push_back(Worker{
        std::thread(), fd, std::string(host) + ":" + std::to_string(ntohs(from.sin_port)), false});
    Worker* w = &workers_.back();
    w->thread = std::thread([this, w] {
      handle(*w);
      std::lock_guard done(workers_mu_);
      ::close(w->fd);
      w->fd = -1;
    });
  }
}

void SnapshotServer::handle(Worker& w) {
  // The stream has a descriptor of its own (a dup): the thread closes
  // w.fd, and a shutdown(2) of w.fd (make room, the destructor) ends this
  // transfer too.
  const int dup_fd = ::dup(w.fd);
  if (dup_fd < 0) return;
  sys::Stream stream(dup_fd);
  const sys::Deadline admit_by = sys::deadline_in(kRequestDeadline);
  if (tls_ != nullptr) {
    Result<sys::Stream> secured = tls_->handshake(stream.release(), admit_by);
    if (!secured.is_ok()) return refuse(w.peer, secured.status().message());
    stream = std::move(*secured);
  }
  Result<std::string> request = stream.read_line(kMaxRemovedNoticeBytes, admit_by);
  if (!request.is_ok()) return refuse(w.peer, "no request line: " + request.status().message());
  if (request->starts_with(kRemovedNotice)) {
    {
      std::lock_guard lock(workers_mu_);
      w.admitted = true;
    }
    if (on_removed_) on_removed_(*request);
    return;
  }
  Result<ClusterId> asked = parse_copy_request(*request);
  if (!asked.is_ok()) {
    refuse(w.peer, asked.status().message());
    (void)stream.send_all(encode_no_copy(), sys::deadline_in(kIoTimeout));
    return;
  }
  const ClusterId own = cluster_id_ ? cluster_id_() : ClusterId();
  if (own.known() && *asked != own) {
    refuse(w.peer,
           "a copy request for cluster " + asked->hex() + ": this node is cluster " + own.hex());
    (void)stream.send_all(encode_wrong_cluster(own), sys::deadline_in(kIoTimeout));
    return;
  }
  // Admitted: a copy slot, waited for as long as one send may take.
  {
    std::unique_lock lock(workers_mu_);
    w.admitted = true;
    if (waiting_ >= kMaxWaiting) {
      lock.unlock();
      refuse(w.peer, "too many copy requests waiting");
      (void)stream.send_all(encode_no_copy(), sys::deadline_in(kIoTimeout));
      return;
    }
    ++waiting_;
    const bool slot = slot_cv_.wait_for(
        lock, kIoTimeout, [this] { return stopping_.load() || copying_ < kMaxCopying; });
    --waiting_;
    if (!slot || stopping_.load()) {
      lock.unlock();
      (void)stream.send_all(encode_no_copy(), sys::deadline_in(kIoTimeout));
      return;
    }
    ++copying_;
  }
  send_copy(stream, own);
  {
    std::lock_guard lock(workers_mu_);
    --copying_;
  }
  slot_cv_.notify_one();
}

void SnapshotServer::send_copy(sys::Stream& stream, const ClusterId& own) {
  auto fail = [&](const Status& why) {
    std::fprintf(stderr, "ordo snapshot server: no copy: %s\n", why.to_string().c_str());
    (void)stream.send_all(encode_no_copy(), sys::deadline_in(kIoTimeout));
  };
  Result<int> file = anonymous_file(copies_dir_);
  if (!file.is_ok()) return fail(file.status());
  std::vector<char> buf(1 << 20);
  Result<uint64_t> applied = make_copy_(*file);
  Result<Digest> digest =
      applied.is_ok() ? digest_fd(*file, buf) : Result<Digest>(applied.status());
  if (!digest.is_ok()) {
    ::close(*file);
    return fail(digest.status());
  }
  if (digest->size == kNoCopy || digest->size == kWrongCluster) {
    ::close(*file);
    return fail(Status::io_error("a copy of 2^64 - 2 bytes or more", 0));
  }
  Status s = stream.send_all(encode_copy_header({digest->size, digest->xxh3, *applied, own}),
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
