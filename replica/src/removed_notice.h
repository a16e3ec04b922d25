// The notice a leader sends a member it removed from the cluster.
//
// libraft stops replicating to a member as soon as its removal is proposed,
// so the member never receives the configuration without it and would go
// on serving its stale state. After the removal commits the leader sends
// one line to the member's snapshot port (the Raft port + 1):
// "ORDOREMOVED <id> <index> <cluster id> <mac>\n", the index being at or
// past the removal's log entry, the cluster id 32 hex digits and the mac
// 64: HMAC-SHA256 of the text before it under the cluster secret (zeros
// without one). The member takes a notice of its own cluster whose mac it
// can verify with its own secret, and then refuses reads and writes until it
// sees itself in a configuration at a later index (added again).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "cluster_identity.h"
#include "ordo/status.h"
#include "ordo/sys/address.h"
#include "ordo/sys/tls.h"

namespace ordo::replica {

inline constexpr std::string_view kRemovedNotice = "ORDOREMOVED";

struct RemovedNotice {
  uint64_t id = 0;     // the member removed
  uint64_t index = 0;  // at or past the log index of its removal
  ClusterId cluster;   // the sender's
};

// The notice's line (without '\n'), its mac made with `secret` ("" : none).
std::string encode_removed_notice(const RemovedNotice& notice, std::string_view secret);

// Sends `notice` (with its mac under `secret`) to the snapshot server at
// `to` within `timeout`, over TLS with `tls` (a client context; null:
// plaintext). IOError when it cannot be delivered (the member is down: it
// then learns nothing).
Status send_removed_notice(const sys::HostPort& to, const RemovedNotice& notice,
                           std::string_view secret, std::chrono::milliseconds timeout,
                           const sys::TlsContext* tls);

// The notice in a request line, checked against this member's cluster
// `own` and `secret`; InvalidArgument for a line that is not one, a notice
// of another cluster, or a mac that does not match. Safe on any bytes.
Result<RemovedNotice> parse_removed_notice(std::string_view line, const ClusterId& own,
                                           std::string_view secret);

// The longest notice line.
inline constexpr size_t kMaxRemovedNoticeBytes = 200;

}  // namespace ordo::replica
