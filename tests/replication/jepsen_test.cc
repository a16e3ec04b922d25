// A 3-node ordo-node cluster under a seeded schedule of faults while
// clients put unique values and read them back linearizably on a small set
// of keys (tests/util/linearizability.h records and checks the history).
// The faults (a Fault each, inject then heal): kill -9 of the leader or of
// a follower and its restart, SIGSTOP / SIGCONT of either, partitions
// (one node isolated, or one link cut) through forwarders between the nodes
// (link_proxy.h, the nodes run under tests/util/dial_via_preload.cc), and
// garbage bytes sent to a client port. Then every fault is healed, the
// nodes converge on one applied index, and the test checks: no acknowledged
// write lost (final linearizable reads; every node's local read agrees),
// every key's history linearizable, `ordo dump --all` of the three files
// identical, and no node ended on its own (each exit one we caused; SIGTERM
// at the end exits 0).
//
// The fault run's nodes use TLS on their client and snapshot ports and a
// cluster secret on the Raft port, as on a network (ORDO_JEPSEN_PLAINTEXT=1:
// neither). Short form in the default run (about 25 s of faults);
// ORDO_LONG_TESTS=1 runs minutes of them with more keys, clients and
// overlapping faults.
// The seed is printed; ORDO_TEST_SEED replays a schedule (the timing of the
// processes still differs from run to run).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client.h"
#include "linearizability.h"
#include "link_proxy.h"
#include "local_cluster.h"
#include "ordo/sys/address.h"
#include "ordo/sys/node_ports.h"
#include "ordo/sys/socket.h"
#include "protocol.h"
#include "tls_test_certs.h"
#include "tools_test_util.h"

namespace ordo::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using history::HistoryRecorder;
using history::Operation;
using history::OpKind;
using history::Outcome;
using node::Client;
using node::LocalCluster;
using node::Reply;

constexpr std::string_view kTree = "jepsen";

struct Plan {
  std::chrono::seconds faults_for;
  int clients;
  int keys;
  bool overlap;  // may inject a second fault before healing the first
};

Plan plan() {
  const char* long_tests = std::getenv("ORDO_LONG_TESTS");
  if (long_tests != nullptr && std::string(long_tests) == "1") return {240s, 10, 200, true};
  return {25s, 8, 48, false};
}

uint64_t seed() {
  const char* env = std::getenv("ORDO_TEST_SEED");
  uint64_t s = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
  std::printf("seed %llu (set ORDO_TEST_SEED to replay the schedule)\n",
              static_cast<unsigned long long>(s));
  return s;
}

std::string key_name(int k) { return "k" + std::to_string(k); }

// The client TLS context of the test's requests to its nodes (null:
// plaintext), set by a test that starts its nodes with TLS.
std::shared_ptr<const sys::TlsContext>& client_tls() {
  static std::shared_ptr<const sys::TlsContext> tls;
  return tls;
}

node::ClientOptions with(std::chrono::milliseconds timeout) {
  node::ClientOptions o;
  o.timeout = timeout;
  o.tls = client_tls();
  return o;
}

// What the faults share: the cluster, the forwarders, the nodes a fault holds
// (killed or stopped: no other fault takes them), and a log of what happened.
struct World {
  LocalCluster& cluster;
  LinkProxies& net;
  HistoryRecorder& history;  // for timestamps on the log
  std::set<int> held;
  std::vector<std::string> events;

  void log(const std::string& what) {
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%8.3f s ", static_cast<double>(history.now_ns()) / 1e9);
    events.push_back(stamp + what);
    std::printf("nemesis %s%s\n", stamp, what.c_str());
    std::fflush(stdout);
  }
  // The leader (when one answers within 2 s and no fault holds it) or 0.
  int free_leader() {
    const int l = cluster.leader(2s);
    return held.count(l) ? 0 : l;
  }
  // A node no fault holds, other than `not_this`, at random; 0 when none.
  int free_node(std::mt19937_64& rng, int not_this = 0) {
    std::vector<int> free;
    for (int i = 1; i <= cluster.size(); ++i) {
      if (i != not_this && held.count(i) == 0) free.push_back(i);
    }
    return free.empty() ? 0 : free[rng() % free.size()];
  }
};

// One kind of fault. inject() starts it (on targets it picks with `rng`)
// and says what it did; heal() undoes it. New kinds of faults are new
// subclasses added to the nemesis's list.
class Fault {
 public:
  virtual ~Fault() = default;
  // What it did ("kill -9 node 2 (leader)"); "" when it found no target.
  virtual Result<std::string> inject(std::mt19937_64& rng) = 0;
  // Undoes it; nothing when it is not in effect.
  virtual Status heal() = 0;
};

