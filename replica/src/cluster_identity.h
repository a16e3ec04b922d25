// The identity of a cluster: a 128-bit id fixed when its first members
// bootstrap, kept in each data directory (file kClusterFile) and checked on
// the Raft port (raft_handshake.h) and the snapshot port.
//
// The id is deterministic, so first members started independently with the
// same --peers and token agree on it without talking: XXH3-128 of a domain
// tag, the token and the sorted "id=address" list of the bootstrap voters.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/replica.h"
#include "ordo/status.h"

namespace ordo::replica {

inline constexpr std::string_view kClusterFile = "cluster-id";

struct ClusterId {
  std::array<uint8_t, 16> bytes{};

  // All zeros: not known yet (a joining replica before a leader contacts it).
  bool known() const;
  // 32 lowercase hex digits ("" never: an unknown id is 32 zeros).
  std::string hex() const;
  bool operator==(const ClusterId&) const = default;
};

// Where a piece that outlives the start reads the current id (a joining
// replica adopts it later). Thread-safe.
using ClusterIdSource = std::function<ClusterId()>;

// 32 hex digits (either case) -> id. InvalidArgument naming the text for
// anything else, and for all zeros (no cluster has that id).
Result<ClusterId> parse_cluster_id(std::string_view hex);

// "id=address,..." sorted by id: how the id's input and messages show a
// bootstrap list.
std::string peer_list_text(const std::vector<Member>& members);

// The id a cluster bootstrapped with `members` and `token` has.
ClusterId cluster_id_of(std::string_view token, const std::vector<Member>& members);

// What dir/cluster-id holds: the id and, when it was computed from a
// bootstrap list, that list as peer_list_text made it ("" when pinned or
// adopted from a leader).
struct ClusterFile {
  ClusterId id;
  std::string peers;
};

// nullopt when dir holds no cluster file; Corruption when it does not read
// back (a bad checksum, a truncated or foreign file), IOError when it cannot
// be read.
Result<std::optional<ClusterFile>> read_cluster_file(const std::string& dir);

// Writes dir/cluster-id atomically (a temporary file, fdatasync, rename,
// directory fsync). IOError on any failure (the old file, if any, stays).
Status write_cluster_file(const std::string& dir, const ClusterFile& file);

// What the cluster id of a replica opening `options.dir` is, given whether
// the directory holds Raft state already: the stored id checked against the
// options, or a new one (computed from options.bootstrap and
// options.cluster_token, or options.cluster_id) stored before Raft starts.
// An unknown id (a joining replica) is stored later, when a leader is
// adopted. Returns InvalidArgument naming both ids and both peer lists when
// the options give another cluster than the stored one, or when
// options.cluster_id is not 32 hex digits. `notice` hears a line worth
// printing (an older directory given its cluster file).
Result<ClusterId> settle_cluster_id(const ReplicaOptions& options, bool has_raft_state,
                                    const std::function<void(const std::string&)>& notice);

}  // namespace ordo::replica
