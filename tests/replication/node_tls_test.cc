// ordo-node with TLS on its client and snapshot ports (throwaway
// certificates from tests/util/tls_test_certs.h): requests over mutual TLS
// from the library and the command line, the refusals (a plaintext client,
// a certificate from another CA, a name off --tls-allowed-clients) counted in
// status, and a follower far behind catching up through a snapshot copy
// over TLS. Also: many idle connections cost no thread each, and stalled
// requests do not starve the others.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client.h"
#include "local_cluster.h"
#include "ordo/sys/child_process.h"
#include "ordo/sys/socket.h"
#include "ordo/sys/tls.h"
#include "protocol.h"
#include "temp_dir.h"
#include "tls_test_certs.h"

namespace ordo::node {
namespace {

using namespace std::chrono_literals;

// A field of the status text ("name: value" lines), or "" when absent.
std::string field(const Reply& status, const std::string& name) {
  const std::string prefix = "\n" + name + ": ";
  const std::string text = "\n" + status.value;
  const size_t at = text.find(prefix);
  if (at == std::string::npos) return "";
  const size_t begin = at + prefix.size();
  return text.substr(begin, text.find('\n', begin) - begin);
}

uint64_t number(const Reply& status, const std::string& name) {
  const std::string v = field(status, name);
  return v.empty() ? 0 : std::stoull(v);
}

class NodeTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status made = test::make_test_certs(dir_.path());
    ASSERT_TRUE(made.is_ok()) << made.to_string();
  }

  std::string file(const std::string& name) const { return dir_.file(name); }

  // A client context presenting `who`'s certificate.
  std::shared_ptr<const sys::TlsContext> client_tls(const std::string& who) {
    sys::TlsConfig c;
    c.ca_file = file("ca.pem");
    c.cert_file = file(who + ".pem");
    c.key_file = file(who + ".key");
    auto ctx = sys::TlsContext::create(c, sys::TlsRole::kClient);
    EXPECT_TRUE(ctx.is_ok()) << ctx.status().to_string();
    return ctx.is_ok() ? *ctx : nullptr;
  }

  Status start(int nodes, std::vector<std::string> extra = {}) {
    LocalClusterOptions o;
    o.binary = ORDO_NODE_BINARY;
    o.root = dir_.path();
    o.nodes = nodes;
    o.extra_args = {
        "--election-timeout-ms", "600",       "--heartbeat-timeout-ms", "60",       "--tls-cert",
        file("node.pem"),        "--tls-key", file("node.key"),         "--tls-ca", file("ca.pem")};
    o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
    o.start_timeout = 15s;
    o.client_tls = client_tls("client");
    cluster_ = std::make_unique<LocalCluster>(o);
    return cluster_->start();
  }

  Client client(std::vector<std::string> nodes, std::shared_ptr<const sys::TlsContext> tls,
                std::chrono::milliseconds timeout = 3s) {
    ClientOptions o;
    o.timeout = timeout;
    o.tls = std::move(tls);
    return Client(std::move(nodes), o);
  }

  testing::TempDir dir_;
  std::unique_ptr<LocalCluster> cluster_;
};

