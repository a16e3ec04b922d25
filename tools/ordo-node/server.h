// The ordo-node server: one replica (ordo::replica::Replica) served to
// clients over the protocol of protocol.h on the --listen address.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ordo/status.h"
#include "ordo/sys/tls.h"

namespace ordo::node {

struct Peer {
  uint64_t id = 0;
  std::string address;  // client address; its Raft address is raft_address_of()
};

struct ServerOptions {
  uint64_t id = 0;
  std::string data_dir;
  std::string listen;       // client address "IPv4:port"
  std::vector<Peer> peers;  // the first members (this node among them) when bootstrapping
  // --initial-cluster-state: true ("new") bootstraps a new cluster from
  // `peers` when the data directory has no Raft state; false ("existing",
  // the default, and --join) waits to be added by `add` instead.
  bool new_cluster = false;
  bool join = false;  // --join: "existing" named the older way (no --peers needed)
  // Serve on an address outside 127.0.0.0/8 without TLS and a cluster secret.
  bool insecure = false;
  std::string cluster_token;   // part of the cluster id computed from the peers
  std::string cluster_id;      // 32 hex digits: pins the cluster id ("" = from peers / leader)
  std::string cluster_secret;  // the contents of --cluster-secret-file ("" = none)
  uint32_t snapshot_threshold = 8192;
  uint32_t snapshot_trailing = 4096;
  uint64_t snapshot_threshold_bytes = 64ull << 20;  // ReplicaOptions: the Raft log's budget
  uint64_t snapshot_trailing_bytes = 16ull << 20;
  uint64_t max_unapplied_bytes = 64ull << 20;  // writes refused past it (leader)
  uint32_t election_timeout_ms = 1000;
  uint32_t heartbeat_timeout_ms = 100;
  std::chrono::milliseconds request_timeout{5000};  // a write's or a barrier's wait
  uint32_t max_connections = 256;  // more are answered "too many connections" and closed
  std::chrono::milliseconds idle_timeout{60000};  // a connection idle this long is closed
  std::string metrics_listen;  // "IPv4:port" of the HTTP /metrics listener (metrics.h); "": none
  size_t watch_history_bytes = size_t{64} << 20;  // ReplicaOptions::watch_history_bytes
  // TLS of the client port and the snapshot port (docs/NODE.md): the
  // node's certificate and key and the CA that signs nodes' and clients'
  // certificates; allowed_peer_names: the client certificate names the
  // client port accepts (empty: any the CA signed). Not enabled(): plaintext.
  sys::TlsConfig tls;
  // The certificate names the snapshot port accepts from other nodes and
  // requires of them (empty: any the CA signed).
  std::vector<std::string> tls_allowed_nodes;
};

// "1=127.0.0.1:7001,2=127.0.0.1:7011" -> peers. InvalidArgument naming the
// bad item (no '=', an id that is 0 or not a number, a bad address, a
// repeated id).
Result<std::vector<Peer>> parse_peers(std::string_view text);

// The secret in the file at `path`: its contents without trailing
// whitespace. InvalidArgument when shorter than 32 bytes, IOError when it
// cannot be read.
Result<std::string> read_cluster_secret(const std::string& path);

// 32 random bytes as 64 hex digits and a newline: a new cluster secret
// (`ordo-node secret`). IOError when the system has no randomness to give.
Result<std::string> new_cluster_secret();

// Checks `options` (InvalidArgument naming the problem): id > 0, the listen
// address IPv4:port with port + 2 <= 65535, peers for a new cluster, this
// node among the peers (when given) at its --listen address, and on a
// listen address outside 127.0.0.0/8 TLS and a cluster secret unless
// `insecure`.

Status check_server_options(const ServerOptions& options);

// Opens the replica, listens and serves until SIGTERM or SIGINT; then
// closes the listener, lets the requests in progress end and closes the
// replica. Prints "ordo-node N listening on ADDR" to stdout when ready.
// Returns 0 after an orderly shutdown; on an error at start prints it to
// stderr and returns 1.
int run_server(const ServerOptions& options);

}  // namespace ordo::node
