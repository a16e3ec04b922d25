// The ordo-node binary's client subcommands, run as processes against a
// one-node cluster: output and exit codes (0 ok, 1 not found, 2 failed).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "local_cluster.h"
#include "node_cli_run.h"
#include "ordo/sys/child_process.h"
#include "ordo/sys/ports.h"
#include "temp_dir.h"

namespace ordo::node {
namespace {

using namespace std::chrono_literals;

class NodeCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LocalClusterOptions o;
    o.binary = ORDO_NODE_BINARY;
    o.root = dir_.path();
    o.nodes = 1;
    o.extra_args = {"--election-timeout-ms", "600", "--heartbeat-timeout-ms", "60"};
    o.start_timeout = 15s;
    cluster_ = std::make_unique<LocalCluster>(o);
    Status s = cluster_->start();
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    node_ = cluster_->address(1);
  }

  // Runs `ordo-node ARGS` through sh, with `input` on stdin.
  CliRun run(const std::string& args, const std::string& input = "") {
    const std::string in_path = dir_.file("stdin");
    std::ofstream(in_path) << input;
    return run_node_cli(args, in_path);
  }

  testing::TempDir dir_;
  std::unique_ptr<LocalCluster> cluster_;
  std::string node_;
};

TEST_F(NodeCliTest, PutGetDelScanBatchStatus) {
  CliRun put = run("put --node " + node_ + " alpha one");
  ASSERT_EQ(put.code, 0) << put.err;
  EXPECT_EQ(put.out.rfind("ok index ", 0), 0u) << put.out;

  CliRun get = run("get --node " + node_ + " alpha");
  EXPECT_EQ(get.code, 0) << get.err;
  EXPECT_EQ(get.out, "one\n");

  CliRun lin = run("get --linearizable --node " + node_ + " alpha");
  EXPECT_EQ(lin.code, 0) << lin.err;
  EXPECT_EQ(lin.out, "one\n");

  CliRun missing = run("get --node " + node_ + " nothing");
  EXPECT_EQ(missing.code, 1);
  EXPECT_EQ(missing.out, "");
  EXPECT_NE(missing.err.find("not found"), std::string::npos) << missing.err;

  CliRun batch =
      run("batch --node " + node_ + " --tree t", "put b two words\nput a 1\n# note\n\ndel zz\n");
  ASSERT_EQ(batch.code, 0) << batch.err;
  EXPECT_NE(batch.out.find("ops 3"), std::string::npos) << batch.out;

  CliRun scan = run("scan --node " + node_ + " --tree t");
  EXPECT_EQ(scan.code, 0) << scan.err;
  EXPECT_EQ(scan.out, "a\t1\nb\ttwo words\n");
  CliRun scan_from = run("scan --node " + node_ + " --tree t --from b --limit 5");
  EXPECT_EQ(scan_from.out, "b\ttwo words\n");

  CliRun del = run("del --node " + node_ + " alpha");
  EXPECT_EQ(del.code, 0) << del.err;
  EXPECT_EQ(run("get --node " + node_ + " alpha").code, 1);

  CliRun status = run("status --node " + node_);
  EXPECT_EQ(status.code, 0) << status.err;
  EXPECT_NE(status.out.find("role: leader"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("address: " + node_), std::string::npos) << status.out;
}

TEST_F(NodeCliTest, ErrorsExitTwoWithAMessage) {
  CliRun bad_batch = run("batch --node " + node_, "put a 1\nfrob x\n");
  EXPECT_EQ(bad_batch.code, 2);
  EXPECT_NE(bad_batch.err.find("line 2"), std::string::npos) << bad_batch.err;
  CliRun system = run("get --node " + node_ + " --tree ordo.replica applied_index");
  EXPECT_EQ(system.code, 2);
  EXPECT_NE(system.err.find("the replica's own"), std::string::npos) << system.err;
  CliRun no_value = run("batch --node " + node_, "put a 1\nput b\n");
  EXPECT_EQ(no_value.code, 2);
  EXPECT_NE(no_value.err.find("line 2: 'put b' needs a value"), std::string::npos) << no_value.err;

  CliRun no_node = run("put k v");
  EXPECT_EQ(no_node.code, 2);
  EXPECT_NE(no_node.err.find("--node"), std::string::npos) << no_node.err;

  Result<uint16_t> dead = sys::pick_free_port_run(1);
  ASSERT_TRUE(dead.is_ok()) << dead.status().to_string();
  std::string dead_node = "127.0.0.1:" + std::to_string(*dead);
  CliRun refused = run("put --node " + dead_node + " k v");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("failed"), std::string::npos) << refused.err;

  // A refused node first in the list: one node of two is no majority to
  // take the cluster id from, so the client refuses; named, the next one
  // takes the write.
  CliRun no_majority = run("put --node " + dead_node + "," + node_ + " k v");
  EXPECT_EQ(no_majority.code, 2);
  EXPECT_NE(no_majority.err.find("no cluster id is held by a majority of the 2 nodes given"),
            std::string::npos)
      << no_majority.err;
  const std::string status = run("status --node " + node_).out;
  const size_t at = status.find("cluster_id: ");
  ASSERT_NE(at, std::string::npos) << status;
  const std::string id = status.substr(at + 12, 32);
  CliRun second = run("put --node " + dead_node + "," + node_ + " --cluster-id " + id + " k v");
  EXPECT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(run("get --node " + node_ + " k").out, "v\n");

  CliRun bad_address = run("get --node nowhere k");
  EXPECT_EQ(bad_address.code, 2);
  EXPECT_NE(bad_address.err.find("nowhere"), std::string::npos) << bad_address.err;
}

