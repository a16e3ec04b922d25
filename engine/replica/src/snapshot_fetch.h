// Fetches a snapshot copy from another replica's snapshot server.
#pragma once

#include <chrono>
#include <string>

#include "address.h"
#include "ordo/status.h"

namespace ordo::replica {

// Asks the server at `from` for copy `name` and writes it to `dest` (fsynced,
// replacing any file there). Each socket read/write waits at most `timeout`.
// Returns NotFound when the server has no such copy, InvalidArgument for a
// name that is not a copy name, IOError for connection or file failures
// (dest is removed then). Does not verify the bytes: see copy_verify.h.
Status fetch_copy(const HostPort& from, const std::string& name, const std::string& dest,
                  std::chrono::milliseconds timeout);

}  // namespace ordo::replica
