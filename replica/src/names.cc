// Names of enum values and the address helpers of ordo/replica.h.
#include <arpa/inet.h>

#include <charconv>
#include <string>

#include "address.h"
#include "ordo/replica.h"

namespace ordo::replica {

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kApplied: return "applied";
    case Outcome::kFailed: return "failed";
    case Outcome::kUnknown: return "unknown";
  }
  return "unknown";
}

const char* role_name(Role role) {
  switch (role) {
    case Role::kUnavailable: return "unavailable";
    case Role::kFollower: return "follower";
    case Role::kCandidate: return "candidate";
    case Role::kLeader: return "leader";
  }
  return "unavailable";
}

Result<HostPort> parse_address(std::string_view address) {
  const size_t colon = address.rfind(':');
  auto bad = [&](const char* why) {
    return Status::invalid_argument("address \"" + std::string(address) + "\": " + why);
  };
  if (colon == std::string_view::npos) return bad("not IPv4:port");
  HostPort out;
  out.host = std::string(address.substr(0, colon));
  in_addr addr{};
  if (::inet_pton(AF_INET, out.host.c_str(), &addr) != 1) return bad("host is not an IPv4 address");
  std::string_view port_text = address.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port_text.empty()) {
    return bad("port is not a number");
  }
  if (port == 0 || port > 65535) return bad("port out of range 1..65535");
  out.port = static_cast<uint16_t>(port);
  return out;
}

Result<std::string> snapshot_address(std::string_view raft_address) {
  ORDO_ASSIGN_OR_RETURN(HostPort hp, parse_address(raft_address));
  if (hp.port == 65535) {
    return Status::invalid_argument("address \"" + std::string(raft_address) +
                                    "\": port 65535 leaves no snapshot port");
  }
  return hp.host + ":" + std::to_string(hp.port + 1);
}

}  // namespace ordo::replica