TEST_F(NodeCliTest, ServerRejectsBadOptions) {
  CliRun no_self =
      run("--id 4 --data " + dir_.file("x") + " --listen 127.0.0.1:7001 --peers 1=127.0.0.1:7001");
  EXPECT_EQ(no_self.code, 1);
  EXPECT_NE(no_self.err.find("--peers must list this node"), std::string::npos) << no_self.err;
  CliRun bad_peer =
      run("--id 1 --data " + dir_.file("x") + " --listen 127.0.0.1:7001 --peers 1=127.0.0.1");
  EXPECT_EQ(bad_peer.code, 1);
  EXPECT_NE(bad_peer.err.find("not IPv4:port"), std::string::npos) << bad_peer.err;
  CliRun twice = run("--id 1 --data " + dir_.file("x") +
                     " --listen 127.0.0.1:7001 --peers 1=127.0.0.1:7001,1=127.0.0.1:7011");
  EXPECT_EQ(twice.code, 1);
  EXPECT_NE(twice.err.find("given twice"), std::string::npos) << twice.err;
  CliRun high = run("--id 1 --data " + dir_.file("x") +
                    " --listen 127.0.0.1:65534 --peers 1=127.0.0.1:65534");
  EXPECT_EQ(high.code, 1);
  EXPECT_NE(high.err.find("65535"), std::string::npos) << high.err;
  CliRun timeouts =
      run("--id 1 --data " + dir_.file("x") + " --listen 127.0.0.1:7001 --peers 1=127.0.0.1:7001" +
          " --election-timeout-ms 100 --heartbeat-timeout-ms 80");
  EXPECT_EQ(timeouts.code, 1);
  EXPECT_NE(timeouts.err.find("twice"), std::string::npos) << timeouts.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("x"))) << "nothing is made for a bad command line";
  // The client port of a running node is taken.
  CliRun in_use =
      run("--id 1 --data " + dir_.file("y") + " --listen " + node_ + " --peers 1=" + node_);
  EXPECT_EQ(in_use.code, 1);
  EXPECT_NE(in_use.err.find(node_), std::string::npos) << in_use.err;
}

// A node reachable from the network (any --listen outside 127.0.0.0/8)
// refuses to start without TLS and a cluster secret, unless --insecure.
TEST(NodeServerTest, ANonLoopbackAddressNeedsTlsAndASecret) {
  testing::TempDir dir;
  Result<uint16_t> port = sys::pick_free_port_run(3);
  ASSERT_TRUE(port.is_ok()) << port.status().to_string();
  const std::string any = "0.0.0.0:" + std::to_string(*port);
  const std::string node =
      "--id 1 --listen " + any + " --peers 1=" + any + " --initial-cluster-state new --data ";
  CliRun plain = run_node_cli(node + dir.file("plain"));
  EXPECT_EQ(plain.code, 1);
  for (const char* named :
       {"not a loopback address", "--tls-cert", "--cluster-secret-file", "--insecure"}) {
    EXPECT_NE(plain.err.find(named), std::string::npos) << named << ": " << plain.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("plain"))) << "nothing is made";
  // TLS alone is not enough (the Raft port and removal notices need the secret).
  CliRun tls_only = run_node_cli(node + dir.file("tls") + " --tls-cert c.pem --tls-key k.pem" +
                                 " --tls-ca ca.pem");
  EXPECT_EQ(tls_only.code, 1);
  EXPECT_NE(tls_only.err.find("not a loopback address"), std::string::npos) << tls_only.err;
  // --insecure passes the check: the start fails later, on the data directory.
  std::ofstream(dir.file("a-file")) << "x";
  CliRun insecure = run_node_cli(node + dir.file("a-file") + "/sub --insecure");
  EXPECT_EQ(insecure.code, 1);
  EXPECT_EQ(insecure.err.find("not a loopback address"), std::string::npos) << insecure.err;
  EXPECT_NE(insecure.err.find("cannot open the replica"), std::string::npos) << insecure.err;
}

