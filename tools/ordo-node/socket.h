// TCP helpers of ordo-node (IPv4 only): address parsing, connect with a
// timeout, bounded sends and receives, a listening socket. Sockets are
// non-blocking; every wait is a poll() bounded by a deadline.
// Thread-safety: free functions; a descriptor is used by one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "ordo/status.h"

namespace ordo::node {

using Deadline = std::chrono::steady_clock::time_point;

struct HostPort {
  std::string host;  // dotted IPv4
  uint16_t port = 0;
};

// "a.b.c.d:port" -> host and port. InvalidArgument naming the address when it
// is not an IPv4 address, a colon and a port 1..65535.
Result<HostPort> parse_address(std::string_view address);
std::string format_address(const HostPort& hp);

// A connected TCP socket (TCP_NODELAY, non-blocking, close-on-exec).
// IOError "connection refused" (errno ECONNREFUSED) when nothing listens,
// IOError "timed out" when the deadline passes, IOError for other failures.
Result<int> connect_to(std::string_view address, Deadline deadline);

// Sends all of `bytes`. IOError on a broken connection or "timed out".
Status send_all(int fd, std::string_view bytes, Deadline deadline);
// Receives exactly `size` bytes into `out`. IOError "connection closed" on
// EOF before the first byte (and "connection closed mid-frame" after it),
// "timed out" at the deadline, IOError for other failures.
Status recv_exact(int fd, char* out, size_t size, Deadline deadline);

// Whether a connected socket the peer closed or reset can be seen as such
// without blocking (readable with no request outstanding).
bool peer_closed(int fd);

// A listening socket bound to `address` (SO_REUSEADDR, close-on-exec,
// non-blocking). IOError naming the address when it is in use.
Result<int> listen_on(std::string_view address, int backlog);

// Whether 127.0.0.1:port can be bound now (nothing listens or is bound there).
bool port_free(uint16_t port);

}  // namespace ordo::node