TEST_F(NodeTlsTest, MutualTlsServesAndRefusesTheOthers) {
  Status started = start(1, {"--tls-allowed-clients", "client,backup"});
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  const std::string node = cluster_->address(1);
  Client good = client({node}, client_tls("client"));
  ASSERT_TRUE(good.put("", "k", "v").ok());
  Reply got = good.get("", "k", replica::ReadMode::kLocal);
  ASSERT_TRUE(got.ok()) << got.message;
  EXPECT_EQ(got.value, "v");

  // A plaintext client: the connection is closed, no request is served.
  Client plain({node}, 1500ms);
  Reply refused = plain.status();
  EXPECT_EQ(refused.code, Reply::Code::kFailed);
  // A certificate another CA signed, and one the CA signed for a name off the list.
  Client stranger = client({node}, client_tls("stranger"), 1500ms);
  EXPECT_EQ(stranger.status().code, Reply::Code::kFailed);
  Client intruder = client({node}, client_tls("intruder"), 1500ms);
  EXPECT_EQ(intruder.status().code, Reply::Code::kFailed);
  EXPECT_EQ(intruder.put("", "k", "intruder").code, Reply::Code::kFailed);

  Reply st = good.status();
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_GE(number(st, "tls_plaintext_refused"), 1u) << st.value;
  EXPECT_GE(number(st, "tls_peers_refused"), 1u) << st.value;
  // plaintext, stranger, intruder (twice)
  EXPECT_GE(number(st, "tls_handshake_failures"), 4u) << st.value;
  EXPECT_EQ(good.get("", "k", replica::ReadMode::kLocal).value, "v");

  // The command line client with the same files.
  const std::string tls_args = " --tls-ca " + file("ca.pem") + " --tls-cert " + file("client.pem") +
                               " --tls-key " + file("client.key");
  Result<sys::ChildResult> put = sys::run_child(
      {ORDO_NODE_BINARY, "put", "--node", node, "cli", "yes", "--tls-ca", file("ca.pem"),
       "--tls-cert", file("client.pem"), "--tls-key", file("client.key")},
      "");
  ASSERT_TRUE(put.is_ok()) << put.status().to_string();
  EXPECT_EQ(put->exit_code, 0) << put->err << tls_args;
  Result<sys::ChildResult> bare =
      sys::run_child({ORDO_NODE_BINARY, "get", "--node", node, "cli", "--timeout-ms", "1500"}, "");
  ASSERT_TRUE(bare.is_ok());
  EXPECT_EQ(bare->exit_code, 2) << bare->out;
  EXPECT_EQ(good.get("", "cli", replica::ReadMode::kLocal).value, "yes");
}

// Two requests in one TLS record: the second waits decrypted in the TLS
// layer, where no epoll sees it; the server answers it all the same.
TEST_F(NodeTlsTest, RequestsBufferedInTheTlsLayerAreServed) {
  Status started = start(1);
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  auto tls = client_tls("client");
  Result<int> fd = sys::connect_to(cluster_->address(1), sys::deadline_in(5s));
  ASSERT_TRUE(fd.is_ok()) << fd.status().to_string();
  Result<sys::Stream> stream = tls->handshake(*fd, sys::deadline_in(5s));
  ASSERT_TRUE(stream.is_ok()) << stream.status().to_string();
  Request status;
  status.op = Op::kStatus;
  const std::string two = frame(encode_request(status)) + frame(encode_request(status));
  ASSERT_TRUE(stream->send_all(two, sys::deadline_in(5s)).is_ok());
  for (int i = 0; i < 2; ++i) {
    Result<std::string> body = read_frame(*stream, sys::deadline_in(5s));
    ASSERT_TRUE(body.is_ok()) << i << ": " << body.status().to_string();
    Result<WireReply> reply = decode_reply(*body);
    ASSERT_TRUE(reply.is_ok());
    EXPECT_EQ(reply->code, ReplyCode::kOk);
  }
}

TEST_F(NodeTlsTest, BadTlsFilesStopTheStart) {
  Result<sys::ChildResult> ran =
      sys::run_child({ORDO_NODE_BINARY, "--id", "1", "--data", file("n"), "--listen", "127.0.0.1:1",
                      "--peers", "1=127.0.0.1:1", "--tls-cert", file("absent.pem"), "--tls-key",
                      file("node.key"), "--tls-ca", file("ca.pem")},
                     "");
  ASSERT_TRUE(ran.is_ok());
  EXPECT_EQ(ran->exit_code, 1);
  EXPECT_NE(ran->err.find("absent.pem"), std::string::npos) << ran->err;
}