TEST(NodeServerTest, SigtermShutsDownInOrderWithExitZero) {
  testing::TempDir dir;
  LocalClusterOptions o;
  o.binary = ORDO_NODE_BINARY;
  o.root = dir.path();
  o.nodes = 1;
  LocalCluster cluster(o);
  Status started = cluster.start();
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  auto read_log = [&] {
    std::stringstream text;
    text << std::ifstream(cluster.log_path(1)).rdbuf();
    return text.str();
  };
  EXPECT_NE(read_log().find("ordo-node 1 listening on " + cluster.address(1)), std::string::npos)
      << read_log();

  Result<sys::ChildExit> ended = cluster.terminate(1, 10s);
  ASSERT_TRUE(ended.is_ok()) << ended.status().to_string();
  EXPECT_TRUE(ended->ok()) << ended->how_it_ended() << ": " << read_log();
  EXPECT_NE(read_log().find("stopped"), std::string::npos) << read_log();
  EXPECT_EQ(cluster.pid(1), 0);
}

// More entries than the server's cap per reply (10,000): the CLI pages
// until --limit entries, or all of them with --limit 0.
TEST_F(NodeCliTest, ScanPagesPastTheServersCap) {
  std::string lines;
  char key[32];
  for (int i = 0; i < 10050; ++i) {
    std::snprintf(key, sizeof key, "k%06d", i);
    lines += std::string("put ") + key + " v\n";
  }
  CliRun batch = run("batch --tree many --node " + node_, lines);
  ASSERT_EQ(batch.code, 0) << batch.err;
  auto count = [](const std::string& out) {
    return static_cast<size_t>(std::count(out.begin(), out.end(), '\n'));
  };
  CliRun all = run("scan --tree many --node " + node_);
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_EQ(count(all.out), 10050u);
  EXPECT_NE(all.out.find("k010049\tv\n"), std::string::npos);
  CliRun some = run("scan --tree many --limit 10020 --node " + node_);
  ASSERT_EQ(some.code, 0) << some.err;
  EXPECT_EQ(count(some.out), 10020u);
  CliRun few = run("scan --tree many --limit 3 --from k000100 --node " + node_);
  EXPECT_EQ(few.out, "k000100\tv\nk000101\tv\nk000102\tv\n");
}

TEST_F(NodeCliTest, ScanAndGetEscapeKeysAndValues) {
  // A batch line's value is the rest of the line: a tab stays in it. The
  // key with a newline comes from printf through sh.
  CliRun batch = run("batch --node " + node_, "put plain value one\nput tab a\tb\n");
  ASSERT_EQ(batch.code, 0) << batch.err;
  CliRun put = run("put --node " + node_ +
                   " \"$(printf 'line\\nkey')\" \"$(printf 'back\\\\slash\\001\\377')\"");
  ASSERT_EQ(put.code, 0) << put.err;

  CliRun scan = run("scan --node " + node_);
  ASSERT_EQ(scan.code, 0) << scan.err;
  EXPECT_EQ(scan.out, "line\\nkey\tback\\\\slash\\x01\\xff\nplain\tvalue one\ntab\ta\\tb\n");

  CliRun hex = run("scan --hex --node " + node_ + " --from plain --limit 1");
  ASSERT_EQ(hex.code, 0) << hex.err;
  EXPECT_EQ(hex.out, "706c61696e\t76616c7565206f6e65\n");

  CliRun get = run("get --node " + node_ + " tab");
  EXPECT_EQ(get.code, 0) << get.err;
  EXPECT_EQ(get.out, "a\\tb\n");
  CliRun raw = run("get --raw --node " + node_ + " tab");
  EXPECT_EQ(raw.code, 0) << raw.err;
  EXPECT_EQ(raw.out, "a\tb\n");
}

TEST_F(NodeCliTest, AddOfAnUnreachableIdHonoursTheTimeoutAndIsUndone) {
  // Nothing listens on the new member's ports: they are bound here, without
  // listen(2), for the whole test, so no node of a test running beside this
  // one can take them (a connect is refused).
  Result<uint16_t> port = sys::pick_free_port_run(3);
  ASSERT_TRUE(port.is_ok()) << port.status().to_string();
  std::vector<int> held;
  for (int i = 0; i < 3; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    held.push_back(fd);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(*port + i));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0) << *port + i;
  }
  struct CloseAll {
    std::vector<int>& fds;
    ~CloseAll() {
      for (int fd : fds) ::close(fd);
    }
  } close_all{held};
  const std::string address = "127.0.0.1:" + std::to_string(*port);
  const auto start = std::chrono::steady_clock::now();
  CliRun add = run("add --node " + node_ + " --timeout-ms 3000 --id 7 --address " + address);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(add.code, 2);
  EXPECT_NE(add.err.find("member 7 did not catch up in"), std::string::npos) << add.err;
  EXPECT_NE(add.err.find("not added"), std::string::npos) << add.err;
  EXPECT_LT(took, 10s);  // the server's own limit would be 20 s
  CliRun status = run("status --node " + node_);
  ASSERT_EQ(status.code, 0) << status.err;
  EXPECT_EQ(status.out.find("7="), std::string::npos) << status.out;
  for (const char* counter : {"disk_errors: 0", "raft_log_bytes: ", "unapplied_bytes: ",
                              "proposals_refused: 0", "raft_restarts: 0"}) {
    EXPECT_NE(status.out.find(counter), std::string::npos) << counter << " in " << status.out;
  }
}

}  // namespace
}  // namespace ordo::node
