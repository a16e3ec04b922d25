#include "server.h"

#include <unistd.h>

#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <memory>
#include <set>

#include "client.h"
#include "connection_server.h"
#include "metrics.h"
#include "ordo/sys/address.h"
#include "ordo/sys/node_ports.h"
#include "ordo/sys/socket.h"
#include "ordo/sys/tls.h"
#include "protocol.h"
#include "request_handler.h"

namespace ordo::node {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) { g_stop.store(true); }

// A client port P leaves room for the Raft and snapshot ports above it.
constexpr int kHighestClientPort = 65535 - sys::kSnapshotPortOffset;

// 127.0.0.0/8: only this machine reaches it.
bool is_loopback(const std::string& dotted_ipv4) { return dotted_ipv4.rfind("127.", 0) == 0; }

}  // namespace

Result<std::vector<Peer>> parse_peers(std::string_view text) {
  std::vector<Peer> peers;
  std::set<uint64_t> ids;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::invalid_argument("peer '" + std::string(item) + "' is not ID=IPv4:port");
    }
    uint64_t id = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + eq, id);
    if (ec != std::errc() || end != item.data() + eq || id == 0) {
      return Status::invalid_argument("peer '" + std::string(item) +
                                      "': the id is not a number > 0");
    }
    std::string address(item.substr(eq + 1));
    auto hp = sys::parse_address(address);
    if (!hp.is_ok())
      return Status::invalid_argument("peer '" + std::string(item) + "': " + hp.status().message());
    if (!ids.insert(id).second) {
      return Status::invalid_argument("peer id " + std::to_string(id) + " is given twice");
    }
    peers.push_back({id, address});
  }
  return peers;
}

Status check_server_options(const ServerOptions& o) {
  if (o.id == 0) return Status::invalid_argument("--id must be > 0");
  if (o.data_dir.empty()) return Status::invalid_argument("--data is required");
  auto hp = sys::parse_address(o.listen);
  if (!hp.is_ok()) return Status::invalid_argument("--listen: " + hp.status().message());
  if (hp->port > kHighestClientPort) {
    return Status::invalid_argument("--listen port " + std::to_string(hp->port) +
                                    ": ports P+1 (Raft) and P+2 (snapshots) must be <= 65535");
  }
  if (o.new_cluster && o.join) {
    return Status::invalid_argument("--join and --initial-cluster-state new contradict each other");
  }
  if (o.new_cluster && o.peers.empty()) {
    return Status::invalid_argument(
        "--initial-cluster-state new needs --peers (the first members, this node among them)");
  }
  if (!o.peers.empty() && !o.join) {
    const Peer* self = nullptr;
    for (const auto& p : o.peers) {
      if (p.id == o.id) self = &p;
      if (sys::parse_address(p.address)->port > kHighestClientPort) {
        return Status::invalid_argument("peer " + std::to_string(p.id) + ": port over " +
                                        std::to_string(kHighestClientPort));
      }
    }
    if (self == nullptr) {
      return Status::invalid_argument("--peers must list this node (id " + std::to_string(o.id) +
                                      "), or start it with --join");
    }
    if (self->address != o.listen) {
      return Status::invalid_argument("--peers gives node " + std::to_string(o.id) +
                                      " the address " + self->address + ", --listen says " +
                                      o.listen);
    }
  }
  if (!o.tls.enabled() && (!o.tls.allowed_peer_names.empty() || !o.tls_allowed_nodes.empty())) {
    return Status::invalid_argument(
        "--tls-allowed-clients and --tls-allowed-nodes need TLS (--tls-cert, --tls-key, --tls-ca)");
  }
  if (o.tls.enabled() &&
      (o.tls.cert_file.empty() || o.tls.key_file.empty() || o.tls.ca_file.empty())) {
    return Status::invalid_argument("TLS needs all of --tls-cert, --tls-key and --tls-ca");
  }
  if (!o.insecure && !is_loopback(hp->host) && (!o.tls.enabled() || o.cluster_secret.empty())) {
    return Status::invalid_argument(
        "--listen " + o.listen +
        " is not a loopback address: a node reachable from the network needs TLS (--tls-cert, "
        "--tls-key, --tls-ca) and a cluster secret (--cluster-secret-file), or --insecure to "
        "serve without them (anyone who reaches the ports can then read, write and remove "
        "members)");
  }
  if (o.idle_timeout.count() <= 0) return Status::invalid_argument("--idle-timeout-ms must be > 0");
  if (o.max_connections == 0) return Status::invalid_argument("--max-connections must be > 0");
  if (!o.metrics_listen.empty()) {
    auto metrics_at = sys::parse_address(o.metrics_listen);
    if (!metrics_at.is_ok()) {
      return Status::invalid_argument("--metrics-listen: " + metrics_at.status().message());
    }
  }
  if (o.heartbeat_timeout_ms == 0 || o.election_timeout_ms < 2 * o.heartbeat_timeout_ms) {
    return Status::invalid_argument(
        "--election-timeout-ms must be at least twice --heartbeat-timeout-ms (> 0)");
  }
  return Status::ok();
}

