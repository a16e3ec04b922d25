#include "local_cluster.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "client.h"
#include "ordo/sys/node_ports.h"
#include "ordo/sys/ports.h"

namespace ordo::node {

struct LocalCluster::Node {
  int index = 0;  // 1-based, also the member id
  uint16_t port = 0;
  std::string dir;
  std::string log;
  sys::ChildProcess process;
  bool stopped = false;
  bool join = false;
  bool started = false;  // spawned before: no bootstrap again
  std::string address() const { return "127.0.0.1:" + std::to_string(port); }
};

namespace {

constexpr auto kPoll = std::chrono::milliseconds(50);

// The last lines of a node's log, for error messages.
std::string log_tail(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return {};
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  if (text.size() > 600) text = "..." + text.substr(text.size() - 600);
  return text;
}

// Status lines "name: value" -> the value of `name`.
std::string status_field(const std::string& text, const std::string& name) {
  std::string prefix = name + ": ";
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text.compare(at, prefix.size(), prefix) == 0) {
      return text.substr(at + prefix.size(), end - at - prefix.size());
    }
    at = end + 1;
  }
  return {};
}

}  // namespace

LocalCluster::LocalCluster(LocalClusterOptions options) : options_(std::move(options)) {}

// Each node's ChildProcess SIGKILLs and reaps it, stopped or not.
LocalCluster::~LocalCluster() = default;

int LocalCluster::size() const { return static_cast<int>(nodes_.size()); }

std::string LocalCluster::address(int i) const {
  if (i < 1 || i > size()) return {};
  return nodes_[static_cast<size_t>(i - 1)]->address();
}

std::vector<std::string> LocalCluster::addresses() const {
  std::vector<std::string> out;
  for (const auto& n : nodes_) out.push_back(n->address());
  return out;
}

std::string LocalCluster::data_dir(int i) const {
  if (i < 1 || i > size()) return {};
  return nodes_[static_cast<size_t>(i - 1)]->dir;
}

pid_t LocalCluster::pid(int i) const {
  if (i < 1 || i > size()) return 0;
  return nodes_[static_cast<size_t>(i - 1)]->process.pid();
}

std::string LocalCluster::log_path(int i) const {
  if (i < 1 || i > size()) return {};
  return nodes_[static_cast<size_t>(i - 1)]->log;
}

Result<LocalCluster::Node*> LocalCluster::node(int i, bool running) {
  if (i < 1 || i > size()) return Status::invalid_argument("no node " + std::to_string(i));
  Node* n = nodes_[static_cast<size_t>(i - 1)].get();
  if (running && !n->process.running()) {
    return Status::invalid_argument("node " + std::to_string(i) + " is not running");
  }
  return n;
}

// Starts node `n` with stdout and stderr appended to its log.
Status LocalCluster::spawn(Node& n) {
  std::vector<std::string> args;
  if (options_.launch_prefix) args = options_.launch_prefix(n.index, addresses());
  std::vector<std::string> node_args = {
      options_.binary, "--id", std::to_string(n.index), "--data", n.dir, "--listen", n.address()};
  args.insert(args.end(), node_args.begin(), node_args.end());
  std::string peers;
  for (int i = 1; i <= size(); ++i) {
    if (!peers.empty()) peers += ",";
    peers += std::to_string(i) + "=" + address(i);
  }
  args.push_back("--peers");
  args.push_back(peers);
  if (n.join) args.push_back("--join");
  // The first start makes the cluster; a restart finds its Raft state (and
  // one whose directory was emptied waits for the leader).
  args.push_back("--initial-cluster-state");
  args.push_back(!n.join && !n.started ? "new" : "existing");
  n.started = true;
  for (const auto& a : options_.extra_args) args.push_back(a);
  sys::SpawnOptions spawn;
  spawn.output_file = n.log;
  spawn.append_output = true;
  Result<sys::ChildProcess> started = sys::ChildProcess::spawn(args, spawn);
  if (!started.is_ok()) return started.status().with_context("node " + std::to_string(n.index));
  n.process = std::move(*started);
  n.stopped = false;
  return Status::ok();
}

ClientOptions LocalCluster::client_options(std::chrono::milliseconds timeout) const {
  ClientOptions o;
  o.timeout = timeout;
  o.tls = options_.client_tls;
  return o;
}

// Waits until node `n` answers status; IOError naming it (with its log's
// tail) when it exits or the start timeout passes.
Status LocalCluster::wait_answers(Node& n) {
  const auto timeout = options_.start_timeout;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Client client({n.address()}, client_options(std::chrono::milliseconds(500)));
  while (std::chrono::steady_clock::now() < deadline) {
    ORDO_ASSIGN_OR_RETURN(std::optional<sys::ChildExit> ended, n.process.try_wait());
    if (ended.has_value()) {
      return Status::io_error("node " + std::to_string(n.index) + " exited at start (" +
                                  ended->how_it_ended() + "): " + log_tail(n.log),
                              0);
    }
    if (client.status().ok()) return Status::ok();
    std::this_thread::sleep_for(kPoll);
  }
  return Status::io_error("node " + std::to_string(n.index) + " did not answer within " +
                              std::to_string(timeout.count()) + " ms: " + log_tail(n.log),
                          ETIMEDOUT);
}

