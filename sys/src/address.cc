#include "ordo/sys/address.h"

#include <arpa/inet.h>

#include <charconv>

namespace ordo::sys {

Result<HostPort> parse_address(std::string_view address) {
  auto bad = [&](const char* why) {
    return Status::invalid_argument("address '" + std::string(address) + "' is not IPv4:port (" +
                                    why + ")");
  };
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return bad("no colon");
  std::string host(address.substr(0, colon));
  in_addr ignored{};
  if (host.empty() || ::inet_pton(AF_INET, host.c_str(), &ignored) != 1) {
    return bad("bad IPv4 address");
  }
  const std::string_view port_text = address.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port == 0 || port > 65535) {
    return bad("port not in 1..65535");
  }
  return HostPort{std::move(host), static_cast<uint16_t>(port)};
}

std::string format_address(const HostPort& hp) { return hp.host + ":" + std::to_string(hp.port); }

Result<std::string> shift_port(std::string_view address, int delta) {
  ORDO_ASSIGN_OR_RETURN(HostPort hp, parse_address(address));
  const int port = static_cast<int>(hp.port) + delta;
  if (port < 1 || port > 65535) {
    return Status::invalid_argument("address '" + std::string(address) + "': port " +
                                    std::to_string(hp.port) + (delta < 0 ? " - " : " + ") +
                                    std::to_string(delta < 0 ? -delta : delta) +
                                    " is not in 1..65535");
  }
  hp.port = static_cast<uint16_t>(port);
  return format_address(hp);
}

}  // namespace ordo::sys
