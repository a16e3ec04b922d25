#include "etcd_cluster.h"

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "etcd_client.h"
#include "ordo/sys/ports.h"

namespace ordo::bench {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr milliseconds kPoll{50};
constexpr milliseconds kStatusTimeout{500};
constexpr size_t kLogTailBytes = 1500;

}  // namespace

EtcdCluster::EtcdCluster(EtcdClusterOptions options) : options_(std::move(options)) {}

// Each member's ChildProcess SIGKILLs and reaps it.
EtcdCluster::~EtcdCluster() = default;

std::string EtcdCluster::client_address(int i) const {
  return "127.0.0.1:" + std::to_string(members_.at(static_cast<size_t>(i - 1)).client_port);
}

std::vector<std::string> EtcdCluster::client_addresses() const {
  std::vector<std::string> out;
  for (int i = 1; i <= size(); ++i) out.push_back(client_address(i));
  return out;
}

std::string EtcdCluster::data_dir(int i) const {
  return options_.root + "/" + members_.at(static_cast<size_t>(i - 1)).name;
}

pid_t EtcdCluster::pid(int i) const {
  return members_.at(static_cast<size_t>(i - 1)).process.pid();
}

std::string EtcdCluster::log_tail(size_t index) const {
  std::ifstream in(options_.root + "/" + members_[index].name + ".log");
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  return s.size() <= kLogTailBytes ? s : "..." + s.substr(s.size() - kLogTailBytes);
}