// A fault on one node, the leader or a follower: kill -9 (heal restarts it
// on its files) or SIGSTOP (heal sends SIGCONT).
class NodeFault : public Fault {
 public:
  using Action = Status (LocalCluster::*)(int);
  static std::unique_ptr<NodeFault> kill(World& w, bool leader) {
    return std::make_unique<NodeFault>(w, leader, "kill -9", &LocalCluster::kill, "restart",
                                       &LocalCluster::restart);
  }
  static std::unique_ptr<NodeFault> pause(World& w, bool leader) {
    return std::make_unique<NodeFault>(w, leader, "SIGSTOP", &LocalCluster::stop, "SIGCONT",
                                       &LocalCluster::resume);
  }
  NodeFault(World& w, bool leader, const char* inject_name, Action inject_action,
            const char* heal_name, Action heal_action)
      : w_(w),
        leader_(leader),
        inject_name_(inject_name),
        inject_action_(inject_action),
        heal_name_(heal_name),
        heal_action_(heal_action) {}
  Result<std::string> inject(std::mt19937_64& rng) override {
    const int l = w_.free_leader();
    node_ = leader_ ? l : w_.free_node(rng, l);
    if (node_ == 0) return std::string();
    ORDO_RETURN_IF_ERROR((w_.cluster.*inject_action_)(node_));
    w_.held.insert(node_);
    return std::string(inject_name_) + " node " + std::to_string(node_) +
           (node_ == l ? " (leader)" : " (follower)");
  }
  Status heal() override {
    if (node_ == 0) return Status::ok();
    const int n = std::exchange(node_, 0);
    w_.held.erase(n);
    w_.log(std::string(heal_name_) + " node " + std::to_string(n));
    return (w_.cluster.*heal_action_)(n);
  }

 private:
  World& w_;
  bool leader_;
  const char* inject_name_;
  Action inject_action_;
  const char* heal_name_;
  Action heal_action_;
  int node_ = 0;
};

// A node cut off from both others (often the leader), or one link cut with
// the third node still talking to both ends.
class Partition : public Fault {
 public:
  explicit Partition(World& w) : w_(w) {}
  Result<std::string> inject(std::mt19937_64& rng) override {
    const int n = w_.cluster.size();
    int a = rng() % 2 ? w_.cluster.leader(2s) : 0;
    if (a == 0) a = 1 + static_cast<int>(rng() % static_cast<uint64_t>(n));
    std::string what;
    if (rng() % 3 != 0) {
      for (int b = 1; b <= n; ++b) {
        if (b != a) cuts_.emplace_back(a, b);
      }
      what = "partition: node " + std::to_string(a) + " | the others";
    } else {
      int b = a % n + 1;
      cuts_.emplace_back(a, b);
      what = "partition: link " + std::to_string(a) + " - " + std::to_string(b) + " cut";
    }
    for (auto [x, y] : cuts_) w_.net.cut(x, y);
    return what;
  }
  Status heal() override {
    if (cuts_.empty()) return Status::ok();
    for (auto [x, y] : cuts_) w_.net.heal(x, y);
    cuts_.clear();
    w_.log("partition healed");
    return Status::ok();
  }

 private:
  World& w_;
  std::vector<std::pair<int, int>> cuts_;
};

// Bytes that are no request, sent to a node's client port: noise, a frame
// length over the limit, a frame of noise, a request cut short. The node
// must answer or close, and go on serving.
class ClientGarbage : public Fault {
 public:
  explicit ClientGarbage(World& w) : w_(w) {}
  Result<std::string> inject(std::mt19937_64& rng) override {
    const int n = w_.free_node(rng);
    if (n == 0) return std::string();
    std::string bytes;
    std::string kind;
    switch (rng() % 4) {
      case 0:
        kind = "noise";
        for (size_t i = 0, len = 1 + rng() % 300; i < len; ++i) bytes += static_cast<char>(rng());
        break;
      case 1:
        kind = "a frame length over the limit";
        bytes = std::string("\xff\xff\xff\x7f", 4) + "xyz";
        break;
      case 2: {
        kind = "a frame of noise";
        std::string body;
        for (size_t i = 0, len = rng() % 200; i < len; ++i) body += static_cast<char>(rng());
        bytes = node::frame(body);
        break;
      }
      default: {
        kind = "a put request cut short";
        node::Request r;
        r.op = node::Op::kPut;
        r.tree = std::string(kTree);
        r.key = "garbage";
        r.value = std::string(100, 'g');
        std::string body = node::encode_request(r);
        body.resize(rng() % body.size());
        bytes = node::frame(body);
        break;
      }
    }
    Result<int> fd = sys::connect_to(w_.cluster.address(n), sys::deadline_in(1000ms));
    if (!fd.is_ok()) return "garbage to node " + std::to_string(n) + ": no connection";
    (void)sys::send_all(*fd, bytes, sys::deadline_in(1000ms));
    char reply[256];
    (void)sys::recv_some(*fd, reply, sizeof reply, sys::deadline_in(300ms));
    ::close(*fd);
    return "garbage to node " + std::to_string(n) + "'s client port: " + kind;
  }
  Status heal() override { return Status::ok(); }

