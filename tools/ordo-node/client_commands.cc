#include "client_commands.h"

#include <fmt/core.h>

#include <algorithm>
#include <istream>
#include <sstream>
#include <vector>

#include "client.h"
#include "request_handler.h"

namespace ordo::node {
namespace {

std::vector<std::string> split_nodes(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Prints the failure of `r` and returns its exit code.
int finish(const Reply& r) {
  switch (r.code) {
    case Reply::Code::kOk:
      return 0;
    case Reply::Code::kNotFound:
      fmt::print(stderr, "not found{}{}\n", r.message.empty() ? "" : ": ", r.message);
      return 1;
    default:
      fmt::print(stderr, "{}: {}\n", reply_code_name(r.code), r.message);
      return 2;
  }
}

void print_raw(std::string_view bytes) { std::fwrite(bytes.data(), 1, bytes.size(), stdout); }

// One stdin line of `batch` into `batch`; false with `error` set when bad.
bool parse_batch_line(const std::string& line, const std::string& tree, replica::WriteBatch& batch,
                      std::string& error) {
  std::istringstream in(line);
  std::string verb, key;
  in >> verb;
  if (verb.empty() || verb[0] == '#') return true;
  if (!(in >> key)) {
    error = "'" + verb + "' needs a key";
    return false;
  }
  if (verb == "put") {
    std::string value;
    if (in.get() == std::char_traits<char>::eof()) {  // the one space after the key
      error = "'put " + key + "' needs a value (put K V; the value is the rest of the line)";
      return false;
    }
    std::getline(in, value);
    batch.put(tree, key, value);
    return true;
  }
  if (verb == "del") {
    std::string extra;
    if (in >> extra) {
      error = "del takes one key";
      return false;
    }
    batch.del(tree, key);
    return true;
  }
  error = "unknown verb '" + verb + "' (put K V | del K)";
  return false;
}

}  // namespace

void add_client_commands(CLI::App& app, ClientArgs& a) {
  auto common = [&](CLI::App* sub) {
    sub->add_option("--node", a.nodes, "client addresses IPv4:port, comma-separated")->required();
    sub->add_option("--timeout-ms", a.timeout_ms,
                    "per request, connect included (default 5000; add/remove 30000)");
    sub->add_option("--probe-timeout-ms", a.probe_timeout_ms,
                    "a node that does not answer a new connection within this is skipped")
        ->capture_default_str();
    sub->add_option("--tls-ca", a.tls_ca, "TLS: the CA of the nodes' certificates (PEM)");
    sub->add_option("--tls-cert", a.tls_cert, "TLS: this client's certificate (PEM)");
    sub->add_option("--tls-key", a.tls_key, "TLS: the key of --tls-cert (PEM)");
  };
  auto* put = app.add_subcommand("put", "put KEY VALUE (through the leader)");
  common(put);
  put->add_option("KEY", a.key)->required();
  put->add_option("VALUE", a.value)->required();
  put->add_option("--tree", a.tree, "tree name (default: the default tree)");

  auto* get = app.add_subcommand("get", "print the value of KEY");
  common(get);
  get->add_option("KEY", a.key)->required();
  get->add_option("--tree", a.tree, "tree name");
  get->add_flag("--linearizable", a.linearizable, "read through the leader after a barrier");

  auto* del = app.add_subcommand("del", "delete KEY (through the leader)");
  common(del);
  del->add_option("KEY", a.key)->required();
  del->add_option("--tree", a.tree, "tree name");

  auto* scan = app.add_subcommand("scan", "print KEY<TAB>VALUE lines in key order");
  common(scan);
  scan->add_option("--tree", a.tree, "tree name");
  scan->add_option("--from", a.from, "first key (inclusive)");
  scan->add_option("--limit", a.limit, "most entries (0: the server's cap)");
  scan->add_flag("--linearizable", a.linearizable, "read through the leader after a barrier");

  auto* batch = app.add_subcommand("batch", "one write of the stdin lines 'put K V' / 'del K'");
  common(batch);
  batch->add_option("--tree", a.tree, "tree name for every line");

  auto* status = app.add_subcommand("status", "print the node's status lines");
  common(status);

  auto* add = app.add_subcommand("add", "add a member (started with --join)");
  common(add);
  add->add_option("--id", a.id, "the new member's id")->required();
  add->add_option("--address", a.address, "its client address IPv4:port")->required();

  auto* remove = app.add_subcommand("remove", "remove a member");
  common(remove);
  remove->add_option("--id", a.id, "the member's id")->required();
}

int run_client_command(const std::string& name, const ClientArgs& a, std::istream& in) {
  std::vector<std::string> nodes = split_nodes(a.nodes);
  if (nodes.empty()) {
    fmt::print(stderr, "failed: --node names no address\n");
    return 2;
  }
  uint32_t timeout_ms =
      a.timeout_ms != 0 ? a.timeout_ms : (name == "add" || name == "remove" ? 30000 : 5000);
  ClientOptions options;
  options.timeout = std::chrono::milliseconds(timeout_ms);
  options.probe_timeout = std::chrono::milliseconds(std::max<uint32_t>(1, a.probe_timeout_ms));
  if (!a.tls_ca.empty() || !a.tls_cert.empty() || !a.tls_key.empty()) {
    sys::TlsConfig tls;
    tls.ca_file = a.tls_ca;
    tls.cert_file = a.tls_cert;
    tls.key_file = a.tls_key;
    auto context = sys::TlsContext::create(tls, sys::TlsRole::kClient);
    if (!context.is_ok()) {
      fmt::print(stderr, "failed: {}\n", context.status().to_string());
      return 2;
    }
    options.tls = std::move(*context);
  }
  Client client(nodes, options);
  replica::ReadMode mode =
      a.linearizable ? replica::ReadMode::kLinearizable : replica::ReadMode::kLocal;
  Reply r;
  if (name == "put") {
    r = client.put(a.tree, a.key, a.value);
    if (r.ok()) fmt::print("ok index {}\n", r.index);
  } else if (name == "del") {
    r = client.del(a.tree, a.key);
    if (r.ok()) fmt::print("ok index {}\n", r.index);
  } else if (name == "get") {
    r = client.get(a.tree, a.key, mode);
    if (r.ok()) {
      print_raw(r.value);
      print_raw("\n");
    }
  } else if (name == "scan") {
    // Pages through replies the server's cap cut short until --limit
    // entries (0: all) are printed.
    std::string from = a.from;
    uint64_t left = a.limit;
    for (;;) {
      r = client.scan(a.tree, from, static_cast<uint32_t>(left), mode);
      if (!r.ok()) break;
      for (const auto& [k, v] : r.entries) {
        print_raw(k);
        print_raw("\t");
        print_raw(v);
        print_raw("\n");
      }
      if (left != 0) left -= std::min<uint64_t>(left, r.entries.size());
      if (r.message != kScanMore || (a.limit != 0 && left == 0)) break;
      from = r.value;
    }
  } else if (name == "batch") {
    replica::WriteBatch batch;
    std::string line, error;
    for (int n = 1; std::getline(in, line); ++n) {
      if (!parse_batch_line(line, a.tree, batch, error)) {
        fmt::print(stderr, "failed: stdin line {}: {}\n", n, error);
        return 2;
      }
    }
    if (batch.empty()) {
      fmt::print(stderr, "failed: no 'put K V' or 'del K' line on stdin\n");
      return 2;
    }
    r = client.batch(batch);
    if (r.ok()) fmt::print("ok index {} ops {}\n", r.index, batch.ops().size());
  } else if (name == "status") {
    r = client.status();
    if (r.ok()) print_raw(r.value);
  } else if (name == "add") {
    r = client.add_member(a.id, a.address);
    if (r.ok()) fmt::print("ok\n");
  } else if (name == "remove") {
    r = client.remove_member(a.id);
    if (r.ok()) fmt::print("ok\n");
  } else {
    fmt::print(stderr, "failed: unknown command '{}'\n", name);
    return 2;
  }
  std::fflush(stdout);
  return finish(r);
}

}  // namespace ordo::node
