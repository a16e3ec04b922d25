// IPv4 "a.b.c.d:port" addresses: the one parser of them above the engine.
// Thread-safety: free functions over values, safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ordo/status.h"

namespace ordo::sys {

struct HostPort {
  std::string host;   // dotted IPv4, e.g. "127.0.0.1"
  uint16_t port = 0;  // 1..65535 once parsed
};

// "a.b.c.d:port" -> host and port. InvalidArgument "address '<address>' is
// not IPv4:port (<why>)" when there is no colon, the host is not a dotted
// IPv4 address, or the port is not a number in 1..65535.
Result<HostPort> parse_address(std::string_view address);

// "host:port".
std::string format_address(const HostPort& hp);

// The address `delta` ports away from `address` (same host): "127.0.0.1:7001"
// and 1 give "127.0.0.1:7002". InvalidArgument when `address` does not parse
// or the port would leave 1..65535.
Result<std::string> shift_port(std::string_view address, int delta);

}  // namespace ordo::sys