 private:
  World& w_;
};

// Clients: each picks a key and puts a value of its own or reads the key
// linearizably, recording every operation.
class Clients {
 public:
  Clients(std::vector<std::string> nodes, HistoryRecorder& history, int count, int keys,
          uint64_t seed)
      : nodes_(std::move(nodes)), history_(history), keys_(keys) {
    for (int c = 1; c <= count; ++c) {
      threads_.emplace_back([this, c, seed] { run(c, seed * 1000 + static_cast<uint64_t>(c)); });
    }
  }
  ~Clients() { stop(); }
  void stop() {
    stop_ = true;
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  void run(int c, uint64_t seed) {
    Client client(nodes_, with(2000ms));
    std::mt19937_64 rng(seed);
    for (uint64_t n = 0; !stop_; ++n) {
      Operation op;
      op.client = c;
      op.key = key_name(static_cast<int>(rng() % static_cast<uint64_t>(keys_)));
      if (rng() % 2 == 0) {
        op.kind = OpKind::kPut;
        op.value = "c" + std::to_string(c) + "-" + std::to_string(n);
        const size_t h = history_.invoke(op);
        Reply r = client.put(kTree, op.key, *op.value);
        history_.complete(h, outcome_of(r.code));
      } else {
        op.kind = OpKind::kGet;
        const size_t h = history_.invoke(op);
        Reply r = client.get(kTree, op.key, read_mode_);
        if (r.code == Reply::Code::kOk) {
          history_.complete(h, Outcome::kOk, r.value);
        } else if (r.code == Reply::Code::kNotFound) {
          history_.complete(h, Outcome::kOk, std::nullopt);
        } else {
          history_.complete(h, outcome_of(r.code));
        }
      }
      // A few hundred operations per key over the run keep the check fast.
      std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 20));
    }
  }
  static Outcome outcome_of(Reply::Code code) {
    switch (code) {
      case Reply::Code::kOk:
      case Reply::Code::kNotFound:
        return Outcome::kOk;
      case Reply::Code::kFailed:
      case Reply::Code::kCompareFailed:
        return Outcome::kFailed;
      case Reply::Code::kUnknown:
        return Outcome::kUnknown;
    }
    return Outcome::kUnknown;
  }

  // ORDO_JEPSEN_LOCAL_READS=1 reads each node's own state instead: stale
  // reads then, which the check must flag (a check of the test itself).
  static replica::ReadMode read_mode() {
    const char* env = std::getenv("ORDO_JEPSEN_LOCAL_READS");
    return env != nullptr && std::string(env) == "1" ? replica::ReadMode::kLocal
                                                     : replica::ReadMode::kLinearizable;
  }

  std::vector<std::string> nodes_;
  HistoryRecorder& history_;
  const replica::ReadMode read_mode_ = read_mode();
  int keys_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// The value of the status line "name: value" of `address`, or 0.
uint64_t status_number(const std::string& address, const std::string& name) {
  Client c({address}, with(2000ms));
  Reply r = c.status();
  if (!r.ok()) return 0;
  const std::string prefix = name + ": ";
  size_t at = r.value.find(prefix);
  if (at == std::string::npos) return 0;
  return std::strtoull(r.value.c_str() + at + prefix.size(), nullptr, 10);
}

// Every node's applied index equal (and > 0); that index, or 0 at the timeout.
uint64_t wait_converged(LocalCluster& cluster, std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    std::set<uint64_t> applied;
    for (int i = 1; i <= cluster.size(); ++i)
      applied.insert(status_number(cluster.address(i), "applied_index"));
    if (applied.size() == 1 && *applied.begin() > 0) return *applied.begin();
    std::this_thread::sleep_for(200ms);
  }
  return 0;
}