Status EtcdCluster::spawn(size_t index, const std::string& initial_cluster,
                          const std::string& token) {
  Member& m = members_[index];
  const std::string scheme = options_.tls ? "https://" : "http://";
  const std::string client_url = scheme + "127.0.0.1:" + std::to_string(m.client_port);
  const std::string peer_url = scheme + "127.0.0.1:" + std::to_string(m.peer_port);
  const std::string dir = options_.root + "/" + m.name;
  std::vector<std::string> args = {options_.binary,
                                   "--name",
                                   m.name,
                                   "--data-dir",
                                   dir,
                                   "--listen-client-urls",
                                   client_url,
                                   "--advertise-client-urls",
                                   client_url,
                                   "--listen-peer-urls",
                                   peer_url,
                                   "--initial-advertise-peer-urls",
                                   peer_url,
                                   "--initial-cluster",
                                   initial_cluster,
                                   "--initial-cluster-state",
                                   "new",
                                   "--initial-cluster-token",
                                   token,
                                   "--logger",
                                   "zap",
                                   "--log-outputs",
                                   "stderr"};
  if (options_.tls) {
    const TlsFiles& t = *options_.tls;
    args.insert(args.end(), {"--cert-file", t.server_cert, "--key-file", t.server_key,
                             "--trusted-ca-file", t.ca_cert, "--client-cert-auth",
                             "--peer-cert-file", t.server_cert, "--peer-key-file", t.server_key,
                             "--peer-trusted-ca-file", t.ca_cert, "--peer-client-cert-auth"});
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  sys::SpawnOptions spawn;
  spawn.output_file = dir + ".log";
  spawn.null_stdin = true;
  // The member dies with the process that started it, even on its SIGKILL.
  spawn.die_with_parent = true;
  Result<sys::ChildProcess> started = sys::ChildProcess::spawn(args, spawn);
  if (!started.is_ok()) return started.status().with_context("etcd member " + m.name);
  m.process = std::move(*started);
  return Status::ok();
}

Status EtcdCluster::start() {
  if (options_.root.empty()) return Status::invalid_argument("etcd cluster: no root directory");
  if (options_.members < 1) return Status::invalid_argument("etcd cluster: members must be >= 1");
  if (::access(options_.binary.c_str(), X_OK) != 0) {
    return Status::invalid_argument("etcd binary not found or not executable: " + options_.binary +
                                    " (Debian package etcd-server)");
  }
  if (!members_.empty()) return Status::invalid_argument("etcd cluster: already started");
  if (options_.tls) {
    sys::TlsConfig config;
    config.ca_file = options_.tls->ca_cert;
    config.cert_file = options_.tls->client_cert;
    config.key_file = options_.tls->client_key;
    ORDO_ASSIGN_OR_RETURN(client_tls_, sys::TlsContext::create(config, sys::TlsRole::kClient));
  }
  std::error_code ec;
  fs::create_directories(options_.root, ec);
  if (ec) return Status::io_error("cannot create " + options_.root, ec.value());
  // Two more than needed, so that 2379 and 2380 (a system etcd's) can be left out.
  ORDO_ASSIGN_OR_RETURN(std::vector<uint16_t> ports,
                        sys::pick_free_ports(2 * options_.members + 2));
  std::erase_if(ports, [](uint16_t p) { return p == 2379 || p == 2380; });
  std::string initial_cluster;
  for (int i = 0; i < options_.members; ++i) {
    Member m;
    m.name = "m" + std::to_string(i + 1);
    m.client_port = ports[static_cast<size_t>(2 * i)];
    m.peer_port = ports[static_cast<size_t>(2 * i + 1)];
    initial_cluster += (i == 0 ? "" : ",") + m.name + (options_.tls ? "=https" : "=http") +
                       "://127.0.0.1:" + std::to_string(m.peer_port);
    members_.push_back(std::move(m));
  }
  std::random_device entropy;
  const std::string token =
      "ordo-bench-" + std::to_string(::getpid()) + "-" + std::to_string(entropy());
  for (size_t i = 0; i < members_.size(); ++i) {
    ORDO_RETURN_IF_ERROR(spawn(i, initial_cluster, token));
  }
  // Ready: every member answers and all name the same leader.
  const auto deadline = Clock::now() + options_.start_timeout;
  for (;;) {
    uint64_t leader = 0;
    bool agreed = true;
    for (size_t i = 0; i < members_.size() && agreed; ++i) {
      ORDO_ASSIGN_OR_RETURN(std::optional<sys::ChildExit> ended, members_[i].process.try_wait());
      if (ended.has_value()) {
        return Status::io_error("etcd member " + members_[i].name + " exited at start (" +
                                    ended->how_it_ended() + "); log:\n" + log_tail(i),
                                0);
      }
      EtcdClient client(client_address(static_cast<int>(i + 1)), kStatusTimeout, client_tls_);
      Result<EtcdMemberStatus> s = client.status();
      agreed = s.is_ok() && s->leader != 0 && (leader == 0 || leader == s->leader);
      if (agreed) leader = s->leader;
    }
    if (agreed) return Status::ok();
    if (Clock::now() > deadline) {
      return Status::io_error("etcd cluster not ready within " +
                                  std::to_string(options_.start_timeout.count()) + " ms; log of " +
                                  members_[0].name + ":\n" + log_tail(0),
                              ETIMEDOUT);
    }
    std::this_thread::sleep_for(kPoll);
  }
}

int EtcdCluster::leader(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    for (int i = 1; i <= size(); ++i) {
      if (pid(i) == 0) continue;
      EtcdClient client(client_address(i), kStatusTimeout, client_tls_);
      Result<EtcdMemberStatus> s = client.status();
      if (s.is_ok() && s->is_leader()) return i;
    }
    if (Clock::now() > deadline) return 0;
    std::this_thread::sleep_for(kPoll);
  }
}

Status EtcdCluster::kill(int i) {
  if (i < 1 || i > size()) {
    return Status::invalid_argument("etcd member " + std::to_string(i) + " of " +
                                    std::to_string(size()));
  }
  Member& m = members_[static_cast<size_t>(i - 1)];
  if (!m.process.running()) {
    return Status::invalid_argument("etcd member " + m.name + " is not running");
  }
  return m.process.kill().status().with_context("kill " + m.name);
}

}  // namespace ordo::bench
