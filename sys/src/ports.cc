#include "ordo/sys/ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <deque>
#include <mutex>
#include <random>

#include "ordo/base/errno_status.h"

namespace ordo::sys {
namespace {

constexpr int kRunFirst = 15000;
constexpr int kRunStep = 10;
constexpr int kRunSlots = 1775;  // 15000 + 10 * 1774 = 32740
constexpr size_t kRecentRuns = 256;
constexpr int kRunTries = 1000;

sockaddr_in loopback(uint16_t port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return sa;
}

}  // namespace

Status bind_probe(const HostPort& at) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(at.port);
  if (::inet_pton(AF_INET, at.host.c_str(), &sa.sin_addr) != 1) {
    return Status::invalid_argument("bind " + format_address(at) + ": not an IPv4 address");
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return base::os_error("socket", errno);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const int err = ::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) == 0 ? 0 : errno;
  ::close(fd);
  if (err != 0) return base::os_error("bind " + format_address(at), err);
  return Status::ok();
}

bool port_free(uint16_t port) { return bind_probe(HostPort{"127.0.0.1", port}).is_ok(); }

Result<std::vector<uint16_t>> pick_free_ports(int count) {
  std::vector<int> fds;
  std::vector<uint16_t> ports;
  Status status = Status::ok();
  while (static_cast<int>(ports.size()) < count) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      status = base::os_error("socket for a free port", errno);
      break;
    }
    fds.push_back(fd);
    sockaddr_in sa = loopback(0);
    socklen_t len = sizeof sa;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
      status = base::os_error("bind to a free port on 127.0.0.1", errno);
      break;
    }
    ports.push_back(ntohs(sa.sin_port));
  }
  for (int fd : fds) ::close(fd);
  if (!status.is_ok()) return status;
  return ports;
}

Result<uint16_t> pick_free_port_run(int count) {
  if (count < 1 || count > kRunStep) {
    return Status::invalid_argument("a run of " + std::to_string(count) +
                                    " free ports: must be 1.." + std::to_string(kRunStep));
  }
  static std::mutex mu;
  static std::deque<uint16_t> recent;
  static std::mt19937 rng(
      static_cast<uint32_t>(::getpid()) * 2654435761u ^
      static_cast<uint32_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::lock_guard lock(mu);
  for (int attempt = 0; attempt < kRunTries; ++attempt) {
    const auto first =
        static_cast<uint16_t>(kRunFirst + kRunStep * static_cast<int>(rng() % kRunSlots));
    if (std::find(recent.begin(), recent.end(), first) != recent.end()) continue;
    bool all_free = true;
    for (int i = 0; i < count && all_free; ++i) {
      all_free = port_free(static_cast<uint16_t>(first + i));
    }
    if (!all_free) continue;
    recent.push_back(first);
    if (recent.size() > kRecentRuns) recent.pop_front();
    return first;
  }
  return Status::io_error("no run of " + std::to_string(count) + " free ports on 127.0.0.1 in " +
                              std::to_string(kRunTries) + " tries",
                          EADDRINUSE);
}

}  // namespace ordo::sys
