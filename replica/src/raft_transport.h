// libraft's connection transport (raft_uv_transport) with the handshake of
// raft_handshake.h in front of Raft: TCP on libuv (TCP_NODELAY on every
// connection), and a connection reaches Raft only once both sides showed
// the same cluster id and, with a cluster secret, proved they hold it.
// It replaces libraft's own TCP transport, whose handshake (protocol, id,
// address) authenticates nothing; ours carries the same id and address.
//
// A refused connection (a malformed hello, another cluster, a wrong
// secret, a peer that closes or stalls mid-handshake) is closed, counted,
// and named on stderr (at most one line a second).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cluster_identity.h"
#include "ordo/status.h"

struct raft_uv_transport;
struct uv_loop_s;

namespace ordo::replica {

struct RaftTransportOptions {
  // This replica's cluster id; unknown: the first connection from a member
  // of a cluster (authenticated, when there is a secret) sets it.
  ClusterId cluster_id;
  std::string secret;  // empty: no authentication, the cluster id is checked only
  // Called on the loop thread when the cluster id is adopted, before that
  // connection reaches Raft; an error refuses the connection (and the id
  // stays unknown).
  std::function<Status(const ClusterId&)> on_adopt;
  // Called on the loop thread when a peer closes a connection it opened to
  // this replica (one Raft reads from) after the handshake: a peer process
  // that died closed it. May be empty.
  std::function<void(uint64_t peer_id)> on_peer_closed;
  std::chrono::milliseconds handshake_deadline{5000};
  std::string log_name;  // what stderr lines start with, e.g. "ordo replica 3"
};

class RaftTransport {
 public:
  virtual ~RaftTransport() = default;
  // What raft_uv_init is given; every call on it runs on the loop's thread.
  // The object must outlive Raft's use of it (until its close callback).
  virtual raft_uv_transport* raw() = 0;
  // Connections refused since start. Any thread.
  virtual uint64_t refused_connections() const = 0;
  // The cluster id (unknown until adopted). Any thread.
  virtual ClusterId cluster_id() const = 0;
  // Ok, or why Raft's start could not listen on the replica's address:
  // IOError "listen on <address>: <reason>" with the errno of bind(2) or
  // listen(2) (EADDRINUSE for a port in use), or InvalidArgument for an
  // address that does not parse. libraft keeps no more of it than its
  // RAFT_IOERR, which its disk failures return too. Loop thread.
  virtual Status listen_status() const = 0;
};

// A transport running on `loop` (which must outlive it).
std::unique_ptr<RaftTransport> make_raft_transport(uv_loop_s* loop, RaftTransportOptions options);

}  // namespace ordo::replica
