// Blocking TCP helpers for the snapshot port, every call bounded in time.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "address.h"
#include "ordo/status.h"

namespace ordo::replica {

// A connected socket to `to`, with SO_RCVTIMEO/SO_SNDTIMEO of `timeout`
// (the connect waits at most `timeout` too). IOError on failure.
Result<int> connect_to(const HostPort& to, std::chrono::milliseconds timeout);

// A listening socket bound to `at` (SO_REUSEADDR). IOError (EADDRINUSE) when taken.
Result<int> listen_on(const HostPort& at);

void set_io_timeouts(int fd, std::chrono::milliseconds timeout);

// All of `n` bytes, or IOError (a timeout is IOError EAGAIN).
Status write_all(int fd, const void* data, size_t n);
Status read_exact(int fd, void* data, size_t n);
// Bytes up to '\n' (not included), at most `max` bytes: InvalidArgument past
// it, IOError (ETIMEDOUT) when the whole line has not come by `deadline`.
Result<std::string> read_line(int fd, size_t max, std::chrono::steady_clock::time_point deadline);

}  // namespace ordo::replica
