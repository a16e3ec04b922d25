// Free loopback ports for replication tests.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <set>

namespace ordo::replica::testing_ports {

inline int bind_loopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// A port P with P and P + 1 both free on 127.0.0.1 (the kernel picks P),
// neither of them handed out before by this process (a replica listens on
// both only once it opens, so the kernel could offer one of them again).
inline uint16_t free_port_pair() {
  static std::mutex mu;
  static std::set<uint16_t> given;
  std::lock_guard lock(mu);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int fd = bind_loopback(0);
    if (fd < 0) continue;
    sockaddr_in sa{};
    socklen_t len = sizeof sa;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
    uint16_t port = ntohs(sa.sin_port);
    if (given.count(port) != 0 || given.count(static_cast<uint16_t>(port + 1)) != 0) {
      ::close(fd);
      continue;
    }
    int next = port < 65534 ? bind_loopback(static_cast<uint16_t>(port + 1)) : -1;
    ::close(fd);
    if (next >= 0) {
      ::close(next);
      given.insert(port);
      given.insert(static_cast<uint16_t>(port + 1));
      return port;
    }
  }
  std::abort();
}

}  // namespace ordo::replica::testing_ports