// The words before ordo-node for node i: the preload library, and its
// connects to the other nodes' ports at `offsets` (Raft and snapshot ports
// unless told) sent through the forwarders of (i, j).
std::vector<std::string> through_proxies(LinkProxies& net, int i,
                                         const std::vector<std::string>& addresses,
                                         std::vector<int> offsets = {sys::kRaftPortOffset,
                                                                     sys::kSnapshotPortOffset}) {
  std::string via;
  for (int j = 1; j <= static_cast<int>(addresses.size()); ++j) {
    if (j == i) continue;
    for (int offset : offsets) {
      Result<std::string> target = sys::shift_port(addresses[static_cast<size_t>(j - 1)], offset);
      if (!target.is_ok()) {
        ADD_FAILURE() << target.status().to_string();
        continue;
      }
      Result<std::string> proxy = net.link(i, j, *target);
      if (!proxy.is_ok()) {
        ADD_FAILURE() << proxy.status().to_string();
        continue;
      }
      if (!via.empty()) via += ",";
      via += *target + "=" + *proxy;
    }
  }
  return {"/usr/bin/env", std::string("LD_PRELOAD=") + DIAL_VIA_PRELOAD_PATH,
          "ORDO_TEST_DIAL_VIA=" + via};
}

// The options of the tests' clusters: every node's connections to the
// others through `links`.
node::LocalClusterOptions cluster_options(const std::string& root, LinkProxies& links) {
  node::LocalClusterOptions options;
  options.binary = ORDO_NODE_BINARY;
  options.root = root;
  options.nodes = 3;
  options.extra_args = {"--snapshot-threshold",  "1024", "--snapshot-trailing",    "128",
                        "--election-timeout-ms", "600",  "--heartbeat-timeout-ms", "60",
                        "--request-timeout-ms",  "1500"};
  options.start_timeout = 30000ms;  // two busy cores
  options.launch_prefix = [&links](int i, const std::vector<std::string>& addresses) {
    return through_proxies(links, i, addresses);
  };
  return options;
}

// Makes `options` a cluster as a network would need it (docs/NODE.md): TLS
// on the client and snapshot ports (throwaway certificates in `dir`, only
// the node certificate allowed on the snapshot port) and a cluster secret
// on the Raft port; the test's clients present the client certificate.
Status secure(node::LocalClusterOptions& options, TempDir& dir) {
  ORDO_RETURN_IF_ERROR(ordo::test::make_test_certs(dir.path()));
  std::ofstream(dir.file("cluster.secret")) << std::string(64, 'a') << "\n";
  for (const std::string& a :
       {std::string("--tls-cert"), dir.file("node.pem"), std::string("--tls-key"),
        dir.file("node.key"), std::string("--tls-ca"), dir.file("ca.pem"),
        std::string("--tls-allowed-nodes"), std::string("node"),
        std::string("--tls-allowed-clients"), std::string("client"),
        std::string("--cluster-secret-file"), dir.file("cluster.secret")}) {
    options.extra_args.push_back(a);
  }
  sys::TlsConfig config;
  config.cert_file = dir.file("client.pem");
  config.key_file = dir.file("client.key");
  config.ca_file = dir.file("ca.pem");
  ORDO_ASSIGN_OR_RETURN(std::shared_ptr<sys::TlsContext> tls,
                        sys::TlsContext::create(config, sys::TlsRole::kClient));
  client_tls() = tls;
  options.client_tls = tls;
  return Status::ok();
}

