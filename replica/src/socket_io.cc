#include "socket_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace ordo::replica {

namespace {
sockaddr_in to_sockaddr(const HostPort& hp) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(hp.port);
  ::inet_pton(AF_INET, hp.host.c_str(), &sa.sin_addr);
  return sa;
}
}  // namespace

void set_io_timeouts(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

Result<int> connect_to(const HostPort& to, std::chrono::milliseconds timeout) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Status::io_error("socket", errno);
  sockaddr_in sa = to_sockaddr(to);
  const std::string where = to.host + ":" + std::to_string(to.port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    if (errno != EINPROGRESS) {
      int err = errno;
      ::close(fd);
      return Status::io_error("connect " + where, err);
    }
    pollfd p{fd, POLLOUT, 0};
    int rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (rc <= 0) {
      ::close(fd);
      return Status::io_error("connect " + where + ": timed out", ETIMEDOUT);
    }
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
    if (soerr != 0) {
      ::close(fd);
      return Status::io_error("connect " + where, soerr);
    }
  }
  int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  set_io_timeouts(fd, timeout);
  return fd;
}

Result<int> listen_on(const HostPort& at) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::io_error("socket", errno);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa = to_sockaddr(at);
  const std::string where = at.host + ":" + std::to_string(at.port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 16) != 0) {
    int err = errno;
    ::close(fd);
    return Status::io_error("listen on " + where, err);
  }
  return fd;
}

Status write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Status::io_error("send", errno);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::ok();
}

Status read_exact(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::io_error("recv", errno);
    }
    if (r == 0) return Status::io_error("recv: connection closed early", ECONNRESET);
    p += r;
    n -= static_cast<size_t>(r);
  }
  return Status::ok();
}

Result<std::string> read_line(int fd, size_t max, std::chrono::steady_clock::time_point deadline) {
  std::string line;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Status::io_error("request line: timed out", ETIMEDOUT);
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::io_error("poll", errno);
    if (n == 0) continue;  // the deadline check above ends it
    char c = 0;
    ORDO_RETURN_IF_ERROR(read_exact(fd, &c, 1));
    if (c == '\n') return line;
    if (line.size() >= max) return Status::invalid_argument("request line too long");
    line.push_back(c);
  }
}

}  // namespace ordo::replica
