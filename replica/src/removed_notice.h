// The notice a leader sends a member it removed from the cluster.
//
// libraft stops replicating to a member as soon as its removal is proposed,
// so the member never receives the configuration without it and would go
// on serving its stale state. After the removal commits the leader sends
// one line to the member's snapshot port (the Raft port + 1):
// "ORDOREMOVED <id> <index>\n", the index being at or past the removal's
// log entry. The member then refuses reads and writes until it sees itself
// in a configuration at a later index (added again).
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "ordo/status.h"
#include "ordo/sys/address.h"
#include "ordo/sys/tls.h"

namespace ordo::replica {

inline constexpr std::string_view kRemovedNotice = "ORDOREMOVED";

struct RemovedNotice {
  uint64_t id = 0;     // the member removed
  uint64_t index = 0;  // at or past the log index of its removal
};

// Sends `notice` to the snapshot server at `to` within `timeout`, over TLS
// with `tls` (a client context; null: plaintext). IOError when it cannot be
// delivered (the member is down: it then learns nothing).
Status send_removed_notice(const sys::HostPort& to, const RemovedNotice& notice,
                           std::chrono::milliseconds timeout, const sys::TlsContext* tls);

// The notice in a request line; InvalidArgument for a line that is not one.
Result<RemovedNotice> parse_removed_notice(std::string_view line);

}  // namespace ordo::replica