// Polls `done` every 100 ms until it holds or `timeout` passed.
template <typename F>
bool eventually_true(F done, std::chrono::seconds timeout = 20s) {
  for (auto until = Clock::now() + timeout; Clock::now() < until;) {
    if (done()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return done();
}

std::string role_of(const std::string& address) {
  Client c({address}, with(1000ms));
  Reply r = c.status();
  if (!r.ok()) return "";
  size_t at = r.value.find("role: ");
  if (at == std::string::npos) return "";
  return r.value.substr(at + 6, r.value.find('\n', at) - at - 6);
}

// The partition itself: a leader cut off from both others loses its
// majority; they elect one of their own, and it commits no write of its
// own until healed; then all converge.
TEST(ReplicationJepsenTest, APartitionedLeaderIsReplaced) {
  TempDir dir;
  auto net = LinkProxies::start();
  ASSERT_TRUE(net.is_ok()) << net.status().to_string();
  LinkProxies& links = **net;
  LocalCluster cluster(cluster_options(dir.path(), links));
  ASSERT_TRUE(cluster.start().ok());
  const int old_leader = cluster.leader(10s);
  ASSERT_GT(old_leader, 0);
  // Each node dialed the others through the forwarders.
  EXPECT_GE(links.connections(), 2u);

  for (int b = 1; b <= 3; ++b) {
    if (b != old_leader) links.cut(old_leader, b);
  }
  int new_leader = 0;
  const auto deadline = Clock::now() + 20s;
  while (new_leader == 0 && Clock::now() < deadline) {
    for (int b = 1; b <= 3; ++b) {
      if (b != old_leader && role_of(cluster.address(b)) == "leader") new_leader = b;
    }
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_GT(new_leader, 0) << "the majority side elected no leader";
  Client majority({cluster.address(new_leader)}, with(5000ms));
  Reply put = majority.put(kTree, "during", "the partition");
  EXPECT_TRUE(put.ok()) << put.message;
  // The old leader cannot commit (it stepped down, or its write times out).
  Client minority({cluster.address(old_leader)}, with(3000ms));
  minority.connect_to(cluster.address(old_leader));
  Reply stale = minority.get(kTree, "during", replica::ReadMode::kLocal);
  EXPECT_EQ(stale.code, Reply::Code::kNotFound)
      << "the cut-off node has the write: " << stale.value;
  EXPECT_GT(links.refused(), 0u) << "no connection was refused while cut";

  links.heal_all();
  EXPECT_GT(wait_converged(cluster, 30s), 0u);
  Client c({cluster.address(old_leader)}, with(5000ms));
  c.connect_to(cluster.address(old_leader));
  Reply healed = c.get(kTree, "during", replica::ReadMode::kLocal);
  EXPECT_TRUE(healed.ok() && healed.value == "the partition") << healed.message;
}

// A follower that restarts behind the leader's log needs a snapshot copy,
// and every fetch of it fails at first (the snapshot ports are cut off from
// it; Raft is not). It must not stay behind for good: it retries with
// backoff, says so in status, and meanwhile starts no election, wins none
// (the leader is killed while it waits: the other follower takes over) and
// serves no stale read. Once the ports are reachable again it catches up
// without a restart of its process.
TEST(ReplicationJepsenTest, AFollowerWhoseSnapshotFetchFailsCatchesUpAndNeverLeads) {
  TempDir dir;
  auto net = LinkProxies::start();
  ASSERT_TRUE(net.is_ok()) << net.status().to_string();
  LinkProxies& links = **net;
  node::LocalClusterOptions options = cluster_options(dir.path(), links);
  options.extra_args = {"--snapshot-threshold",  "64",  "--snapshot-trailing",    "16",
                        "--election-timeout-ms", "600", "--heartbeat-timeout-ms", "60",
                        "--request-timeout-ms",  "1500"};
  options.launch_prefix = [&links](int i, const std::vector<std::string>& addresses) {
    return through_proxies(links, i, addresses, {sys::kSnapshotPortOffset});
  };
  LocalCluster cluster(options);
  ASSERT_TRUE(cluster.start().ok());
  const int leader = cluster.leader(10s);
  ASSERT_GT(leader, 0);
  const int behind = leader == 3 ? 2 : 3;
  const int other = 6 - leader - behind;
  ASSERT_TRUE(cluster.kill(behind).ok());
  Client writer({cluster.address(leader), cluster.address(other)}, with(5000ms));
  for (int i = 0; i < 300; ++i) {
    Reply put = writer.put(kTree, "k" + std::to_string(i), "v" + std::to_string(i));
    ASSERT_TRUE(put.ok()) << i << ": " << put.message;
  }
  ASSERT_GT(status_number(cluster.address(leader), "snapshots_taken"), 0u);
  for (int j = 1; j <= 3; ++j) {
    if (j != behind) links.cut(behind, j);
  }
  ASSERT_TRUE(cluster.restart(behind).ok());
  const pid_t pid = cluster.pid(behind);
  const std::string behind_address = cluster.address(behind);
  auto pending = [&] { return status_number(behind_address, "install_pending_index"); };
  const auto until = Clock::now() + 20s;
  while (pending() == 0 && Clock::now() < until) std::this_thread::sleep_for(100ms);
  ASSERT_GT(pending(), 0u) << "no install pending; log " << cluster.log_path(behind);
  EXPECT_TRUE(eventually_true([&] {
    return status_number(behind_address, "install_failures") >= 2;
  })) << "the fetch is not retried";
  {
    Client one({behind_address}, with(2000ms));
    Reply st = one.status();
    ASSERT_TRUE(st.ok()) << st.message;
    EXPECT_NE(st.value.find("install a snapshot copy from"), std::string::npos) << st.value;
    // A local read there would miss acknowledged writes: it is sent to the
    // leader, never answered "not found".
    Reply read = one.get(kTree, "k299", replica::ReadMode::kLocal);
    ASSERT_TRUE(read.ok()) << reply_code_name(read.code) << ": " << read.message;
    EXPECT_EQ(read.value, "v299");
    EXPECT_NE(read.node, behind_address);
  }

  // The leader dies while the follower waits: the other one takes over.
  ASSERT_TRUE(cluster.kill(leader).ok());
  bool led = false;
  int new_leader = 0;
  for (auto deadline = Clock::now() + 6s; Clock::now() < deadline;) {
    led = led || role_of(behind_address) == "leader";
    if (role_of(cluster.address(other)) == "leader") new_leader = other;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_FALSE(led) << "a node whose state is behind its log led; log " << cluster.log_path(behind);
  ASSERT_EQ(new_leader, other) << "log " << cluster.log_path(other);
  Client after({cluster.address(other), behind_address}, with(5000ms));
  Reply put = after.put(kTree, "after", "the leader died");
  ASSERT_TRUE(put.ok()) << put.message;
  EXPECT_GT(pending(), 0u);

  links.heal_all();
  ASSERT_TRUE(cluster.restart(leader).ok());
  EXPECT_TRUE(eventually_true([&] { return pending() == 0; }, 30s))
      << "log " << cluster.log_path(behind);
  EXPECT_GT(wait_converged(cluster, 30s), 0u);
  EXPECT_EQ(cluster.pid(behind), pid) << "the follower was restarted";
  Client local({behind_address}, with(2000ms));
  local.connect_to(behind_address);
  Reply caught_up = local.get(kTree, "after", replica::ReadMode::kLocal);
  EXPECT_TRUE(caught_up.ok() && caught_up.value == "the leader died") << caught_up.message;
  EXPECT_EQ(caught_up.node, behind_address);
  EXPECT_GE(status_number(behind_address, "snapshots_installed"), 1u);
  Client status({behind_address}, with(2000ms));
  Reply st = status.status();
  EXPECT_NE(st.value.find("install_error: \n"), std::string::npos) << st.value;
}

// A forged message on a node's Raft port: libraft 0.15's own TCP handshake
// (protocol 1, a member's id and address) then an AppendEntries header of
// 64 bytes and 64 random bytes. libraft would crash decoding it (SIGSEGV on
// the Raft thread); the node's handshake (raft_transport.h) must refuse the
// connection before any byte reaches libraft, count it, and go on.
TEST(ReplicationJepsenTest, ForgedRaftMessageLeavesTheNodeRunning) {
  TempDir dir;
  node::LocalClusterOptions options;
  options.binary = ORDO_NODE_BINARY;
  options.root = dir.path();
  options.nodes = 3;
  options.start_timeout = 30000ms;
  LocalCluster cluster(options);
  ASSERT_TRUE(cluster.start().ok());
  auto u64 = [](uint64_t v) {
    std::string out;
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return out;
  };
  std::string address = node::raft_address_of(cluster.address(2));
  address.resize((address.size() + 8) / 8 * 8, '\0');
  std::string bytes = u64(1) + u64(2) + u64(address.size()) + address;
  bytes += u64(1) + u64(64);  // message type 1 (AppendEntries), 64 bytes
  std::mt19937_64 rng(1);
  for (int i = 0; i < 8; ++i) bytes += u64(rng());
  Result<int> fd =
      sys::connect_to(node::raft_address_of(cluster.address(1)), sys::deadline_in(2000ms));
  ASSERT_TRUE(fd.is_ok()) << fd.status().to_string();
  ASSERT_TRUE(sys::send_all(*fd, bytes, sys::deadline_in(2000ms)).is_ok());
  std::this_thread::sleep_for(1000ms);
  ::close(*fd);
  std::this_thread::sleep_for(500ms);
  Result<std::optional<sys::ChildExit>> ended = cluster.exited(1);
  ASSERT_TRUE(ended.is_ok());
  EXPECT_FALSE(ended->has_value()) << "node 1 " << (*ended)->how_it_ended() << " on a forged "
                                   << "Raft message; log " << cluster.log_path(1);
  Client status({cluster.address(1)}, with(5000ms));
  Reply st = status.status();
  ASSERT_TRUE(st.ok()) << st.message;
  std::string refused;
  for (const auto& [name, value] : st.entries) {
    if (name == "raft_refused_connections") refused = value;
  }
  EXPECT_NE(refused, "") << "status has no raft_refused_connections";
  EXPECT_NE(refused, "0") << "the forged connection was not counted as refused";
}

TEST(ReplicationJepsenTest, LinearizableUnderKillsPausesPartitionsAndGarbage) {
  const Plan p = plan();
  const uint64_t s = seed();
  std::mt19937_64 rng(s);
  TempDir dir;
  auto net = LinkProxies::start();
  ASSERT_TRUE(net.is_ok()) << net.status().to_string();
  LinkProxies& links = **net;

  node::LocalClusterOptions options = cluster_options(dir.path(), links);
  // As on a network: TLS and the cluster secret (ORDO_JEPSEN_PLAINTEXT=1: neither).
  const char* plaintext = std::getenv("ORDO_JEPSEN_PLAINTEXT");
  if (plaintext == nullptr || std::string(plaintext) != "1") {
    Status secured = secure(options, dir);
    ASSERT_TRUE(secured.is_ok()) << secured.to_string();
    std::printf("TLS on the client and snapshot ports, a cluster secret on the Raft port\n");
  }
  LocalCluster cluster(options);
  ASSERT_TRUE(cluster.start().ok());

  HistoryRecorder history;
  World world{cluster, links, history, {}, {}};
  std::vector<std::unique_ptr<Fault>> faults;
  faults.push_back(NodeFault::kill(world, true));
  faults.push_back(NodeFault::kill(world, false));
  faults.push_back(NodeFault::pause(world, true));
  faults.push_back(NodeFault::pause(world, false));
  faults.push_back(std::make_unique<Partition>(world));
  faults.push_back(std::make_unique<Partition>(world));
  faults.push_back(std::make_unique<ClientGarbage>(world));

  // Every node that ended without us: a crash.
  std::vector<std::string> crashes;
  auto look_for_crashes = [&] {
    for (int i = 1; i <= cluster.size(); ++i) {
      Result<std::optional<sys::ChildExit>> ended = cluster.exited(i);
      if (ended.is_ok() && ended->has_value()) {
        crashes.push_back("node " + std::to_string(i) + " ended on its own (" +
                          (*ended)->how_it_ended() + "); log " + cluster.log_path(i));
        world.log(crashes.back());
        EXPECT_TRUE(cluster.restart(i).ok());
      }
    }
  };
  auto pause_for = [&](std::chrono::milliseconds total) {
    const auto until = Clock::now() + total;
    while (Clock::now() < until) {
      std::this_thread::sleep_for(100ms);
      look_for_crashes();
    }
  };
  auto ms_between = [&](int lo, int hi) {
    return std::chrono::milliseconds(lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo)));
  };

  {
    Clients clients(cluster.addresses(), history, p.clients, p.keys, s);
    pause_for(1s);
    const auto faults_end = Clock::now() + p.faults_for;
    while (Clock::now() < faults_end) {
      std::vector<Fault*> active;
      const int count = p.overlap && rng() % 3 == 0 ? 2 : 1;
      for (int f = 0; f < count; ++f) {
        Fault* fault = faults[rng() % faults.size()].get();
        if (std::find(active.begin(), active.end(), fault) != active.end()) continue;
        Result<std::string> what = fault->inject(rng);
        ASSERT_TRUE(what.is_ok()) << what.status().to_string();
        if (what->empty()) continue;
        world.log(*what);
        active.push_back(fault);
      }
      pause_for(ms_between(500, 3000));
      for (Fault* fault : active) {
        Status healed = fault->heal();
        ASSERT_TRUE(healed.is_ok()) << healed.to_string();
      }
      pause_for(ms_between(300, 1500));
    }
    for (auto& fault : faults) ASSERT_TRUE(fault->heal().ok());
    links.heal_all();
    world.log("every fault healed");
    pause_for(2s);
    clients.stop();
  }

  const uint64_t applied = wait_converged(cluster, 60s);
  ASSERT_GT(applied, 0u) << "the nodes did not converge on one applied index";
  look_for_crashes();
  for (int i = 1; i <= cluster.size(); ++i) {
    std::printf(
        "node %d: applied index %llu, %llu snapshot copies installed since its start\n", i,
        static_cast<unsigned long long>(applied),
        static_cast<unsigned long long>(status_number(cluster.address(i), "snapshots_installed")));
  }

  // Final reads: one linearizable read per key (part of the history), and
  // each node's own copy, which must agree now that all have applied the same.
  std::map<std::string, std::optional<std::string>> finals;
  {
    Client reader(cluster.addresses(), with(10000ms));
    for (int k = 0; k < p.keys; ++k) {
      Operation op;
      op.client = 0;
      op.key = key_name(k);
      op.kind = OpKind::kGet;
      const size_t h = history.invoke(op);
      Reply r = reader.get(kTree, op.key, replica::ReadMode::kLinearizable);
      ASSERT_TRUE(r.ok() || r.code == Reply::Code::kNotFound) << op.key << ": " << r.message;
      std::optional<std::string> value;
      if (r.ok()) value = r.value;
      history.complete(h, Outcome::kOk, value);
      finals[op.key] = value;
    }
  }
  for (int i = 1; i <= cluster.size(); ++i) {
    Client local({cluster.address(i)}, with(5000ms));
    for (const auto& [key, value] : finals) {
      Reply r = local.get(kTree, key, replica::ReadMode::kLocal);
      ASSERT_TRUE(r.ok() || r.code == Reply::Code::kNotFound) << key << ": " << r.message;
      EXPECT_EQ(r.ok() ? std::optional<std::string>(r.value) : std::nullopt, value)
          << "node " << i << " holds another value of " << key;
    }
  }

  const std::vector<Operation> ops = history.operations();
  uint64_t counts[3][3] = {};  // [put, get, other][ok, failed, unknown]
  for (const Operation& op : ops) {
    const int kind = op.kind == OpKind::kPut ? 0 : op.kind == OpKind::kGet ? 1 : 2;
    counts[kind][static_cast<int>(op.outcome)]++;
  }
  std::printf(
      "history: %zu operations on %d keys; puts %llu ok, %llu failed, %llu unknown; "
      "gets %llu ok, %llu failed, %llu unknown; %llu connections forwarded, %llu refused\n",
      ops.size(), p.keys, static_cast<unsigned long long>(counts[0][0]),
      static_cast<unsigned long long>(counts[0][1]), static_cast<unsigned long long>(counts[0][2]),
      static_cast<unsigned long long>(counts[1][0]), static_cast<unsigned long long>(counts[1][1]),
      static_cast<unsigned long long>(counts[1][2]),
      static_cast<unsigned long long>(links.connections()),
      static_cast<unsigned long long>(links.refused()));
  EXPECT_GT(counts[0][0], 100u) << "too few acknowledged writes to say anything";
  EXPECT_GT(counts[1][0], 100u) << "too few reads to say anything";

  std::string nemesis_log;
  for (const std::string& e : world.events) nemesis_log += "  " + e + "\n";
  const std::vector<std::string> lost = history::lost_writes(ops, finals);
  for (const std::string& l : lost) ADD_FAILURE() << "lost write: " << l;
  const auto started = Clock::now();
  history::CheckResult check = history::check_linearizable(ops);
  std::printf(
      "linearizability: %zu keys, %zu operations checked in %lld ms\n", check.keys,
      check.operations,
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count()));
  EXPECT_TRUE(check.ok()) << check.report() << "faults (seed " << s << "):\n" << nemesis_log;
  EXPECT_TRUE(crashes.empty()) << crashes.front();

  // Orderly shutdown (an exit code other than 0 is a failure), then the files.
  for (int i = 1; i <= cluster.size(); ++i) {
    Result<sys::ChildExit> ended = cluster.terminate(i, 20000ms);
    ASSERT_TRUE(ended.is_ok()) << ended.status().to_string();
    EXPECT_TRUE(ended->ok()) << "node " << i << ": " << ended->how_it_ended() << "; log "
                             << cluster.log_path(i);
  }
  std::vector<std::string> dumps;
  for (int i = 1; i <= cluster.size(); ++i) {
    const std::string file = cluster.data_dir(i) + "/data.ordo";
    ProcessResult r = run_process({ORDO_TOOL_PATH, "dump", "--all", file});
    ASSERT_EQ(r.exit_code, 0) << file << ": " << r.err;
    dumps.push_back(r.out);
  }
  EXPECT_EQ(dumps[1], dumps[0]) << "node 2's dump differs from node 1's";
  EXPECT_EQ(dumps[2], dumps[0]) << "node 3's dump differs from node 1's";
}

}  // namespace
}  // namespace ordo::testing
