#include "ordo/sys/socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "ordo/base/errno_status.h"

namespace ordo::sys {
namespace {

sockaddr_in to_sockaddr(const HostPort& hp) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(hp.port);
  ::inet_pton(AF_INET, hp.host.c_str(), &sa.sin_addr);
  return sa;
}

// Milliseconds left until `deadline`, 0 when it has passed (capped for poll).
int ms_left(Deadline deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return 0;
  return left.count() > 1000000 ? 1000000 : static_cast<int>(left.count());
}

Status timed_out() { return Status::io_error("timed out", ETIMEDOUT); }

// Waits for `events` on fd. Ok when ready (or in error: the next call says
// which); IOError "timed out" at the deadline.
Status wait_for(int fd, short events, Deadline deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, ms_left(deadline));
    if (n > 0) return Status::ok();
    if (n == 0) return timed_out();
    if (errno != EINTR) return base::os_error("poll", errno);
  }
}

Status connect_error(const HostPort& to, int err) {
  return Status::io_error("connect " + format_address(to) + ": " +
                              (err == ECONNREFUSED ? "connection refused" : base::errno_text(err)),
                          err);
}

}  // namespace

Deadline deadline_in(std::chrono::milliseconds timeout) {
  return std::chrono::steady_clock::now() + timeout;
}

Result<int> connect_to(const HostPort& to, Deadline deadline) {
  const sockaddr_in sa = to_sockaddr(to);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return base::os_error("socket", errno);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0) {
    if (errno != EINPROGRESS) {
      const int err = errno;
      ::close(fd);
      return connect_error(to, err);
    }
    if (!wait_for(fd, POLLOUT, deadline).is_ok()) {
      ::close(fd);
      return Status::io_error("connect " + format_address(to) + ": timed out", ETIMEDOUT);
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      ::close(fd);
      return connect_error(to, err);
    }
  }
  return fd;
}

Result<int> connect_to(std::string_view address, Deadline deadline) {
  ORDO_ASSIGN_OR_RETURN(HostPort to, parse_address(address));
  return connect_to(to, deadline);
}

Result<int> listen_on(const HostPort& at, int backlog, Blocking blocking) {
  const sockaddr_in sa = to_sockaddr(at);
  const int type = SOCK_STREAM | SOCK_CLOEXEC | (blocking == Blocking::kNo ? SOCK_NONBLOCK : 0);
  const int fd = ::socket(AF_INET, type, 0);
  if (fd < 0) return base::os_error("socket", errno);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0 ||
      ::listen(fd, backlog) != 0) {
    const int err = errno;
    ::close(fd);
    return base::os_error("listen on " + format_address(at), err);
  }
  return fd;
}

Result<int> listen_on(std::string_view address, int backlog, Blocking blocking) {
  ORDO_ASSIGN_OR_RETURN(HostPort at, parse_address(address));
  return listen_on(at, backlog, blocking);
}

Status send_all(int fd, std::string_view bytes, Deadline deadline) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      ORDO_RETURN_IF_ERROR(wait_for(fd, POLLOUT, deadline));
      continue;
    }
    return base::os_error("send", n < 0 ? errno : EPIPE);
  }
  return Status::ok();
}

namespace {
// One recv(2) that waits: 1..capacity bytes, or 0 when the peer closed the
// connection. REQUIRES: capacity > 0 (else 0 would not tell EOF).
Result<size_t> recv_or_eof(int fd, char* out, size_t capacity, Deadline deadline) {
  for (;;) {
    const ssize_t n = ::recv(fd, out, capacity, MSG_DONTWAIT);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return base::os_error("recv", errno);
    ORDO_RETURN_IF_ERROR(wait_for(fd, POLLIN, deadline));
  }
}
}  // namespace

Result<size_t> recv_some(int fd, char* out, size_t capacity, Deadline deadline) {
  ORDO_ASSIGN_OR_RETURN(const size_t n, recv_or_eof(fd, out, capacity, deadline));
  if (n == 0) return Status::io_error("connection closed", 0);
  return n;
}

Result<size_t> recv_all(int fd, char* out, size_t size, Deadline deadline) {
  size_t got = 0;
  while (got < size) {
    ORDO_ASSIGN_OR_RETURN(const size_t n, recv_or_eof(fd, out + got, size - got, deadline));
    if (n == 0) break;
    got += n;
  }
  return got;
}

Status recv_exact(int fd, char* out, size_t size, Deadline deadline) {
  ORDO_ASSIGN_OR_RETURN(const size_t got, recv_all(fd, out, size, deadline));
  return whole_or_closed(got, size);
}

Status whole_or_closed(size_t got, size_t size) {
  if (got == size) return Status::ok();
  return Status::io_error(got == 0 ? "connection closed" : "connection closed mid-frame", 0);
}

Result<std::string> read_line(int fd, size_t max, Deadline deadline) {
  std::string line;
  for (;;) {
    char c = 0;
    ORDO_RETURN_IF_ERROR(recv_exact(fd, &c, 1, deadline));
    if (c == '\n') return line;
    if (line.size() >= max) {
      return Status::invalid_argument("line longer than " + std::to_string(max) + " bytes");
    }
    line.push_back(c);
  }
}

bool peer_closed(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

}  // namespace ordo::sys
