// Runs etcd members (/usr/bin/etcd) on 127.0.0.1 for tests and benchmarks:
// a fresh cluster of N members with free client and peer ports, data
// directories under a root, etcd's default durable settings (its WAL is
// fsynced before a write is answered). Kills (SIGKILL) members, and every
// member still running in its destructor; a member also gets SIGKILL when
// the thread that started it ends (PR_SET_PDEATHSIG), so none outlives a
// crashed benchmark. Member logs: root/mN.log. Thread-safety: one thread at
// a time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ordo/status.h"
#include "ordo/sys/child_process.h"
#include "ordo/sys/tls.h"
#include "tls_files.h"

namespace ordo::bench {

struct EtcdClusterOptions {
  std::string binary = "/usr/bin/etcd";
  std::string root;  // data directories root/m1, root/m2, ... and logs root/m1.log, ...
  int members = 3;
  std::vector<std::string> extra_args;  // passed to every member
  // With TLS: https on client and peer ports, client certificates required on
  // both (etcd's --client-cert-auth and --peer-client-cert-auth).
  std::optional<TlsFiles> tls;
  std::chrono::milliseconds start_timeout{20000};
};

class EtcdCluster {
 public:
  explicit EtcdCluster(EtcdClusterOptions options);
  ~EtcdCluster();  // SIGKILLs every member still running
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  // Sets options.tls (before start()).
  void set_tls(TlsFiles files) { options_.tls = std::move(files); }

  // Starts every member as one new cluster (--initial-cluster-state new, a
  // fresh --initial-cluster-token) and waits until every member answers
  // /v3/maintenance/status naming the same leader. InvalidArgument when the
  // binary is missing or the root is empty; IOError naming the member (and
  // the tail of its log) when one cannot start or the cluster is not ready
  // within start_timeout. Call once.
  Status start();

  int size() const { return static_cast<int>(members_.size()); }
  // Member i (1-based): its client address "127.0.0.1:P" (the gateway's
  // host:port), its data directory, its pid (0 when not running).
  std::string client_address(int i) const;
  std::vector<std::string> client_addresses() const;
  std::string data_dir(int i) const;
  pid_t pid(int i) const;

  // The running member that is leader by its own status (1-based), or 0 when
  // none is within `timeout`.
  int leader(std::chrono::milliseconds timeout);

  // The client TLS context (the client certificate of options.tls) for
  // EtcdClient; null without TLS. Set by start().
  std::shared_ptr<const sys::TlsContext> client_tls() const { return client_tls_; }

  // SIGKILL member i and reap it. InvalidArgument for a bad index or a member
  // not running.
  Status kill(int i);

 private:
  struct Member {
    std::string name;
    uint16_t client_port = 0;
    uint16_t peer_port = 0;
    sys::ChildProcess process;
  };
  Status spawn(size_t index, const std::string& initial_cluster, const std::string& token);
  std::string log_tail(size_t index) const;

  EtcdClusterOptions options_;
  std::shared_ptr<const sys::TlsContext> client_tls_;
  std::vector<Member> members_;
};

}  // namespace ordo::bench
