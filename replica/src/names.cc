// Names of enum values and the address helpers of ordo/replica.h.
#include <string>

#include "ordo/replica.h"
#include "ordo/sys/address.h"
#include "ordo/sys/node_ports.h"

namespace ordo::replica {

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kApplied:
      return "applied";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kUnknown:
      return "unknown";
  }
  return "unknown";
}

const char* role_name(Role role) {
  switch (role) {
    case Role::kUnavailable:
      return "unavailable";
    case Role::kFollower:
      return "follower";
    case Role::kCandidate:
      return "candidate";
    case Role::kLeader:
      return "leader";
    case Role::kRemoved:
      return "removed";
  }
  return "unavailable";
}

Result<std::string> snapshot_address(std::string_view raft_address) {
  ORDO_ASSIGN_OR_RETURN(sys::HostPort hp, sys::parse_address(raft_address));
  if (hp.port > 65535 - sys::kSnapshotAfterRaft) {
    return Status::invalid_argument("address '" + std::string(raft_address) + "': port " +
                                    std::to_string(hp.port) + " leaves no snapshot port");
  }
  return sys::shift_port(raft_address, sys::kSnapshotAfterRaft);
}

}  // namespace ordo::replica
