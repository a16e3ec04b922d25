// TCP over IPv4 with every wait bounded by a deadline: connect, listen,
// send, receive. Sends and receives never block past their deadline, whether
// the descriptor is blocking or not (each call is MSG_DONTWAIT, each wait a
// poll(2) until the deadline); EINTR is retried. Errors are IOError carrying
// errno, with its text (base::errno_text) in the message; a deadline that
// passes is IOError "timed out" (ETIMEDOUT).
// Thread-safety: free functions; one descriptor is used by one thread at a
// time.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "ordo/status.h"
#include "ordo/sys/address.h"

namespace ordo::sys {

using Deadline = std::chrono::steady_clock::time_point;

// now() + `timeout`.
Deadline deadline_in(std::chrono::milliseconds timeout);

// A connected TCP socket to `to` (TCP_NODELAY, non-blocking, close-on-exec);
// the caller closes it. IOError "connect <address>: connection refused"
// (ECONNREFUSED) when nothing listens, "connect <address>: timed out"
// (ETIMEDOUT) when the deadline passes first, "connect <address>: <errno
// text>" for other failures. The string form parses `address` first
// (InvalidArgument as parse_address).
Result<int> connect_to(const HostPort& to, Deadline deadline);
Result<int> connect_to(std::string_view address, Deadline deadline);

// Whether accept(2) on a listening socket waits (kYes) or fails with EAGAIN
// when no connection is pending (kNo).
enum class Blocking { kNo, kYes };

// A listening socket bound to `at` (SO_REUSEADDR, close-on-exec; accept(2)
// waits on it when `blocking` is kYes, else it is non-blocking) with room
// for `backlog` pending connections; the caller closes it. IOError "listen
// on <address>: <errno text>" (EADDRINUSE when the port is taken). The string
// form parses `address` first (InvalidArgument as parse_address).
Result<int> listen_on(const HostPort& at, int backlog, Blocking blocking);
Result<int> listen_on(std::string_view address, int backlog, Blocking blocking);

// Sends all of `bytes` (MSG_NOSIGNAL: a closed peer is IOError EPIPE, not a
// signal). IOError "send: <errno text>", or "timed out" at the deadline
// (some bytes may have left).
Status send_all(int fd, std::string_view bytes, Deadline deadline);

// Receives 1..`capacity` bytes into `out` (as many as are there once any
// are); returns how many. IOError "connection closed" (errno 0) when the
// peer closed before a byte came, "timed out" at the deadline, "recv: <errno
// text>" for other failures. REQUIRES: capacity > 0.
Result<size_t> recv_some(int fd, char* out, size_t capacity, Deadline deadline);

// Receives `size` bytes into `out`, fewer only when the peer closes the
// connection first: returns how many came (size, or fewer at that EOF).
// Errors as recv_some, but for EOF, which is no error here.
Result<size_t> recv_all(int fd, char* out, size_t size, Deadline deadline);

// Receives exactly `size` bytes into `out`. Errors as recv_some; a peer that
// closes after the first byte is IOError "connection closed mid-frame"
// (errno 0).
Status recv_exact(int fd, char* out, size_t size, Deadline deadline);

// recv_exact's result once recv_all received `got` of `size` bytes: ok when
// got == size, else IOError "connection closed" (none came) or "connection
// closed mid-frame" (errno 0).
Status whole_or_closed(size_t got, size_t size);

// The bytes up to '\n' (not included) of a line of at most `max` bytes,
// read one byte at a time (nothing past the '\n' is consumed).
// InvalidArgument "line longer than <max> bytes" past it; otherwise errors
// as recv_exact.
Result<std::string> read_line(int fd, size_t max, Deadline deadline);

// Whether a connected socket has something to read although no request is
// outstanding (EOF, a reset, or stray bytes): none of them leaves it usable
// for a request/reply exchange. Does not block.
bool peer_closed(int fd);

}  // namespace ordo::sys
