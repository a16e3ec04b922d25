// Free TCP ports on 127.0.0.1 for the processes a benchmark or test starts.
#pragma once

#include <cstdint>
#include <vector>

#include "ordo/status.h"

namespace ordo::bench {

// `count` distinct ports that were free on 127.0.0.1 a moment ago (each bound
// to port 0 by the kernel, all held until every one is picked, then
// released). Never 2379 or 2380, the ports of a system etcd. IOError when
// sockets cannot be made.
Result<std::vector<uint16_t>> pick_free_ports(int count);

}  // namespace ordo::bench
