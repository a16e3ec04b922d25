#include "client_commands.h"

#include <fmt/core.h>

#include <algorithm>
#include <istream>
#include <sstream>
#include <vector>

#include "client.h"
#include "escape.h"
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
    case Reply::Code::kCompareFailed:
      fmt::print(stderr, "{}: {}\n", reply_code_name(r.code), r.message);
      return 3;
    default:
      fmt::print(stderr, "{}: {}\n", reply_code_name(r.code), r.message);
      return 2;
  }
}

void print_raw(std::string_view bytes) { std::fwrite(bytes.data(), 1, bytes.size(), stdout); }

// A key or value for a line of get's or scan's output.
void print_field(std::string_view bytes, const ClientArgs& a) {
  print_raw(a.hex ? hex_bytes(bytes) : escape_bytes(bytes));
}

// "prev: VALUE" or "prev: absent" for each previous value of a write reply.
void print_prev(const Reply& r, const ClientArgs& a) {
  for (size_t i = 0; i < r.entries.size(); ++i) {
    if (i < r.value.size() && r.value[i] == '1') {
      print_raw("prev: ");
      print_field(r.entries[i].second, a);
      print_raw("\n");
    } else {
      print_raw("prev: absent\n");
    }
  }
}

// Prints changes until killed (or max_changes), resuming after each reply.
Reply run_watch(Client& client, const ClientArgs& a) {
  const std::string* tree = a.watch_tree ? &*a.watch_tree : nullptr;
  uint64_t index = a.from_index;
  uint32_t offset = 0;
  uint64_t printed = 0;
  for (;;) {
    Reply r = client.watch(tree, index, offset, 0, a.wait_ms);
    if (!r.ok()) {
      if (uint64_t oldest = compacted_oldest(r); oldest != 0) {
        r.message += " (read the state afresh, then watch --from " + std::to_string(oldest) + ")";
      }
      return r;
    }
    auto result = parse_watch_reply(r.index, r.value, r.entries);
    if (!result.is_ok()) {
      r.code = Reply::Code::kFailed;
      r.message = result.status().message();
      return r;
    }
    for (const replica::Change& c : result->changes) {
      fmt::print("{}\t{}\t", c.index, change_kind_name(c.kind));
      std::fflush(stdout);
      print_field(c.tree, a);
      print_raw("\t");
      print_field(c.key, a);
      print_raw("\t");
      print_field(c.value, a);
      print_raw("\n");
      if (a.max_changes != 0 && ++printed >= a.max_changes) {
        std::fflush(stdout);
        return r;
      }
    }
    std::fflush(stdout);
    index = result->next_index;
    offset = result->next_offset;
  }
}

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
  if (verb == "check") {
    std::string value;
    if (in.get() == std::char_traits<char>::eof()) {
      error = "'check " + key + "' needs a value (check K V; the value is the rest of the line)";
      return false;
    }
    std::getline(in, value);
    batch.check_value(tree, key, value);
    return true;
  }
  std::string second, extra;
  in >> second;
  if (in >> extra) {
    error = "too many words after '" + verb + "'";
    return false;
  }
  if (verb == "delrange") {
    if (second.empty()) {
      error = "'delrange " + key + "' needs an end key (delrange FIRST END)";
      return false;
    }
    batch.del_range(tree, key, second);
    return true;
  }
  if (!second.empty()) {
    error = verb + " takes one key";
    return false;
  }
  if (verb == "del") {
    batch.del(tree, key);
  } else if (verb == "absent") {
    batch.check_absent(tree, key);
  } else if (verb == "present") {
    batch.check_present(tree, key);
  } else {
    error = "unknown verb '" + verb +
            "' (put K V | del K | delrange A B | check K V | absent K | present K)";
    return false;
  }
  return true;
}

}  // namespace