TEST_F(NodeTlsTest, FollowerFarBehindInstallsASnapshotOverTls) {
  Status started = start(
      3, {"--snapshot-threshold", "16", "--snapshot-trailing", "4", "--tls-allowed-nodes", "node"});
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  const int leader = cluster_->leader(5s);
  ASSERT_NE(leader, 0);
  const int behind = leader == 3 ? 2 : 3;
  ASSERT_TRUE(cluster_->kill(behind).is_ok());
  Client c = client(cluster_->addresses(), client_tls("client"), 5s);
  for (int i = 0; i < 80; ++i) {
    Reply r = c.put("", "key" + std::to_string(i), "value" + std::to_string(i));
    ASSERT_TRUE(r.ok()) << i << ": " << reply_code_name(r.code) << ": " << r.message;
  }
  ASSERT_TRUE(cluster_->restart(behind).is_ok());
  Client one = client({cluster_->address(behind)}, client_tls("client"), 2s);
  Reply st;
  for (auto until = std::chrono::steady_clock::now() + 15s;
       std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(100ms)) {
    st = one.status();
    if (st.ok() && number(st, "snapshots_installed") > 0 && number(st, "applied_index") >= 80) {
      break;
    }
  }
  EXPECT_GT(number(st, "snapshots_installed"), 0u) << st.value;
  Reply first = one.get("", "key0", replica::ReadMode::kLocal);
  EXPECT_EQ(first.value, "value0") << first.message;
}

// The threads of process `pid` (its /proc/PID/task entries).
int thread_count(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return -1;
  int n = 0;
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  ::closedir(dir);
  return n;
}

TEST(NodeIdleConnectionsTest, ThreeHundredIdleConnectionsTakeFewThreads) {
  testing::TempDir dir;
  LocalClusterOptions o;
  o.binary = ORDO_NODE_BINARY;
  o.root = dir.path();
  o.nodes = 1;
  o.extra_args = {"--election-timeout-ms", "600", "--heartbeat-timeout-ms", "60",
                  "--max-connections",     "400"};
  o.start_timeout = 15s;
  LocalCluster cluster(o);
  ASSERT_TRUE(cluster.start().is_ok());
  const int before = thread_count(cluster.pid(1));
  ASSERT_GT(before, 0);
  std::vector<int> idle;
  for (int i = 0; i < 300; ++i) {
    Result<int> fd = sys::connect_to(cluster.address(1), sys::deadline_in(5s));
    ASSERT_TRUE(fd.is_ok()) << i << ": " << fd.status().to_string();
    idle.push_back(*fd);
  }
  Client c({cluster.address(1)}, 5s);
  Reply st;
  for (auto until = std::chrono::steady_clock::now() + 10s;
       std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(50ms)) {
    st = c.status();
    if (st.ok() && number(st, "connections_open") >= 301) break;
  }
  ASSERT_TRUE(st.ok()) << st.message;  // a new client is served
  EXPECT_GE(number(st, "connections_open"), 301u) << st.value;
  const int during = thread_count(cluster.pid(1));
  std::printf("node threads: %d before, %d with 300 idle connections\n", before, during);
  EXPECT_LE(during, before + 2);  // at most a pool thread or two more, none per connection
  EXPECT_LT(during, 50);

  // Clients that begin a request and stall hold a worker each (30 s): more
  // of them than the pool has workers still leave a new client served.
  for (int i = 0; i < 12; ++i) {
    Result<int> fd = sys::connect_to(cluster.address(1), sys::deadline_in(5s));
    ASSERT_TRUE(fd.is_ok()) << fd.status().to_string();
    ASSERT_TRUE(sys::send_all(*fd, std::string(1, '\x05'), sys::deadline_in(5s)).is_ok());
    idle.push_back(*fd);
  }
  std::this_thread::sleep_for(300ms);  // let the stalled requests reach workers
  Client fresh({cluster.address(1)}, 5s);
  Reply served = fresh.status();
  ASSERT_TRUE(served.ok()) << served.message;
  EXPECT_GE(number(served, "worker_threads"), 13u) << served.value;
  for (int fd : idle) ::close(fd);
}

}  // namespace
}  // namespace ordo::node
