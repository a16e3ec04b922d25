// The client subcommands of the ordo-node binary: put, get, del, delrange,
// scan, batch, watch, status, add, remove (docs/NODE.md). Each prints its
// result to stdout and returns the exit code: 0 ok, 1 not found, 2 failed
// or unknown, 3 a guard did not hold ("compare-failed: ..." on stderr,
// naming the guard).
// get, scan and watch print keys and values escaped (escape.h), or as hex
// (--hex); get --raw prints the value's bytes.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
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
  bool hex = false;  // get, scan: keys and values as hex
  bool raw = false;  // get: the value's bytes as they are
  uint64_t id = 0;
  std::string address;
  uint32_t timeout_ms = 0;                // 0: 5000, and 30000 for add/remove
  std::string cluster_id;                 // "" = the cluster most of the nodes hold
  std::string end;                        // delrange: the end key (excluded)
  bool if_absent = false;                 // put: only if KEY is absent
  std::optional<std::string> if_value;    // put: only if KEY holds this value
  bool prev = false;                      // put, del: print the previous value
  std::optional<std::string> watch_tree;  // watch: one tree (else every tree)
  uint64_t from_index = 0;                // watch: first index (0: the next change)
  uint32_t wait_ms = 2000;                // watch: the long poll's wait
  uint64_t max_changes = 0;               // watch: exit after this many (0: never)
  std::string tls_ca;                     // TLS: the CA of the nodes' certificates ("" = plaintext)
  std::string tls_cert;                   // TLS: this client's certificate and key
  uint32_t probe_timeout_ms = 200;        // a new connection's connect and status probe
  std::string tls_key;
};

// Adds the subcommands to `app`; each stores into `args`.
void add_client_commands(CLI::App& app, ClientArgs& args);

// Runs the subcommand `app` parsed (its name), reading `in` for batch.
int run_client_command(const std::string& name, const ClientArgs& args, std::istream& in);

}  // namespace ordo::node
