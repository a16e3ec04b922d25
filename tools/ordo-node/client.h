// A client of ordo-node servers: one TCP connection to one node at a time,
// request/response frames (protocol.h). Writes follow "not the leader"
// replies to the leader; reads go to the node connected to.
//
// A request tries the node in use (the leader, once a write found it; its
// connection is kept), then the others in order. A node that refuses the
// connection is skipped, and so is one whose new connection does not
// answer a status probe within the probe timeout (200 ms; doubled on each
// later pass over the nodes, at most 1 s) or answers it with a refusal
// ("too many connections", removed from the cluster, another cluster's:
// see expect_cluster). A node that timed out (a stopped node: the
// kernel accepts for it, nothing answers) is suspect for a while and tried
// after the others. When all refuse, they are tried again for one second
// (they may be starting), then the reply is kFailed. While no leader is
// known (an election), every node is asked again each 100 ms until the
// timeout, then kFailed. Redirects are followed up to 5 times per pass.
// With a TLS context every connection is TLS 1.3 (the node's certificate
// verified against the CA; the client's presented when it has one).
//
// Addresses are client addresses "IPv4:port" (the port given to
// `ordo-node --listen`). Thread-safety: one thread at a time per Client;
// use one Client per thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ordo/replica.h"
#include "ordo/sys/tls.h"

namespace ordo::node {

struct Reply {
  enum class Code : uint8_t {
    kOk,             // done (a write: applied by a majority and by the node)
    kNotFound,       // a read of a missing key or tree
    kFailed,         // certainly not done: message says why (no node reachable
                     // before sending, invalid request, not the leader after
                     // following redirects)
    kUnknown,        // a write that may or may not be done: the connection broke
                     // or timed out after the request was sent, or the leader
                     // lost leadership with it in flight
    kCompareFailed,  // a write whose guard did not hold: certainly not done;
                     // message names the guard
  };
  Code code = Code::kFailed;
  std::string message;
  uint64_t index = 0;  // writes: the entry's log index; reads: the applied index read at
  std::string value;   // get: the value; put_new_id: the minted key (8 bytes)
  std::vector<std::pair<std::string, std::string>> entries;  // scan
  std::string node;                                          // the client address that answered
  bool ok() const { return code == Code::kOk; }
};

// "ok", "not-found", "failed", "unknown", "compare-failed".
const char* reply_code_name(Reply::Code code);

// The oldest index of a watch refused as "compacted: oldest index N"; 0
// for any other reply.
uint64_t compacted_oldest(const Reply& reply);
struct ClientOptions {
  std::chrono::milliseconds timeout{5000};  // per request, connect included
  // A new connection's connect, TLS handshake and status probe on the first
  // pass over the nodes (later passes double it, up to 1 s).
  std::chrono::milliseconds probe_timeout{200};
  // How long a node that timed out is tried after the others.
  std::chrono::milliseconds suspect_for{5000};
  std::shared_ptr<const sys::TlsContext> tls;  // a client context; null: plaintext
};

class Client {
 public:
  // `nodes`: client addresses to try, in order, until one answers.
  // `timeout`: per request, connect included.
  Client(std::vector<std::string> nodes, std::chrono::milliseconds timeout);
  Client(std::vector<std::string> nodes, ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Writes ("" = the default tree). Each is one log entry.
  Reply put(std::string_view tree, std::string_view key, std::string_view value);
  Reply del(std::string_view tree, std::string_view key);
  // A batch with a guard that does not hold is kCompareFailed, its message
  // naming the guard. With
  // set_return_prev: on kOk, entries hold (key, previous value) for each
  // put and del in op order, and value one byte each: '1' the key held the
  // value, '0' it was absent.
  Reply batch(const replica::WriteBatch& batch);
  // Deletes the keys first <= k < end of `tree`, in key order.
  Reply del_range(std::string_view tree, std::string_view first, std::string_view end);
  // Puts `value` under a key the leader mints before proposing: an Id64's 8
  // big-endian bytes, returned in Reply::value.
  Reply put_new_id(std::string_view tree, std::string_view value);

  // Reads on the node connected to (local) or through the leader
  // (linearizable).
  Reply get(std::string_view tree, std::string_view key, replica::ReadMode mode);
  Reply scan(std::string_view tree, std::string_view from, uint32_t limit, replica::ReadMode mode);

  // The changes the node connected to applied from position (from_index,
  // from_offset) on (Replica::watch; from_index 0: the next change), in
  // `tree` only (nullptr: every tree), at most `limit` (0: the server's cap).
  // Waits up to wait_ms (the server cuts it to 10 s) for a first change; the
  // request's timeout is the client's plus wait_ms. kOk: parse the reply
  // with parse_watch_reply (protocol.h); its next position is where to go
  // on. kFailed "compacted: oldest index N" (compacted_oldest) when the
  // node's history no longer holds the position.
  Reply watch(const std::string* tree, uint64_t from_index, uint32_t from_offset, uint32_t limit,
              uint32_t wait_ms);

  // The status of the node connected to, as text lines "name: value".
  Reply status();

  // Membership, through the leader. `address` is the new node's client address.
  Reply add_member(uint64_t id, std::string_view address);
  Reply remove_member(uint64_t id);

  // Sticks to `node` for reads (one of `nodes` or any other client address).
  void connect_to(std::string node);

  // Every node must belong to cluster `cluster_id` (32 hex digits; "", the
  // default: the id more than half of `nodes` answer a hello with, asked
  // before the first request; the one node when only one is given). A
  // request finding no id with a majority before its timeout is kFailed
  // "no cluster id is held by a majority ...". A node of
  // another cluster is skipped like an unreachable one; the reason shows in
  // the error when no node answers. Drops the current connection.
  void expect_cluster(std::string cluster_id);
  // The cluster pinned ("" before any node answered, when none was given).
  const std::string& cluster_id() const;

 private:
  struct Impl;
  Impl* impl_;
};

// Address arithmetic of a node listening for clients on port P: Raft on
// P + 1, snapshot copies on P + 2 (the rule of ordo/sys/node_ports.h). ""
// for an address that is not IPv4:port or a port out of range.
std::string raft_address_of(std::string_view client_address);
std::string client_address_of(std::string_view raft_address);

}  // namespace ordo::node
