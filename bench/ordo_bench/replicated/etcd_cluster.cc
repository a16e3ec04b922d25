#include "etcd_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "etcd_client.h"
#include "local_ports.h"

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

EtcdCluster::~EtcdCluster() {
  for (Member& m : members_) {
    if (m.pid > 0) {
      ::kill(m.pid, SIGKILL);
      ::waitpid(m.pid, nullptr, 0);
      m.pid = 0;
    }
  }
}

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

pid_t EtcdCluster::pid(int i) const { return members_.at(static_cast<size_t>(i - 1)).pid; }

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
  const std::string client_url = "http://127.0.0.1:" + std::to_string(m.client_port);
  const std::string peer_url = "http://127.0.0.1:" + std::to_string(m.peer_port);
  const std::string dir = options_.root + "/" + m.name;
  const std::string log = dir + ".log";
  std::vector<std::string> args = {options_.binary,
                                   "--name", m.name,
                                   "--data-dir", dir,
                                   "--listen-client-urls", client_url,
                                   "--advertise-client-urls", client_url,
                                   "--listen-peer-urls", peer_url,
                                   "--initial-advertise-peer-urls", peer_url,
                                   "--initial-cluster", initial_cluster,
                                   "--initial-cluster-state", "new",
                                   "--initial-cluster-token", token,
                                   "--logger", "zap",
                                   "--log-outputs", "stderr"};
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) return Status::io_error("cannot create " + log, errno);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(log_fd);
    return Status::io_error("fork for etcd member " + m.name, err);
  }
  if (pid == 0) {
    // The member dies with the process that started it, even on its SIGKILL.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(log_fd);
  m.pid = pid;
  return Status::ok();
}

Status EtcdCluster::start() {
  if (options_.root.empty()) return Status::invalid_argument("etcd cluster: no root directory");
  if (options_.members < 1) return Status::invalid_argument("etcd cluster: members must be >= 1");
  if (::access(options_.binary.c_str(), X_OK) != 0) {
    return Status::invalid_argument("etcd binary not found or not executable: " +
                                    options_.binary + " (Debian package etcd-server)");
  }
  if (!members_.empty()) return Status::invalid_argument("etcd cluster: already started");
  std::error_code ec;
  fs::create_directories(options_.root, ec);
  if (ec) return Status::io_error("cannot create " + options_.root, ec.value());
  ORDO_ASSIGN_OR_RETURN(const std::vector<uint16_t> ports,
                        pick_free_ports(2 * options_.members));
  std::string initial_cluster;
  for (int i = 0; i < options_.members; ++i) {
    Member m;
    m.name = "m" + std::to_string(i + 1);
    m.client_port = ports[static_cast<size_t>(2 * i)];
    m.peer_port = ports[static_cast<size_t>(2 * i + 1)];
    initial_cluster += (i == 0 ? "" : ",") + m.name + "=http://127.0.0.1:" +
                       std::to_string(m.peer_port);
    members_.push_back(m);
  }
  std::random_device entropy;
  const std::string token = "ordo-bench-" + std::to_string(::getpid()) + "-" +
                            std::to_string(entropy());
  for (size_t i = 0; i < members_.size(); ++i) {
    ORDO_RETURN_IF_ERROR(spawn(i, initial_cluster, token));
  }
  // Ready: every member answers and all name the same leader.
  const auto deadline = Clock::now() + options_.start_timeout;
  for (;;) {
    uint64_t leader = 0;
    bool agreed = true;
    for (size_t i = 0; i < members_.size() && agreed; ++i) {
      int status = 0;
      if (::waitpid(members_[i].pid, &status, WNOHANG) == members_[i].pid) {
        members_[i].pid = 0;
        return Status::io_error("etcd member " + members_[i].name + " exited at start; log:\n" +
                                    log_tail(i),
                                0);
      }
      EtcdClient client(client_address(static_cast<int>(i + 1)), kStatusTimeout);
      Result<EtcdMemberStatus> s = client.status();
      agreed = s.is_ok() && s->leader != 0 && (leader == 0 || leader == s->leader);
      if (agreed) leader = s->leader;
    }
    if (agreed) return Status::ok();
    if (Clock::now() > deadline) {
      return Status::io_error("etcd cluster not ready within " +
                                  std::to_string(options_.start_timeout.count()) +
                                  " ms; log of " + members_[0].name + ":\n" + log_tail(0),
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
      EtcdClient client(client_address(i), kStatusTimeout);
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
  if (m.pid == 0) return Status::invalid_argument("etcd member " + m.name + " is not running");
  if (::kill(m.pid, SIGKILL) != 0) return Status::io_error("kill " + m.name, errno);
  ::waitpid(m.pid, nullptr, 0);
  m.pid = 0;
  return Status::ok();
}

}  // namespace ordo::bench
