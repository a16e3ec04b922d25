// ordo-node: with --id/--data/--listen a server (server.h); with a
// subcommand (put, get, del, delrange, scan, batch, watch, status, add, remove) a client
// (client_commands.h). docs/NODE.md.
#include <fmt/core.h>

#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "client_commands.h"
#include "server.h"

namespace {

// "a,b" -> {"a", "b"}; empty items are dropped.
std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  size_t at = 0;
  while (at <= text.size()) {
    size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    if (comma > at) names.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ordo::node;
  CLI::App app{"ordo-node: a replicated ordo server (no subcommand) and its client (subcommands)"};
  app.require_subcommand(0, 1);
  ServerOptions so;
  std::string peers;
  app.add_option("--id", so.id, "this node's member id (> 0)");
  app.add_option("--data", so.data_dir, "data directory (created when missing)");
  app.add_option("--listen", so.listen, "client address IPv4:P (Raft on P+1, snapshots on P+2)");
  app.add_option("--peers", peers, "first members ID=IPv4:P,... (client addresses)");
  std::string cluster_state = "existing";
  app.add_option("--initial-cluster-state", cluster_state,
                 "new: bootstrap a new cluster from --peers on an empty data directory; "
                 "existing: wait to be added by `add` (the data directory's state wins "
                 "either way)")
      ->check(CLI::IsMember({"new", "existing"}))
      ->capture_default_str();
  app.add_flag("--join", so.join, "start without bootstrap, to be added by `add` (= existing)");
  app.add_flag("--insecure", so.insecure,
               "serve on a non-loopback --listen address without TLS and a cluster secret");
  app.add_option("--cluster-token", so.cluster_token,
                 "with --peers, makes the cluster id (the same on every first member)");
  app.add_option("--cluster-id", so.cluster_id, "pin the cluster id (32 hex digits)");
  std::string secret_file;
  app.add_option("--cluster-secret-file", secret_file,
                 "file with the cluster secret (32+ bytes): authenticates the Raft port");
  app.add_subcommand("secret", "print a new cluster secret (for --cluster-secret-file)");
  app.add_option("--snapshot-threshold", so.snapshot_threshold, "entries between snapshots")
      ->capture_default_str();
  app.add_option("--snapshot-trailing", so.snapshot_trailing, "entries kept behind a snapshot")
      ->capture_default_str();
  app.add_option("--snapshot-threshold-bytes", so.snapshot_threshold_bytes,
                 "also snapshot after this many bytes of entries")
      ->capture_default_str();
  app.add_option("--snapshot-trailing-bytes", so.snapshot_trailing_bytes,
                 "at most this many bytes of entries kept behind a snapshot")
      ->capture_default_str();
  app.add_option("--max-unapplied-bytes", so.max_unapplied_bytes,
                 "the leader refuses writes while this many proposed bytes are unapplied")
      ->capture_default_str();
  app.add_option("--election-timeout-ms", so.election_timeout_ms)->capture_default_str();
  app.add_option("--heartbeat-timeout-ms", so.heartbeat_timeout_ms)->capture_default_str();
  uint32_t request_timeout_ms = 5000;
  app.add_option("--request-timeout-ms", request_timeout_ms, "a write's wait for its commit")
      ->capture_default_str();

  uint32_t idle_timeout_ms = 60000;
  app.add_option("--idle-timeout-ms", idle_timeout_ms, "close a client connection idle this long")
      ->capture_default_str();
  app.add_option("--max-connections", so.max_connections, "client connections served at once")
      ->capture_default_str();

  app.add_option("--metrics-listen", so.metrics_listen,
                 "IPv4:port for HTTP GET /metrics (Prometheus text); default none");
  app.add_option("--watch-history-bytes", so.watch_history_bytes,
                 "bytes of recent changes kept in memory for watch")
      ->capture_default_str();
  std::string tls_allowed_clients;
  std::string tls_allowed_nodes;
  app.add_option("--tls-cert", so.tls.cert_file, "TLS: this node's certificate (PEM)");
  app.add_option("--tls-key", so.tls.key_file, "TLS: the key of --tls-cert (PEM)");
  app.add_option("--tls-ca", so.tls.ca_file, "TLS: the CA of nodes' and clients' certificates");
  app.add_option("--tls-allowed-clients", tls_allowed_clients,
                 "TLS: client certificate names (CN or DNS SAN) allowed, NAME,... (default any)");
  app.add_option("--tls-allowed-nodes", tls_allowed_nodes,
                 "TLS: node certificate names allowed on the snapshot port (default any)");

  ClientArgs client_args;
  add_client_commands(app, client_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "failed: {}\n", e.what());
    return 2;
  }

  if (!app.get_subcommands().empty() && app.get_subcommands().front()->get_name() == "secret") {
    auto secret = new_cluster_secret();
    if (!secret.is_ok()) {
      fmt::print(stderr, "ordo-node secret: {}\n", secret.status().to_string());
      return 1;
    }
    fmt::print("{}", *secret);
    return 0;
  }
  if (!app.get_subcommands().empty()) {
    return run_client_command(app.get_subcommands().front()->get_name(), client_args, std::cin);
  }
  if (so.id == 0 && so.data_dir.empty() && so.listen.empty()) {
    fmt::print(stderr, "{}", app.help());
    return 2;
  }
  if (!peers.empty()) {
    auto parsed = parse_peers(peers);
    if (!parsed.is_ok()) {
      fmt::print(stderr, "ordo-node: --peers: {}\n", parsed.status().message());
      return 1;
    }
    so.peers = std::move(*parsed);
  }
  if (!secret_file.empty()) {
    auto secret = read_cluster_secret(secret_file);
    if (!secret.is_ok()) {
      fmt::print(stderr, "ordo-node: --cluster-secret-file: {}\n", secret.status().to_string());
      return 1;
    }
    so.cluster_secret = std::move(*secret);
  }
  so.new_cluster = cluster_state == "new";
  so.tls.allowed_peer_names = split_names(tls_allowed_clients);
  so.tls_allowed_nodes = split_names(tls_allowed_nodes);
  so.request_timeout = std::chrono::milliseconds(request_timeout_ms);
  so.idle_timeout = std::chrono::milliseconds(idle_timeout_ms);
  return run_server(so);
}
