// Turns one decoded request into calls on the replica and one reply.
// Thread-safety: handle() may be called from many connection threads at
// once (the Replica is thread-safe); the handler outlives none of them.
#pragma once

#include <string_view>

#include "ordo/replica.h"
#include "protocol.h"
#include "server.h"

namespace ordo::node {

// Most entries one scan reply carries (a larger or zero limit is cut to it),
// and about the most bytes of keys and values.
inline constexpr uint32_t kMaxScanEntries = 10000;
inline constexpr size_t kMaxScanBytes = 32u << 20;
// A scan reply cut short by the cap (kMaxScanEntries entries, or the entry
// that reaches kMaxScanBytes) before the request's limit has message
// kScanMore and the next key in value: the rest starts there.
inline constexpr std::string_view kScanMore = "more";
// The longest a watch waits for a first change (a longer wait is cut to it).
inline constexpr uint32_t kMaxWatchWaitMs = 10000;

class RequestHandler {
 public:
  RequestHandler(replica::Replica& replica, const ServerOptions& options);
  // The reply to `request`; counts it in node_metrics() (metrics.h).
  WireReply handle(const Request& request);
  // The status reply's entries (name, value), for the metrics exporter.
  std::vector<std::pair<std::string, std::string>> status_entries();

 private:
  WireReply handle_op(const Request& request);
  WireReply write(const replica::WriteBatch& batch);
  WireReply watch(const Request& request);
  WireReply get(const Request& request);
  WireReply scan(const Request& request);
  // The reply to a read view Replica::read refused: not-leader for Busy.
  WireReply read_refused(const Status& why);
  WireReply status();
  // The node's cluster id, or failed "wrong cluster" when the client asked
  // for another (or this node has none yet).
  WireReply hello(const Request& request);
  WireReply membership(const Request& request);
  // kNotLeader with the leader's client address, or kFailed "no leader
  // known" when there is none.
  WireReply not_leader(uint64_t leader_id, const std::string& leader_raft_address,
                       const std::string& why);

  replica::Replica& replica_;
  const ServerOptions& options_;
};

}  // namespace ordo::node
