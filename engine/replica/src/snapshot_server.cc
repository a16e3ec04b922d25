#include "snapshot_server.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <memory>
#include <vector>

#include "codec.h"
#include "snapshot_record.h"
#include "socket_io.h"

namespace ordo::replica {

namespace {
constexpr auto kIoTimeout = std::chrono::seconds(10);
}

Result<std::unique_ptr<SnapshotServer>> SnapshotServer::start(const HostPort& at,
                                                              std::string copies_dir) {
  ORDO_ASSIGN_OR_RETURN(int fd, listen_on(at));
  return std::unique_ptr<SnapshotServer>(new SnapshotServer(fd, std::move(copies_dir)));
}

SnapshotServer::SnapshotServer(int listen_fd, std::string copies_dir)
    : listen_fd_(listen_fd), copies_dir_(std::move(copies_dir)) {
  thread_ = std::thread([this] { run(); });
}

SnapshotServer::~SnapshotServer() {
  stopping_.store(true);
  // Wakes the blocking accept() (Linux returns EINVAL to it).
  ::shutdown(listen_fd_, SHUT_RDWR);
  thread_.join();
  ::close(listen_fd_);
}

void SnapshotServer::run() {
  while (!stopping_.load()) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (stopping_.load()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    set_io_timeouts(fd, kIoTimeout);
    serve(fd);
    ::close(fd);
  }
}

void SnapshotServer::serve(int fd) {
  Result<std::string> name = read_line(fd, 64);
  if (!name.is_ok()) return;
  std::string header;
  int file = -1;
  struct stat st{};
  if (is_copy_name(*name)) {
    file = ::open((copies_dir_ + "/" + *name).c_str(), O_RDONLY | O_CLOEXEC);
    if (file >= 0 && ::fstat(file, &st) != 0) {
      ::close(file);
      file = -1;
    }
  }
  codec::put_u64_be(header, file < 0 ? kNoCopy : static_cast<uint64_t>(st.st_size));
  if (!write_all(fd, header.data(), header.size()).is_ok() || file < 0) {
    if (file >= 0) ::close(file);
    return;
  }
  std::vector<char> buf(1 << 20);
  uint64_t left = static_cast<uint64_t>(st.st_size);
  while (left > 0) {
    ssize_t n = ::read(file, buf.data(), buf.size() < left ? buf.size() : left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the client sees a short copy and rejects it
    if (!write_all(fd, buf.data(), static_cast<size_t>(n)).is_ok()) break;
    left -= static_cast<uint64_t>(n);
  }
  ::close(file);
}

}  // namespace ordo::replica