int run_server(const ServerOptions& o) {
  Status valid = check_server_options(o);
  if (!valid.is_ok()) {
    std::fprintf(stderr, "ordo-node: %s\n", valid.message().c_str());
    return 1;
  }
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  // TLS files are read before anything is opened: a bad file stops the start.
  std::shared_ptr<sys::TlsContext> tls;
  if (o.tls.enabled()) {
    auto context = sys::TlsContext::create(o.tls, sys::TlsRole::kServer);
    if (!context.is_ok()) {
      std::fprintf(stderr, "ordo-node: %s\n", context.status().to_string().c_str());
      return 1;
    }
    tls = std::move(*context);
  }

  // The client port first: a port in use fails before any Raft state is made.
  auto listener = sys::listen_on(o.listen, 128, sys::Blocking::kNo);
  if (!listener.is_ok()) {
    std::fprintf(stderr, "ordo-node: %s\n", listener.status().to_string().c_str());
    return 1;
  }
  int listen_fd = *listener;

  replica::ReplicaOptions ro;
  ro.id = o.id;
  ro.address = raft_address_of(o.listen);
  ro.dir = o.data_dir;
  if (!o.join) {
    for (const auto& p : o.peers) ro.bootstrap.push_back({p.id, raft_address_of(p.address), true});
  }
  ro.initial_cluster_state = o.new_cluster
                                 ? replica::ReplicaOptions::InitialClusterState::kNew
                                 : replica::ReplicaOptions::InitialClusterState::kExisting;
  ro.cluster_token = o.cluster_token;
  ro.cluster_id = o.cluster_id;
  ro.cluster_secret = o.cluster_secret;
  ro.heartbeat_timeout_ms = o.heartbeat_timeout_ms;
  ro.election_timeout_ms = o.election_timeout_ms;
  ro.snapshot_threshold = o.snapshot_threshold;
  ro.snapshot_trailing = o.snapshot_trailing;
  ro.snapshot_threshold_bytes = o.snapshot_threshold_bytes;
  ro.snapshot_trailing_bytes = o.snapshot_trailing_bytes;
  ro.max_unapplied_bytes = o.max_unapplied_bytes;
  ro.watch_history_bytes = o.watch_history_bytes;
  if (o.tls.enabled()) {
    ro.snapshot_tls.cert_file = o.tls.cert_file;
    ro.snapshot_tls.key_file = o.tls.key_file;
    ro.snapshot_tls.ca_file = o.tls.ca_file;
    ro.snapshot_tls.allowed_peer_names = o.tls_allowed_nodes;
  }
  auto opened = replica::Replica::open(ro);
  if (!opened.is_ok()) {
    ::close(listen_fd);
    std::fprintf(stderr, "ordo-node: cannot open the replica in %s: %s\n", o.data_dir.c_str(),
                 opened.status().to_string().c_str());
    return 1;
  }
  std::unique_ptr<replica::Replica> rep = std::move(*opened);
  RequestHandler handler(*rep, o);
  ConnectionCounters connection_counters;
  std::unique_ptr<MetricsServer> metrics;
  if (!o.metrics_listen.empty()) {
    auto started = MetricsServer::start(o.metrics_listen, [&handler, &connection_counters] {
      std::vector<std::pair<std::string, std::string>> entries = handler.status_entries();
      for (auto& e : connection_counters.entries()) entries.push_back(std::move(e));
      return node_metrics().render(entries);
    });
    if (!started.is_ok()) {
      ::close(listen_fd);
      std::fprintf(stderr, "ordo-node: --metrics-listen: %s\n",
                   started.status().to_string().c_str());
      return 1;
    }
    metrics = std::move(*started);
  }

  std::printf("ordo-node %llu listening on %s\n", static_cast<unsigned long long>(o.id),
              o.listen.c_str());
  std::fflush(stdout);

  ConnectionLimits limits;
  limits.max_connections = o.max_connections;
  limits.idle_timeout = o.idle_timeout;
  limits.workers = default_worker_count();
  Status served;
  {
    ConnectionServer connections(listen_fd, tls, limits, handler, connection_counters);
    served = connections.run(g_stop);
  }
  if (!served.is_ok()) {
    std::fprintf(stderr, "ordo-node: %s\n", served.to_string().c_str());
  }
  ::close(listen_fd);
  metrics.reset();
  rep.reset();
  std::fprintf(stderr, "ordo-node %llu: stopped\n", static_cast<unsigned long long>(o.id));
  return 0;
}

}  // namespace ordo::node
