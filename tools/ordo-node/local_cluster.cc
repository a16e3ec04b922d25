#include "local_cluster.h"

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "client.h"
#include "socket.h"

namespace ordo::node {

struct LocalCluster::Node {
  int index = 0;  // 1-based, also the member id
  uint16_t port = 0;
  std::string dir;
  pid_t pid = 0;
  bool stopped = false;
  bool join = false;
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

// A port P with P, P+1 and P+2 all free, not in `taken`.
uint16_t pick_port(const std::vector<uint16_t>& taken) {
  static std::mt19937 rng(static_cast<uint32_t>(::getpid()) * 2654435761u ^
                          static_cast<uint32_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  for (int attempt = 0; attempt < 1000; ++attempt) {
    uint16_t p = static_cast<uint16_t>(15000 + 10 * (rng() % 1775));  // below the ephemeral range
    bool clash = false;
    for (uint16_t t : taken) clash |= (p + 2 >= t && p <= t + 2);
    if (!clash && port_free(p) && port_free(static_cast<uint16_t>(p + 1)) &&
        port_free(static_cast<uint16_t>(p + 2))) {
      return p;
    }
  }
  return 0;
}

}  // namespace

LocalCluster::LocalCluster(LocalClusterOptions options) : options_(std::move(options)) {}

LocalCluster::~LocalCluster() {
  for (Node* n : nodes_) {
    if (n->pid > 0) {
      if (n->stopped) ::kill(n->pid, SIGCONT);
      ::kill(n->pid, SIGKILL);
      int st = 0;
      ::waitpid(n->pid, &st, 0);
    }
    delete n;
  }
}

int LocalCluster::size() const { return static_cast<int>(nodes_.size()); }

std::string LocalCluster::address(int i) const {
  if (i < 1 || i > size()) return {};
  return nodes_[static_cast<size_t>(i - 1)]->address();
}

std::vector<std::string> LocalCluster::addresses() const {
  std::vector<std::string> out;
  for (const Node* n : nodes_) out.push_back(n->address());
  return out;
}

std::string LocalCluster::data_dir(int i) const {
  if (i < 1 || i > size()) return {};
  return nodes_[static_cast<size_t>(i - 1)]->dir;
}

pid_t LocalCluster::pid(int i) const {
  if (i < 1 || i > size()) return 0;
  return nodes_[static_cast<size_t>(i - 1)]->pid;
}

// Spawns node `n` with stdout and stderr appended to root/nK.log.
static Status spawn(const LocalClusterOptions& o, LocalCluster& cluster, int index, bool join,
                    uint16_t port, const std::string& dir, pid_t& pid_out) {
  std::vector<std::string> args = {o.binary, "--id", std::to_string(index), "--data", dir,
                                   "--listen", "127.0.0.1:" + std::to_string(port)};
  std::string peers;
  for (int i = 1; i <= cluster.size(); ++i) {
    if (!peers.empty()) peers += ",";
    peers += std::to_string(i) + "=" + cluster.address(i);
  }
  args.push_back("--peers");
  args.push_back(peers);
  if (join) args.push_back("--join");
  for (const auto& a : o.extra_args) args.push_back(a);
  std::string log = o.root + "/n" + std::to_string(index) + ".log";
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return Status::io_error("fork for node " + std::to_string(index), errno);
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  pid_out = pid;
  return Status::ok();
}

// Waits until node `n` answers status; IOError naming it (with its log's
// tail) when it exits or the timeout passes.
static Status wait_answers(const LocalClusterOptions& o, int index, const std::string& address,
                           pid_t& pid, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  Client client({address}, std::chrono::milliseconds(500));
  std::string log = o.root + "/n" + std::to_string(index) + ".log";
  while (std::chrono::steady_clock::now() < deadline) {
    int st = 0;
    if (::waitpid(pid, &st, WNOHANG) == pid) {
      pid = 0;
      return Status::io_error("node " + std::to_string(index) + " exited at start: " + log_tail(log), 0);
    }
    if (client.status().ok()) return Status::ok();
    std::this_thread::sleep_for(kPoll);
  }
  return Status::io_error("node " + std::to_string(index) + " did not answer within " +
                              std::to_string(timeout.count()) + " ms: " + log_tail(log),
                          ETIMEDOUT);
}

Status LocalCluster::start() {
  if (options_.nodes < 1) return Status::invalid_argument("LocalCluster needs at least one node");
  if (!nodes_.empty()) return Status::invalid_argument("LocalCluster already started");
  std::error_code ec;
  std::filesystem::create_directories(options_.root, ec);
  if (ec) return Status::io_error("cannot make " + options_.root + ": " + ec.message(), ec.value());
  std::vector<uint16_t> taken;
  for (int i = 1; i <= options_.nodes; ++i) {
    auto* n = new Node;
    n->index = i;
    if (options_.base_port != 0) {
      n->port = static_cast<uint16_t>(options_.base_port + 10 * (i - 1));
    } else {
      n->port = pick_port(taken);
      if (n->port == 0) {
        delete n;
        return Status::io_error("no free ports for node " + std::to_string(i), 0);
      }
    }
    taken.push_back(n->port);
    n->dir = options_.root + "/n" + std::to_string(i);
    nodes_.push_back(n);
  }
  for (Node* n : nodes_) {
    ORDO_RETURN_IF_ERROR(spawn(options_, *this, n->index, false, n->port, n->dir, n->pid));
  }
  for (Node* n : nodes_) {
    ORDO_RETURN_IF_ERROR(wait_answers(options_, n->index, n->address(), n->pid, options_.start_timeout));
  }
  if (leader(options_.start_timeout) == 0) {
    return Status::io_error("no leader within " + std::to_string(options_.start_timeout.count()) + " ms", ETIMEDOUT);
  }
  return Status::ok();
}

int LocalCluster::leader(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    for (Node* n : nodes_) {
      if (n->pid <= 0 || n->stopped) continue;
      Client client({n->address()}, std::chrono::milliseconds(300));
      Reply r = client.status();
      if (r.ok() && status_field(r.value, "role") == "leader") return n->index;
    }
    std::this_thread::sleep_for(kPoll);
  } while (std::chrono::steady_clock::now() < deadline);
  return 0;
}

Status LocalCluster::kill(int i) {
  if (i < 1 || i > size()) return Status::invalid_argument("no node " + std::to_string(i));
  Node* n = nodes_[static_cast<size_t>(i - 1)];
  if (n->pid <= 0) return Status::invalid_argument("node " + std::to_string(i) + " is not running");
  ::kill(n->pid, SIGKILL);
  int st = 0;
  ::waitpid(n->pid, &st, 0);
  n->pid = 0;
  n->stopped = false;
  return Status::ok();
}

Status LocalCluster::restart(int i) {
  if (i < 1 || i > size()) return Status::invalid_argument("no node " + std::to_string(i));
  Node* n = nodes_[static_cast<size_t>(i - 1)];
  if (n->pid > 0) return Status::invalid_argument("node " + std::to_string(i) + " is running");
  ORDO_RETURN_IF_ERROR(spawn(options_, *this, n->index, n->join, n->port, n->dir, n->pid));
  return wait_answers(options_, n->index, n->address(), n->pid, options_.start_timeout);
}

Status LocalCluster::stop(int i) {
  if (i < 1 || i > size()) return Status::invalid_argument("no node " + std::to_string(i));
  Node* n = nodes_[static_cast<size_t>(i - 1)];
  if (n->pid <= 0) return Status::invalid_argument("node " + std::to_string(i) + " is not running");
  ::kill(n->pid, SIGSTOP);
  n->stopped = true;
  return Status::ok();
}

Status LocalCluster::resume(int i) {
  if (i < 1 || i > size()) return Status::invalid_argument("no node " + std::to_string(i));
  Node* n = nodes_[static_cast<size_t>(i - 1)];
  if (n->pid <= 0) return Status::invalid_argument("node " + std::to_string(i) + " is not running");
  ::kill(n->pid, SIGCONT);
  n->stopped = false;
  return Status::ok();
}

Result<int> LocalCluster::add_node() {
  auto* n = new Node;
  n->index = size() + 1;
  n->join = true;
  std::vector<uint16_t> taken;
  for (const Node* m : nodes_) taken.push_back(m->port);
  if (options_.base_port != 0) {
    n->port = static_cast<uint16_t>(options_.base_port + 10 * (n->index - 1));
  } else {
    n->port = pick_port(taken);
  }
  if (n->port == 0) {
    delete n;
    return Status::io_error("no free ports for a new node", 0);
  }
  n->dir = options_.root + "/n" + std::to_string(n->index);
  std::vector<std::string> others = addresses();
  nodes_.push_back(n);
  ORDO_RETURN_IF_ERROR(spawn(options_, *this, n->index, true, n->port, n->dir, n->pid));
  ORDO_RETURN_IF_ERROR(wait_answers(options_, n->index, n->address(), n->pid, options_.start_timeout));
  Client client(others, options_.start_timeout * 3);
  Reply r = client.add_member(static_cast<uint64_t>(n->index), n->address());
  if (!r.ok()) {
    return Status::io_error("adding node " + std::to_string(n->index) + ": " +
                                reply_code_name(r.code) + ": " + r.message,
                            0);
  }
  return n->index;
}

Status LocalCluster::remove_node(int i) {
  if (i < 1 || i > size()) return Status::invalid_argument("no node " + std::to_string(i));
  std::vector<std::string> others;
  for (const Node* n : nodes_) {
    if (n->index != i && n->pid > 0) others.push_back(n->address());
  }
  Client client(others, options_.start_timeout);
  Reply r = client.remove_member(static_cast<uint64_t>(i));
  if (!r.ok()) {
    return Status::io_error("removing node " + std::to_string(i) + ": " + reply_code_name(r.code) +
                                ": " + r.message,
                            0);
  }
  if (nodes_[static_cast<size_t>(i - 1)]->pid > 0) return kill(i);
  return Status::ok();
}

}  // namespace ordo::node
