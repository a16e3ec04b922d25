#include "socket.h"

#include <arpa/inet.h>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ordo::node {
namespace {

Result<sockaddr_in> to_sockaddr(std::string_view address) {
  ORDO_ASSIGN_OR_RETURN(HostPort hp, parse_address(address));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(hp.port);
  ::inet_pton(AF_INET, hp.host.c_str(), &sa.sin_addr);
  return sa;
}

// Milliseconds left until `deadline`, at least 0.
int ms_left(Deadline deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return 0;
  return left.count() > 1000000 ? 1000000 : static_cast<int>(left.count());
}

// Waits for `events` on fd. Ok when ready; IOError "timed out" otherwise.
Status wait_for(int fd, short events, Deadline deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, ms_left(deadline));
    if (n > 0) return Status::ok();
    if (n == 0) return Status::io_error("timed out", ETIMEDOUT);
    if (errno != EINTR) return Status::io_error(std::string("poll: ") + std::strerror(errno), errno);
  }
}

}  // namespace

Result<HostPort> parse_address(std::string_view address) {
  auto bad = [&](const char* why) {
    return Status::invalid_argument("address '" + std::string(address) +
                                    "' is not IPv4:port (" + why + ")");
  };
  size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return bad("no colon");
  std::string host(address.substr(0, colon));
  in_addr ignored{};
  if (host.empty() || ::inet_pton(AF_INET, host.c_str(), &ignored) != 1) return bad("bad IPv4 address");
  std::string_view port_text = address.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port == 0 || port > 65535) {
    return bad("port not in 1..65535");
  }
  return HostPort{host, static_cast<uint16_t>(port)};
}

std::string format_address(const HostPort& hp) { return hp.host + ":" + std::to_string(hp.port); }

Result<int> connect_to(std::string_view address, Deadline deadline) {
  ORDO_ASSIGN_OR_RETURN(sockaddr_in sa, to_sockaddr(address));
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::io_error(std::string("socket: ") + std::strerror(errno), errno);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    if (errno != EINPROGRESS) {
      int err = errno;
      ::close(fd);
      return Status::io_error(std::string("connect ") + std::string(address) + ": " +
                                  (err == ECONNREFUSED ? "connection refused" : std::strerror(err)),
                              err);
    }
    Status waited = wait_for(fd, POLLOUT, deadline);
    if (!waited.is_ok()) {
      ::close(fd);
      return Status::io_error("connect " + std::string(address) + ": timed out", ETIMEDOUT);
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      ::close(fd);
      return Status::io_error(std::string("connect ") + std::string(address) + ": " +
                                  (err == ECONNREFUSED ? "connection refused" : std::strerror(err)),
                              err);
    }
  }
  return fd;
}

Status send_all(int fd, std::string_view bytes, Deadline deadline) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      ORDO_RETURN_IF_ERROR(wait_for(fd, POLLOUT, deadline));
      continue;
    }
    return Status::io_error(std::string("send: ") + std::strerror(errno), errno);
  }
  return Status::ok();
}

Status recv_exact(int fd, char* out, size_t size, Deadline deadline) {
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::recv(fd, out + got, size - got, 0);
    if (n > 0) {
      got += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) {
      return Status::io_error(got == 0 ? "connection closed" : "connection closed mid-frame", 0);
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      ORDO_RETURN_IF_ERROR(wait_for(fd, POLLIN, deadline));
      continue;
    }
    return Status::io_error(std::string("recv: ") + std::strerror(errno), errno);
  }
  return Status::ok();
}

bool peer_closed(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  // Readable with nothing asked: EOF, a reset, or stray bytes; none of them
  // leaves the connection usable for a request/reply exchange.
  return true;
}

Result<int> listen_on(std::string_view address, int backlog) {
  ORDO_ASSIGN_OR_RETURN(sockaddr_in sa, to_sockaddr(address));
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::io_error(std::string("socket: ") + std::strerror(errno), errno);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, backlog) != 0) {
    int err = errno;
    ::close(fd);
    return Status::io_error("listen on " + std::string(address) + ": " + std::strerror(err), err);
  }
  return fd;
}

bool port_free(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
  ::close(fd);
  return ok;
}

}  // namespace ordo::node
