#include "local_ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ordo::bench {

Result<std::vector<uint16_t>> pick_free_ports(int count) {
  std::vector<int> fds;
  std::vector<uint16_t> ports;
  Status status = Status::ok();
  while (static_cast<int>(ports.size()) < count) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      status = Status::io_error("socket for a free port", errno);
      break;
    }
    fds.push_back(fd);
    sockaddr_in addr;
    std::memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      status = Status::io_error("bind to a free port on 127.0.0.1", errno);
      break;
    }
    const uint16_t port = ntohs(addr.sin_port);
    if (port != 2379 && port != 2380) ports.push_back(port);
  }
  for (int fd : fds) ::close(fd);
  if (!status.is_ok()) return status;
  return ports;
}

}  // namespace ordo::bench
