// One replicated store under test, behind one interface for the workload of
// `ordo-bench replicated`: a cluster of processes on 127.0.0.1 (ordo-node or
// etcd), its leader, killing a node, and put clients with a connection each.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/status.h"

namespace ordo::bench {

// One connection's worth of client. One thread at a time.
class PutClient {
 public:
  virtual ~PutClient() = default;
  // A durable put: ok once the store acknowledged it (a majority has it).
  // Any error means not acknowledged (failed, or unknown: the connection
  // broke); the client then moves to the next node for its next put.
  virtual Status put(std::string_view key, std::string_view value) = 0;
};

class ReplicatedStore {
 public:
  virtual ~ReplicatedStore() = default;  // kills every process still running

  // Starts a fresh cluster and waits until it has a leader. Call once.
  virtual Status start() = 0;
  virtual int size() const = 0;
  // The node (1-based) that is leader, or 0 when none within `timeout`.
  virtual int leader(std::chrono::milliseconds timeout) = 0;
  // SIGKILL node i.
  virtual Status kill(int node) = 0;
  // A client connected first to node `first` (1-based), then to the others in
  // turn after a failed put; `timeout` bounds each request.
  virtual std::unique_ptr<PutClient> client(int first, std::chrono::milliseconds timeout) = 0;
  // The settings worth recording with the figures ("name: value" lines).
  virtual std::vector<std::string> settings() const = 0;
};

// etcd members from `etcd_binary` (etcd's defaults: WAL fsynced per write
// batch, heartbeat 100 ms, election timeout 1000 ms), data under `root`.
// With `tls`: throwaway certificates in root/tls (tls_files.h), TLS with
// client certificates on every port.
std::unique_ptr<ReplicatedStore> make_etcd_store(std::string etcd_binary, std::string root,
                                                 int nodes, bool tls);

// ordo-node processes from `node_binary`, data under `root`. Null when this
// build has no ordo-node (ORDO_BENCH_HAVE_ORDO_NODE undefined). With `tls`:
// as etcd's, mutual TLS on the client and snapshot ports (the Raft port has
// no TLS).
std::unique_ptr<ReplicatedStore> make_ordo_store(std::string node_binary, std::string root,
                                                 int nodes, bool tls);

}  // namespace ordo::bench
