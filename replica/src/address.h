// "IPv4:port" addresses of replicas.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ordo/status.h"

namespace ordo::replica {

struct HostPort {
  std::string host;  // dotted IPv4
  uint16_t port = 0;
};

// Parses "a.b.c.d:port" (port 1..65535). InvalidArgument naming the address
// otherwise.
Result<HostPort> parse_address(std::string_view address);

}  // namespace ordo::replica
