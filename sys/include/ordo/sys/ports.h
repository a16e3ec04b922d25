// Free TCP ports, for the servers that tests, benchmarks and LocalCluster
// start: whether a port can be bound now, and ports that were free a moment
// ago. A port found free can be taken by anyone before it is bound again:
// callers bind soon, and treat EADDRINUSE at start as a reason to retry.
// Thread-safety: every function may be called from any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "ordo/status.h"
#include "ordo/sys/address.h"

namespace ordo::sys {

// Ok when a socket could bind `at` now as listen_on does (SO_REUSEADDR: a
// port with only closed connections left on it is free); otherwise IOError
// "bind <address>: <errno text>" with bind(2)'s errno (EADDRINUSE when
// another socket holds it); InvalidArgument when the host is not a dotted
// IPv4 address.
Status bind_probe(const HostPort& at);

// Whether 127.0.0.1:`port` can be bound now (bind_probe is ok).
bool port_free(uint16_t port);

// `count` distinct ports free on 127.0.0.1 a moment ago, chosen by the kernel
// (each socket bound to port 0, all held until every one is picked, then
// released): ports of its ephemeral range. IOError when sockets cannot be made
// or bound.
Result<std::vector<uint16_t>> pick_free_ports(int count);

// A port P with P, P + 1, ..., P + count - 1 all free on 127.0.0.1 (as
// port_free), among 15000, 15010, ..., 32740: below Linux's ephemeral range,
// so that no outgoing connection takes one of them meanwhile. P is none of
// the last 256 this process returned, so that servers given ports one after
// the other, before any of them binds, get distinct runs. InvalidArgument
// when count is not in 1..10; IOError (EADDRINUSE) when no such run is found
// in 1000 random tries.
Result<uint16_t> pick_free_port_run(int count);

}  // namespace ordo::sys
