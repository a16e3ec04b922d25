// The client subcommands of the ordo-node binary: put, get, del, scan,
// batch, status, add, remove (docs/NODE.md). Each prints its result to
// stdout and returns the exit code: 0 ok, 1 not found, 2 failed or unknown
// (the message on stderr).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "CLI/CLI.hpp"

namespace ordo::node {

struct ClientArgs {
  std::string nodes;  // "ADDR[,ADDR...]"
  std::string tree;   // "" = the default tree
  std::string key;
  std::string value;
  std::string from;
  uint32_t limit = 0;
  bool linearizable = false;
  uint64_t id = 0;
  std::string address;
  uint32_t timeout_ms = 0;          // 0: 5000, and 30000 for add/remove
  uint32_t probe_timeout_ms = 200;  // a new connection's connect and status probe
  std::string tls_ca;               // TLS: the CA of the nodes' certificates ("" = plaintext)
  std::string tls_cert;             // TLS: this client's certificate and key
  std::string tls_key;
};

// Adds the subcommands to `app`; each stores into `args`.
void add_client_commands(CLI::App& app, ClientArgs& args);

// Runs the subcommand `app` parsed (its name), reading `in` for batch.
int run_client_command(const std::string& name, const ClientArgs& args, std::istream& in);

}  // namespace ordo::node