void add_client_commands(CLI::App& app, ClientArgs& a) {
  auto common = [&](CLI::App* sub) {
    sub->add_option("--node", a.nodes, "client addresses IPv4:port, comma-separated")->required();
    sub->add_option("--timeout-ms", a.timeout_ms,
                    "per request, connect included (default 5000; add/remove 30000)");
    sub->add_option("--cluster-id", a.cluster_id,
                    "only nodes of this cluster (32 hex digits, `status` shows it) answer");
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
  auto* if_absent =
      put->add_flag("--if-absent", a.if_absent, "only if KEY is absent (else exit 3)");
  put->add_option("--if-value", a.if_value, "only if KEY holds this value (else exit 3)")
      ->excludes(if_absent);
  put->add_flag("--prev", a.prev, "print the value KEY held before ('prev: absent' if none)");

  auto* get = app.add_subcommand("get", "print the value of KEY");
  common(get);
  get->add_option("KEY", a.key)->required();
  get->add_option("--tree", a.tree, "tree name");
  get->add_flag("--linearizable", a.linearizable, "read through the leader after a barrier");
  get->add_flag("--hex", a.hex, "print the value as hex");
  get->add_flag("--raw", a.raw, "print the value's bytes unescaped");

  auto* del = app.add_subcommand("del", "delete KEY (through the leader)");
  common(del);
  del->add_option("KEY", a.key)->required();
  del->add_option("--tree", a.tree, "tree name");
  del->add_flag("--prev", a.prev, "print the value KEY held before ('prev: absent' if none)");

  auto* delrange = app.add_subcommand("delrange", "delete the keys FIRST <= k < END");
  common(delrange);
  delrange->add_option("FIRST", a.key)->required();
  delrange->add_option("END", a.end)->required();
  delrange->add_option("--tree", a.tree, "tree name");

  auto* watch = app.add_subcommand(
      "watch", "print committed changes INDEX<TAB>KIND<TAB>TREE<TAB>KEY<TAB>VALUE until killed");
  common(watch);
  watch->add_option("--tree", a.watch_tree, "one tree (\"\" the default tree); default every tree");
  watch->add_option("--from", a.from_index, "first log index (default: the next change)");
  watch->add_option("--wait-ms", a.wait_ms, "long poll per request (server cap 10000)")
      ->capture_default_str();
  watch->add_option("--max-changes", a.max_changes, "exit 0 after this many changes");
  watch->add_flag("--hex", a.hex, "print trees, keys and values as hex");

  auto* scan = app.add_subcommand(
      "scan", "print KEY<TAB>VALUE lines in key order (\\t \\n \\\\ \\xHH escaped)");
  common(scan);
  scan->add_option("--tree", a.tree, "tree name");
  scan->add_option("--from", a.from, "first key (inclusive)");
  scan->add_option("--limit", a.limit, "most entries (0: the server's cap)");
  scan->add_flag("--linearizable", a.linearizable, "read through the leader after a barrier");
  scan->add_flag("--hex", a.hex, "print keys and values as hex");

  auto* batch = app.add_subcommand(
      "batch",
      "one write of the stdin lines 'put K V', 'del K', 'delrange A B', guards 'check K V', "
      "'absent K', 'present K'");
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
  if (!a.cluster_id.empty()) {
    if (a.cluster_id.size() != 32 ||
        a.cluster_id.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      fmt::print(stderr, "failed: --cluster-id {} is not 32 hex digits\n", a.cluster_id);
      return 2;
    }
    client.expect_cluster(a.cluster_id);
  }
  replica::ReadMode mode =
      a.linearizable ? replica::ReadMode::kLinearizable : replica::ReadMode::kLocal;
  Reply r;
  if (name == "put" && !a.if_absent && !a.if_value && !a.prev) {
    r = client.put(a.tree, a.key, a.value);
    if (r.ok()) fmt::print("ok index {}\n", r.index);
  } else if (name == "put" || (name == "del" && a.prev)) {
    // Guards and previous values travel in a batch.
    replica::WriteBatch batch;
    if (a.if_absent) batch.check_absent(a.tree, a.key);
    if (a.if_value) batch.check_value(a.tree, a.key, *a.if_value);
    if (name == "put") {
      batch.put(a.tree, a.key, a.value);
    } else {
      batch.del(a.tree, a.key);
    }
    batch.set_return_prev(a.prev);
    r = client.batch(batch);
    if (r.ok()) {
      fmt::print("ok index {}\n", r.index);
      std::fflush(stdout);
      if (a.prev) print_prev(r, a);
    }
  } else if (name == "del") {
    r = client.del(a.tree, a.key);
    if (r.ok()) fmt::print("ok index {}\n", r.index);
  } else if (name == "delrange") {
    r = client.del_range(a.tree, a.key, a.end);
    if (r.ok()) fmt::print("ok index {}\n", r.index);
  } else if (name == "watch") {
    r = run_watch(client, a);
  } else if (name == "get") {
    r = client.get(a.tree, a.key, mode);
    if (r.ok()) {
      if (a.raw) {
        print_raw(r.value);
      } else {
        print_field(r.value, a);
      }
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
        print_field(k, a);
        print_raw("\t");
        print_field(v, a);
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
      fmt::print(stderr, "failed: no 'put K V', 'del K' or other op line on stdin\n");
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
