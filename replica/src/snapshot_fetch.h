// Fetches a copy of another replica's database from its snapshot server.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "cluster_identity.h"
#include "ordo/status.h"
#include "ordo/sys/address.h"
#include "ordo/sys/tls.h"

namespace ordo::replica {

// What the server said of the copy it sent.
struct FetchedCopy {
  uint64_t size_bytes = 0;
  uint64_t xxh3 = 0;           // XXH3-64 of the copy's bytes
  uint64_t applied_index = 0;  // the applied index the copy holds
};

// Asks the server at `from` for a copy of cluster `cluster_id` and writes it
// to `dest` (fsynced, replacing any file there). The connect, the request,
// the header and each MiB of the copy get at most `timeout` each.
// Returns NotFound when the server made no copy, InvalidArgument when the
// server is of another cluster (it refused the request, or names another id
// in its answer; an unknown `cluster_id` takes any), IOError for connection
// or file failures (dest is removed then). Does not verify the bytes
// against the size and digest returned: see copy_verify.h. `tls`: a client
// context (the connection is TLS, the server's certificate verified; its
// handshake gets `timeout` too), or null for plaintext.
Result<FetchedCopy> fetch_copy(const sys::HostPort& from, const std::string& dest,
                               std::chrono::milliseconds timeout,
                               const ClusterId& cluster_id = ClusterId(),
                               const sys::TlsContext* tls = nullptr);

}  // namespace ordo::replica
