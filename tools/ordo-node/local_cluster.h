// Runs ordo-node processes on 127.0.0.1 for tests and benchmarks: starts a
// cluster, kills (SIGKILL), stops (SIGSTOP) and resumes (SIGCONT) nodes, and
// restarts them on their data directories. Every process it starts is killed
// by the destructor. Thread-safety: one thread at a time.
//
// Node i has member id i, data directory root/ni and its stdout and stderr
// appended to root/ni.log (errors quote its tail). Nodes are child processes
// (sys::ChildProcess). With base_port 0 each node gets a client port P with
// its Raft and snapshot ports (sys/node_ports.h) free at start
// (sys::pick_free_port_run). Errors: InvalidArgument for a node index out of
// range or a node in the wrong state (kill, stop, resume or terminate of a
// node not running, restart of a running one); IOError naming the node when
// it cannot be started, exits at start, does not answer within
// start_timeout, or a membership change is refused.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client.h"
#include "ordo/status.h"
#include "ordo/sys/child_process.h"
#include "ordo/sys/tls.h"

namespace ordo::node {

struct LocalClusterOptions {
  std::string binary;  // path of the ordo-node executable
  std::string root;    // data directories root/n1, root/n2, ...
  int nodes = 3;
  uint16_t base_port = 0;  // 0: pick free ports; node i listens on base_port + 10 * (i - 1)
  std::vector<std::string> extra_args;  // passed to every node (e.g. --snapshot-threshold 4096)
  std::chrono::milliseconds start_timeout{10000};
  // The client context of the harness's own requests to nodes started with
  // TLS (--tls-* in extra_args); null: plaintext.
  std::shared_ptr<const sys::TlsContext> client_tls;
  // Tests: words run before the binary for node i (1-based), given every
  // node's client address, e.g. {"/usr/bin/env", "LD_PRELOAD=...", "VAR=..."}
  // (the program must exec the rest of its arguments, keeping its pid).
  std::function<std::vector<std::string>(int i, const std::vector<std::string>& addresses)>
      launch_prefix;
};

class LocalCluster {
 public:
  explicit LocalCluster(LocalClusterOptions options);
  ~LocalCluster();  // SIGKILLs every node still running (resuming stopped ones)
  LocalCluster(const LocalCluster&) = delete;
  LocalCluster& operator=(const LocalCluster&) = delete;

  // Starts every node (bootstrapping them as one cluster) and waits until one
  // is leader and all answer status. IOError naming the node on failure.
  Status start();

  int size() const;
  // Node i (1-based): its client address, data directory and pid (0 when not running).
  std::string address(int i) const;
  std::vector<std::string> addresses() const;
  std::string data_dir(int i) const;
  pid_t pid(int i) const;
  // root/ni.log: node i's stdout and stderr.
  std::string log_path(int i) const;

  // The node that says it is leader (1-based), or 0 when none does within `timeout`.
  int leader(std::chrono::milliseconds timeout);

  Status kill(int i);     // SIGKILL and reap
  Status restart(int i);  // start node i again on its data directory, wait until it answers
  Status stop(int i);     // SIGSTOP
  Status resume(int i);   // SIGCONT
  // How node i ended when it exited since it was last started and nobody
  // killed it (a crash, an assertion): reaps it, so it can be restarted.
  // std::nullopt while it runs, or when it is not running because kill()
  // or terminate() ended it.
  Result<std::optional<sys::ChildExit>> exited(int i);
  // SIGTERM (after SIGCONT) and wait at most `timeout` for node i to exit:
  // how it ended. IOError (ETIMEDOUT) when it had not, and it is SIGKILLed.
  Result<sys::ChildExit> terminate(int i, std::chrono::milliseconds timeout);
  // Adds node size()+1 as a member (started with --join) through the leader; returns its index.
  Result<int> add_node();
  Status remove_node(int i);  // through the leader, then kills it

 private:
  struct Node;
  // Node i (1-based), or InvalidArgument "no node i"; with `running`, also
  // InvalidArgument "node i is not running" when it is not.
  Result<Node*> node(int i, bool running);
  // Node `index` (not yet in nodes_): its ports, directory and log.
  Result<std::unique_ptr<Node>> make_node(int index) const;
  Status spawn(Node& n);
  Status wait_answers(Node& n);
  // The harness's client options: `timeout`, and client_tls.
  ClientOptions client_options(std::chrono::milliseconds timeout) const;
  LocalClusterOptions options_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

}  // namespace ordo::node