Result<std::unique_ptr<LocalCluster::Node>> LocalCluster::make_node(int index) const {
  const LocalClusterOptions& o = options_;
  auto n = std::make_unique<Node>();
  n->index = index;
  if (o.base_port != 0) {
    n->port = static_cast<uint16_t>(o.base_port + 10 * (index - 1));
  } else {
    Result<uint16_t> port = sys::pick_free_port_run(sys::kNodePortCount);
    if (!port.is_ok()) return port.status().with_context("node " + std::to_string(index));
    n->port = *port;
  }
  n->dir = o.root + "/n" + std::to_string(index);
  n->log = n->dir + ".log";
  return n;
}

Status LocalCluster::start() {
  if (options_.nodes < 1) return Status::invalid_argument("LocalCluster needs at least one node");
  if (!nodes_.empty()) return Status::invalid_argument("LocalCluster already started");
  std::error_code ec;
  std::filesystem::create_directories(options_.root, ec);
  if (ec) return Status::io_error("cannot make " + options_.root + ": " + ec.message(), ec.value());
  for (int i = 1; i <= options_.nodes; ++i) {
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<Node> n, make_node(i));
    nodes_.push_back(std::move(n));
  }
  for (auto& n : nodes_) ORDO_RETURN_IF_ERROR(spawn(*n));
  for (auto& n : nodes_) ORDO_RETURN_IF_ERROR(wait_answers(*n));
  if (leader(options_.start_timeout) == 0) {
    return Status::io_error(
        "no leader within " + std::to_string(options_.start_timeout.count()) + " ms", ETIMEDOUT);
  }
  return Status::ok();
}

int LocalCluster::leader(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    for (auto& n : nodes_) {
      if (!n->process.running() || n->stopped) continue;
      Client client({n->address()}, client_options(std::chrono::milliseconds(300)));
      Reply r = client.status();
      if (r.ok() && status_field(r.value, "role") == "leader") return n->index;
    }
    std::this_thread::sleep_for(kPoll);
  } while (std::chrono::steady_clock::now() < deadline);
  return 0;
}

Status LocalCluster::kill(int i) {
  ORDO_ASSIGN_OR_RETURN(Node * n, node(i, true));
  n->stopped = false;
  return n->process.kill().status();
}

Status LocalCluster::restart(int i) {
  ORDO_ASSIGN_OR_RETURN(Node * n, node(i, false));
  if (n->process.running())
    return Status::invalid_argument("node " + std::to_string(i) + " is running");
  ORDO_RETURN_IF_ERROR(spawn(*n));
  return wait_answers(*n);
}

Status LocalCluster::stop(int i) {
  ORDO_ASSIGN_OR_RETURN(Node * n, node(i, true));
  ORDO_RETURN_IF_ERROR(n->process.send_signal(SIGSTOP));
  n->stopped = true;
  return Status::ok();
}

Status LocalCluster::resume(int i) {
  ORDO_ASSIGN_OR_RETURN(Node * n, node(i, true));
  ORDO_RETURN_IF_ERROR(n->process.send_signal(SIGCONT));
  n->stopped = false;
  return Status::ok();
}

Result<std::optional<sys::ChildExit>> LocalCluster::exited(int i) {
  ORDO_ASSIGN_OR_RETURN(Node * n, node(i, false));
  if (!n->process.running()) return std::optional<sys::ChildExit>();
  ORDO_ASSIGN_OR_RETURN(std::optional<sys::ChildExit> ended, n->process.try_wait());
  if (ended.has_value()) n->stopped = false;
  return ended;
}

Result<sys::ChildExit> LocalCluster::terminate(int i, std::chrono::milliseconds timeout) {
  ORDO_RETURN_IF_ERROR(resume(i));
  Node* n = nodes_[static_cast<size_t>(i - 1)].get();
  ORDO_RETURN_IF_ERROR(n->process.send_signal(SIGTERM));
  Result<sys::ChildExit> ended = n->process.wait_for(timeout);
  if (ended.is_ok()) return ended;
  (void)n->process.kill();
  return Status::io_error("node " + std::to_string(i) + " did not exit within " +
                              std::to_string(timeout.count()) +
                              " ms of SIGTERM: " + log_tail(n->log),
                          ETIMEDOUT);
}

Result<int> LocalCluster::add_node() {
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<Node> added, make_node(size() + 1));
  added->join = true;
  std::vector<std::string> others = addresses();
  nodes_.push_back(std::move(added));
  Node& n = *nodes_.back();
  ORDO_RETURN_IF_ERROR(spawn(n));
  ORDO_RETURN_IF_ERROR(wait_answers(n));
  Client client(others, client_options(options_.start_timeout * 3));
  Reply r = client.add_member(static_cast<uint64_t>(n.index), n.address());
  if (!r.ok()) {
    return Status::io_error("adding node " + std::to_string(n.index) + ": " +
                                reply_code_name(r.code) + ": " + r.message,
                            0);
  }
  return n.index;
}

Status LocalCluster::remove_node(int i) {
  ORDO_ASSIGN_OR_RETURN(Node * removed, node(i, false));
  std::vector<std::string> others;
  for (const auto& n : nodes_) {
    if (n->index != i && n->process.running()) others.push_back(n->address());
  }
  Client client(others, client_options(options_.start_timeout));
  Reply r = client.remove_member(static_cast<uint64_t>(i));
  if (!r.ok()) {
    return Status::io_error(
        "removing node " + std::to_string(i) + ": " + reply_code_name(r.code) + ": " + r.message,
        0);
  }
  if (removed->process.running()) return kill(i);
  return Status::ok();
}

}  // namespace ordo::node
