// The cluster identity of ordo-node processes: a node whose data directory
// was emptied and that bootstraps a cluster of its own never gets into the
// real one, a restart with other peers is refused, the Raft port refuses a
// wrong secret and survives garbage.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "client.h"
#include "local_cluster.h"
#include "node_cli_run.h"
#include "ordo/sys/child_process.h"
#include "ordo/sys/socket.h"
#include "protocol.h"
#include "raft_handshake.h"
#include "temp_dir.h"

namespace ordo::node {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using testing::read_text;

const std::vector<std::string> kTimeouts = {"--election-timeout-ms", "600",
                                            "--heartbeat-timeout-ms", "60"};

LocalClusterOptions identity_cluster_options(const std::string& root,
                                             std::vector<std::string> extra = {}) {
  LocalClusterOptions o;
  o.binary = ORDO_NODE_BINARY;
  o.root = root;
  o.nodes = 3;
  o.extra_args = kTimeouts;
  for (auto& a : extra) o.extra_args.push_back(std::move(a));
  o.start_timeout = 15s;
  return o;
}

// A status field of the node at `address` ("" when it does not answer).
std::string status_of(const std::string& address, const std::string& name) {
  Client c({address}, 1s);
  Reply r = c.status();
  if (!r.ok()) return {};
  for (const auto& [k, v] : r.entries) {
    if (k == name) return v;
  }
  return {};
}

uint64_t refused(const std::string& address) {
  const std::string v = status_of(address, "raft_refused_connections");
  return v.empty() ? 0 : std::stoull(v);
}

// Polls `cond` for up to `limit`.
template <typename F>
bool eventually(F cond, std::chrono::milliseconds limit = 15s) {
  for (auto until = std::chrono::steady_clock::now() + limit;
       std::chrono::steady_clock::now() < until;) {
    if (cond()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return cond();
}

// Starts ordo-node node `id` by hand (args after the binary), output to `log`.
sys::ChildProcess spawn_node(std::vector<std::string> args, const std::string& log) {
  args.insert(args.begin(), ORDO_NODE_BINARY);
  for (const auto& a : kTimeouts) args.push_back(a);
  sys::SpawnOptions o;
  o.output_file = log;
  o.null_stdin = true;
  o.die_with_parent = true;
  Result<sys::ChildProcess> p = sys::ChildProcess::spawn(args, o);
  EXPECT_TRUE(p.is_ok()) << p.status().to_string();
  return p.is_ok() ? std::move(*p) : sys::ChildProcess();
}

// Node 3 loses its directory and is started again with --peers naming only
// itself, as etcd's "existing" state (the default): it bootstraps nothing,
// so no cluster of its own takes writes; the real leader (whose
// configuration still holds it) brings it back, and it adopts the real
// cluster's id. Clients listing it first write to the real cluster only.
TEST(NodeIdentityTest, EmptiedNodeWithWrongPeersBootstrapsNothing) {
  testing::TempDir dir;
  LocalCluster cluster(identity_cluster_options(dir.path()));
  ASSERT_TRUE(cluster.start().is_ok());
  const std::string cluster_id = status_of(cluster.address(1), "cluster_id");
  ASSERT_EQ(cluster_id.size(), 32u);
  ASSERT_TRUE(cluster.kill(3).is_ok());
  fs::remove_all(cluster.data_dir(3));
  fs::create_directories(cluster.data_dir(3));
  const std::string log3 = dir.file("n3-alone.log");
  sys::ChildProcess alone = spawn_node({"--id", "3", "--data", cluster.data_dir(3), "--listen",
                                        cluster.address(3), "--peers", "3=" + cluster.address(3)},
                                       log3);
  ASSERT_TRUE(eventually([&] { return !status_of(cluster.address(3), "role").empty(); }))
      << read_text(log3);
  // Clients that list it first; node 3 never leads meanwhile.
  Client first({cluster.address(3), cluster.address(1), cluster.address(2)}, 3s);
  bool led = false;
  for (int i = 0; i < 40; ++i) {
    Reply put = first.put("", "k" + std::to_string(i), "v" + std::to_string(i));
    ASSERT_TRUE(put.ok()) << i << ": " << put.message;
    led = led || status_of(cluster.address(3), "role") == "leader";
  }
  EXPECT_FALSE(led) << "node 3 led a cluster of its own: " << read_text(log3);
  EXPECT_EQ(first.cluster_id(), cluster_id);
  // The leader reaches it again (its connection retries) and it adopts the id.
  EXPECT_TRUE(eventually([&] { return status_of(cluster.address(3), "cluster_id") == cluster_id; }))
      << read_text(log3);
  Client real({cluster.address(1), cluster.address(2)}, 3s);
  for (int i = 0; i < 40; ++i) {
    Reply get = real.get("", "k" + std::to_string(i), replica::ReadMode::kLinearizable);
    ASSERT_TRUE(get.ok()) << i << ": " << get.message;
    EXPECT_EQ(get.value, "v" + std::to_string(i));
  }
  ASSERT_TRUE(alone.running());
  EXPECT_FALSE(alone.try_wait()->has_value()) << "node 3 exited: " << read_text(log3);
}

// The same mistake with --initial-cluster-state new: node 3 makes a cluster
// of its own and leads it, but no client takes it for the real one.
TEST(NodeIdentityTest, EmptiedNodeBootstrappingAloneNeverGetsIntoTheCluster) {
  testing::TempDir dir;
  LocalCluster cluster(identity_cluster_options(dir.path()));
  ASSERT_TRUE(cluster.start().is_ok());
  const std::string cluster_id = status_of(cluster.address(1), "cluster_id");
  ASSERT_EQ(cluster_id.size(), 32u);
  EXPECT_EQ(status_of(cluster.address(3), "cluster_id"), cluster_id);
  Client real({cluster.address(1), cluster.address(2), cluster.address(3)}, 2s);
  ASSERT_TRUE(real.put("", "before", "1").ok());

  // Node 3 loses its directory and comes back naming only itself.
  ASSERT_TRUE(cluster.kill(3).is_ok());
  fs::remove_all(cluster.data_dir(3));
  fs::create_directories(cluster.data_dir(3));
  const std::string log3 = dir.file("n3-alone.log");
  sys::ChildProcess alone =
      spawn_node({"--id", "3", "--data", cluster.data_dir(3), "--listen", cluster.address(3),
                  "--peers", "3=" + cluster.address(3), "--initial-cluster-state", "new"},
                 log3);
  ASSERT_TRUE(eventually([&] { return status_of(cluster.address(3), "role") == "leader"; }))
      << read_text(log3);
  const std::string alone_id = status_of(cluster.address(3), "cluster_id");
  EXPECT_EQ(alone_id.size(), 32u);
  EXPECT_NE(alone_id, cluster_id);

  // The real leader keeps trying node 3: each try is refused on both sides.
  EXPECT_TRUE(eventually([&] {
    return refused(cluster.address(1)) + refused(cluster.address(2)) >= 2 &&
           refused(cluster.address(3)) >= 2;
  })) << read_text(cluster.log_path(1))
      << read_text(log3);
  const std::string leader_log = read_text(cluster.log_path(1)) + read_text(cluster.log_path(2));
  EXPECT_NE(leader_log.find("refused: raft handshake: the peer is in cluster " + alone_id),
            std::string::npos)
      << leader_log;

  // The real cluster keeps writing; node 3 never sees its entries and keeps
  // itself as its only member.
  Client two({cluster.address(1), cluster.address(2)}, 2s);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(two.put("", "k" + std::to_string(i), "v").ok()) << i;
  }
  std::this_thread::sleep_for(1s);
  Client three({cluster.address(3)}, 1s);
  EXPECT_EQ(three.get("", "before", replica::ReadMode::kLocal).code, Reply::Code::kNotFound);
  EXPECT_EQ(three.get("", "k19", replica::ReadMode::kLocal).code, Reply::Code::kNotFound);
  EXPECT_EQ(status_of(cluster.address(3), "members"), "3=" + cluster.address(3));
  EXPECT_EQ(status_of(cluster.address(1), "cluster_id"), cluster_id);
  // Clients pinned to the real cluster never get an answer from node 3: it
  // is skipped like a dead node, and alone it is a failure naming why.
  Client pinned({cluster.address(3)}, 1s);
  pinned.expect_cluster(cluster_id);
  Reply wrong = pinned.get("", "k19", replica::ReadMode::kLocal);
  EXPECT_EQ(wrong.code, Reply::Code::kFailed);
  EXPECT_NE(wrong.message.find("wrong cluster: this node is cluster " + alone_id),
            std::string::npos)
      << wrong.message;
  // A client that lists the rogue first (and names no cluster) takes the
  // id most of its nodes hold: writes and reads never reach node 3.
  Client learns({cluster.address(3), cluster.address(1), cluster.address(2)}, 2s);
  ASSERT_TRUE(learns.status().ok());
  EXPECT_EQ(learns.cluster_id(), cluster_id);
  for (int i = 0; i < 20; ++i) {
    Reply put = learns.put("", "m" + std::to_string(i), "v");
    ASSERT_TRUE(put.ok()) << i << ": " << put.message;
    EXPECT_NE(put.node, cluster.address(3));
  }
  EXPECT_EQ(status_of(cluster.address(3), "applied_index"), "0")
      << "the rogue applied writes: " << read_text(log3);
  // The command-line client likewise.
  CliRun cli = run_node_cli("put --node " + cluster.address(3) + "," + cluster.address(1) + "," +
                            cluster.address(2) + " cli v");
  EXPECT_EQ(cli.code, 0) << cli.err;
  EXPECT_EQ(three.get("", "cli", replica::ReadMode::kLocal).code, Reply::Code::kNotFound);
  learns.connect_to(cluster.address(3));
  Reply skipped = learns.get("", "k19", replica::ReadMode::kLocal);
  EXPECT_TRUE(skipped.ok()) << skipped.message;
  EXPECT_NE(skipped.node, cluster.address(3));
  Reply linearizable = learns.get("", "k19", replica::ReadMode::kLinearizable);
  EXPECT_TRUE(linearizable.ok()) << linearizable.message;
  EXPECT_NE(linearizable.node, cluster.address(3));
  ASSERT_TRUE(alone.running());
  EXPECT_FALSE(alone.try_wait()->has_value()) << "node 3 exited: " << read_text(log3);
}

TEST(NodeIdentityTest, RestartWithOtherPeersIsRefusedNamingBothClusters) {
  testing::TempDir dir;
  LocalCluster cluster(identity_cluster_options(dir.path()));
  ASSERT_TRUE(cluster.start().is_ok());
  const std::string cluster_id = status_of(cluster.address(2), "cluster_id");
  ASSERT_TRUE(cluster.kill(2).is_ok());

  const std::string log = dir.file("n2-other.log");
  sys::ChildProcess other =
      spawn_node({"--id", "2", "--data", cluster.data_dir(2), "--listen", cluster.address(2),
                  "--peers", "1=" + cluster.address(1) + ",2=" + cluster.address(2)},
                 log);
  Result<sys::ChildExit> ended = other.wait_for(15s);
  ASSERT_TRUE(ended.is_ok()) << ended.status().to_string();
  EXPECT_EQ(ended->exit_code, 1) << ended->how_it_ended();
  const std::string text = read_text(log);
  EXPECT_NE(text.find("belongs to cluster " + cluster_id), std::string::npos) << text;
  EXPECT_NE(text.find("peers 1=" + raft_address_of(cluster.address(1)) + "," +
                      "2=" + raft_address_of(cluster.address(2)) + ")"),
            std::string::npos)
      << text;

  // A directory from before cluster files: the peers give it one.
  fs::remove(cluster.data_dir(2) + "/cluster-id");
  ASSERT_TRUE(cluster.restart(2).is_ok());
  EXPECT_EQ(status_of(cluster.address(2), "cluster_id"), cluster_id);
  EXPECT_NE(read_text(cluster.log_path(2)).find("had no cluster file"), std::string::npos);
}

TEST(NodeIdentityTest, HelloNamingAnotherClusterRefusesTheConnectionsRequests) {
  testing::TempDir dir;
  LocalCluster cluster(identity_cluster_options(dir.path()));
  ASSERT_TRUE(cluster.start().is_ok());
  const std::string cluster_id = status_of(cluster.address(1), "cluster_id");
  Result<int> fd = sys::connect_to(cluster.address(1), sys::deadline_in(2s));
  ASSERT_TRUE(fd.is_ok());
  auto ask = [&](const Request& req) {
    EXPECT_TRUE(write_frame(*fd, encode_request(req), sys::deadline_in(2s)).is_ok());
    Result<std::string> body = read_frame(*fd, sys::deadline_in(5s));
    EXPECT_TRUE(body.is_ok()) << body.status().to_string();
    Result<WireReply> reply = decode_reply(body.is_ok() ? *body : std::string());
    return reply.is_ok() ? *reply : WireReply{};
  };
  Request hello;
  hello.op = Op::kHello;
  WireReply any = ask(hello);
  EXPECT_EQ(any.code, ReplyCode::kOk);
  EXPECT_EQ(any.value, cluster_id);
  hello.cluster_id = std::string(32, 'a');
  WireReply other = ask(hello);
  EXPECT_EQ(other.code, ReplyCode::kFailed);
  EXPECT_EQ(other.message, "wrong cluster: this node is cluster " + cluster_id +
                               ", the client asked for " + std::string(32, 'a'));
  Request status;
  status.op = Op::kStatus;
  WireReply refused_status = ask(status);
  EXPECT_EQ(refused_status.code, ReplyCode::kFailed);
  EXPECT_NE(refused_status.message.find("wrong cluster"), std::string::npos);
  // A hello naming the node's own cluster (any case) opens the connection again.
  std::string upper = cluster_id;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  hello.cluster_id = upper;
  EXPECT_EQ(ask(hello).code, ReplyCode::kOk);
  EXPECT_EQ(ask(status).code, ReplyCode::kOk);
  ::close(*fd);
}

// A connection to node `address`'s Raft port.
int raft_socket(const std::string& address) {
  Result<int> fd = sys::connect_to(raft_address_of(address), sys::deadline_in(2s));
  EXPECT_TRUE(fd.is_ok()) << fd.status().to_string();
  return fd.is_ok() ? *fd : -1;
}

// Whether the peer closed `fd` within `limit` (reads and drops what comes).
bool closed_by_peer(int fd, std::chrono::milliseconds limit) {
  char buf[512];
  for (auto until = std::chrono::steady_clock::now() + limit;
       std::chrono::steady_clock::now() < until;) {
    Result<size_t> n = sys::recv_some(fd, buf, sizeof buf, sys::deadline_in(200ms));
    if (n.is_ok() && *n == 0) return true;
    if (!n.is_ok() && n.status().errno_value() != ETIMEDOUT && n.status().errno_value() != EAGAIN) {
      return true;
    }
  }
  return false;
}

TEST(NodeIdentityTest, RaftConnectionWithAWrongSecretIsRefusedAndCounted) {
  testing::TempDir dir;
  const std::string secret_file = dir.file("secret");
  std::ofstream(secret_file) << std::string(64, 'a') << "\n";
  LocalCluster cluster(
      identity_cluster_options(dir.path(), {"--cluster-secret-file", secret_file}));
  ASSERT_TRUE(cluster.start().is_ok());
  Client real(cluster.addresses(), 2s);
  ASSERT_TRUE(real.put("", "k", "v").ok());
  Result<replica::ClusterId> id =
      replica::parse_cluster_id(status_of(cluster.address(1), "cluster_id"));
  ASSERT_TRUE(id.is_ok());
  const uint64_t before = refused(cluster.address(1));

  // A well-formed hello from a member that holds another secret: the node
  // answers (its proof is useless without the secret), then refuses the
  // connector's proof.
  replica::Hello h;
  h.has_secret = true;
  h.cluster_id = *id;
  h.id = 7;
  h.address = "127.0.0.1:9";
  const std::string hello = replica::encode_hello(h);
  int fd = raft_socket(cluster.address(1));
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(sys::send_all(fd, hello, sys::deadline_in(2s)).is_ok());
  std::string reply(replica::kHelloHeaderBytes, '\0');
  ASSERT_TRUE(sys::recv_exact(fd, reply.data(), reply.size(), sys::deadline_in(5s)).is_ok());
  Result<size_t> n = replica::hello_address_bytes(reply);
  ASSERT_TRUE(n.is_ok()) << n.status().to_string();
  std::string rest(*n + replica::kMacBytes, '\0');
  ASSERT_TRUE(sys::recv_exact(fd, rest.data(), rest.size(), sys::deadline_in(5s)).is_ok());
  const replica::Mac wrong = replica::handshake_mac(
      std::string(64, 'b'), replica::MacRole::kConnector, hello, reply + rest.substr(0, *n));
  ASSERT_TRUE(sys::send_all(fd, std::string(reinterpret_cast<const char*>(wrong.data()), 32),
                            sys::deadline_in(2s))
                  .is_ok());
  EXPECT_TRUE(closed_by_peer(fd, 5s));
  ::close(fd);

  // A hello without a secret is refused at once.
  h.has_secret = false;
  fd = raft_socket(cluster.address(1));
  ASSERT_TRUE(sys::send_all(fd, replica::encode_hello(h), sys::deadline_in(2s)).is_ok());
  EXPECT_TRUE(closed_by_peer(fd, 5s));
  ::close(fd);

  EXPECT_TRUE(eventually([&] { return refused(cluster.address(1)) >= before + 2; }));
  const std::string log = read_text(cluster.log_path(1));
  EXPECT_NE(log.find("does not match (another cluster secret)"), std::string::npos) << log;
  EXPECT_TRUE(real.put("", "k2", "v").ok());
}

TEST(NodeIdentityTest, GarbageOnTheRaftPortNeverReachesRaft) {
  testing::TempDir dir;
  LocalCluster cluster(identity_cluster_options(dir.path()));
  ASSERT_TRUE(cluster.start().is_ok());
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  Result<replica::ClusterId> id =
      replica::parse_cluster_id(status_of(cluster.address(1), "cluster_id"));
  ASSERT_TRUE(id.is_ok());
  replica::Hello h;
  h.cluster_id = *id;
  h.id = 2;
  h.address = raft_address_of(cluster.address(2));
  const std::string hello = replica::encode_hello(h);
  for (int round = 0; round < 30; ++round) {
    for (int node = 1; node <= 3; ++node) {
      std::string bytes;
      switch (round % 5) {
        case 0:  // random bytes
          bytes.resize(rng() % 600);
          for (char& c : bytes) c = static_cast<char>(rng());
          break;
        case 1:  // libraft's own handshake (protocol 1, id, address length)
          bytes = std::string("\0\0\0\0\0\0\0\1\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0\x10", 24) +
                  std::string(16, 'a');
          break;
        case 2:  // a hello cut short, then nothing
          bytes = hello.substr(0, rng() % hello.size());
          break;
        case 3:  // a hello with a flipped byte, and Raft-looking bytes after it
          bytes = hello;
          bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
          bytes += std::string(200, '\x01');
          break;
        default:  // a valid hello, then no finish (the deadline ends it)
          bytes = hello;
          break;
      }
      int fd = raft_socket(cluster.address(node));
      ASSERT_GE(fd, 0);
      (void)sys::send_all(fd, bytes, sys::deadline_in(1s));
      ::close(fd);
    }
  }
  Client real(cluster.addresses(), 2s);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(real.put("", "k" + std::to_string(i), "v").ok());
  for (int node = 1; node <= 3; ++node) {
    EXPECT_TRUE(eventually([&] { return refused(cluster.address(node)) >= 30; }, 10s))
        << node << ": " << refused(cluster.address(node));
    EXPECT_EQ(status_of(cluster.address(node), "members").size() > 0, true);
  }
  EXPECT_TRUE(real.put("", "after", "v").ok());
}

TEST(NodeIdentityTest, SecretsAndClusterIdsOnTheCommandLine) {
  CliRun secret = run_node_cli("secret");
  EXPECT_EQ(secret.code, 0) << secret.err;
  ASSERT_EQ(secret.out.size(), 65u) << secret.out;
  EXPECT_EQ(secret.out.find_first_not_of("0123456789abcdef"), 64u);
  EXPECT_NE(run_node_cli("secret").out, secret.out);

  testing::TempDir dir;
  std::ofstream(dir.file("short")) << "0123456789\n";
  CliRun short_secret = run_node_cli("--id 1 --data " + dir.file("n") +
                                     " --listen 127.0.0.1:7001 --peers 1=127.0.0.1:7001" +
                                     " --cluster-secret-file " + dir.file("short"));
  EXPECT_EQ(short_secret.code, 1);
  EXPECT_NE(short_secret.err.find("at least 32"), std::string::npos) << short_secret.err;
  EXPECT_FALSE(fs::exists(dir.file("n")));

  LocalClusterOptions o = identity_cluster_options(dir.path(), {"--cluster-token", "cli"});
  o.nodes = 1;
  LocalCluster cluster(o);
  ASSERT_TRUE(cluster.start().is_ok());
  const std::string node = cluster.address(1);
  const std::string id = status_of(node, "cluster_id");
  CliRun right = run_node_cli("status --node " + node + " --cluster-id " + id);
  EXPECT_EQ(right.code, 0) << right.err;
  EXPECT_NE(right.out.find("cluster_id: " + id), std::string::npos) << right.out;
  EXPECT_NE(right.out.find("raft_refused_connections: 0"), std::string::npos) << right.out;
  CliRun wrong =
      run_node_cli("get --node " + node + " --cluster-id " + std::string(32, 'f') + " k");
  EXPECT_EQ(wrong.code, 2);
  EXPECT_NE(wrong.err.find("wrong cluster: this node is cluster " + id), std::string::npos)
      << wrong.err;
  CliRun bad = run_node_cli("status --node " + node + " --cluster-id xyz");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("not 32 hex digits"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ordo::node
