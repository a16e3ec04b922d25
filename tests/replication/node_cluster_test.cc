// ordo-node processes on 127.0.0.1 (LocalCluster): writes through the
// client, reads from every node, redirects from followers, a killed leader,
// a restarted node catching up, and a malformed frame sent to a server.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <thread>
#include <vector>

#include "client.h"
#include "local_cluster.h"
#include "ordo/sys/socket.h"
#include "protocol.h"
#include "temp_dir.h"

namespace ordo::node {
namespace {

using namespace std::chrono_literals;
using replica::ReadMode;

LocalClusterOptions cluster_options(const std::string& root, int nodes) {
  LocalClusterOptions o;
  o.binary = ORDO_NODE_BINARY;
  o.root = root;
  o.nodes = nodes;
  o.extra_args = {"--election-timeout-ms", "600", "--heartbeat-timeout-ms", "60"};
  o.start_timeout = 15s;
  return o;
}

// Polls a local get on `node` until it returns `want` (or the time is up);
// returns the last value seen ("<code>" when not ok).
std::string wait_local_value(const std::string& node, const std::string& tree,
                             const std::string& key, const std::string& want) {
  Client c({node}, 1s);
  std::string last;
  for (auto until = std::chrono::steady_clock::now() + 10s;
       std::chrono::steady_clock::now() < until;) {
    Reply r = c.get(tree, key, ReadMode::kLocal);
    last = r.ok() ? r.value : std::string("<") + reply_code_name(r.code) + ">";
    if (last == want) return last;
    std::this_thread::sleep_for(50ms);
  }
  return last;
}

class NodeClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<LocalCluster>(cluster_options(dir_.path(), 3));
    Status s = cluster_->start();
    ASSERT_TRUE(s.is_ok()) << s.to_string();
  }
  testing::TempDir dir_;
  std::unique_ptr<LocalCluster> cluster_;
};

TEST_F(NodeClusterTest, WritesReachEveryNodeAndReadsFollow) {
  Client c(cluster_->addresses(), 5s);
  Reply put = c.put("", "k1", "v1");
  ASSERT_TRUE(put.ok()) << put.message;
  EXPECT_GT(put.index, 0u);

  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(wait_local_value(cluster_->address(i), "", "k1", "v1"), "v1") << "node " << i;
  }
  // A linearizable read sees the acknowledged write at once, from any node.
  Client follower_side({cluster_->address(1)}, 5s);
  Reply lin = follower_side.get("", "k1", ReadMode::kLinearizable);
  ASSERT_TRUE(lin.ok()) << lin.message;
  EXPECT_EQ(lin.value, "v1");
  EXPECT_GE(lin.index, put.index);

  EXPECT_EQ(c.get("", "missing", ReadMode::kLinearizable).code, Reply::Code::kNotFound);

  // put_new_id: 8-byte increasing keys holding the value.
  Reply id1 = c.put_new_id("ids", "first");
  Reply id2 = c.put_new_id("ids", "second");
  ASSERT_TRUE(id1.ok() && id2.ok()) << id1.message << " / " << id2.message;
  ASSERT_EQ(id1.value.size(), 8u);
  ASSERT_EQ(id2.value.size(), 8u);
  EXPECT_LT(id1.value, id2.value);
  Reply got = c.get("ids", id2.value, ReadMode::kLinearizable);
  ASSERT_TRUE(got.ok()) << got.message;
  EXPECT_EQ(got.value, "second");

  // batch: several ops, one entry.
  replica::WriteBatch b;
  for (char k = 'a'; k <= 'e'; ++k) b.put("t", std::string(1, k), std::string(3, k));
  b.del("", "k1");
  Reply br = c.batch(b);
  ASSERT_TRUE(br.ok()) << br.message;
  EXPECT_GT(br.index, put.index);
  EXPECT_EQ(c.get("", "k1", ReadMode::kLinearizable).code, Reply::Code::kNotFound);

  // scan from "b", three entries.
  Reply sc = c.scan("t", "b", 3, ReadMode::kLinearizable);
  ASSERT_TRUE(sc.ok()) << sc.message;
  ASSERT_EQ(sc.entries.size(), 3u);
  EXPECT_EQ(sc.entries[0], std::make_pair(std::string("b"), std::string("bbb")));
  EXPECT_EQ(sc.entries[2], std::make_pair(std::string("d"), std::string("ddd")));
  EXPECT_EQ(c.scan("no-such-tree", "", 10, ReadMode::kLinearizable).code, Reply::Code::kNotFound);

  // Every node ends with the same scan.
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(wait_local_value(cluster_->address(i), "t", "e", "eee"), "eee") << "node " << i;
    Client one({cluster_->address(i)}, 2s);
    Reply s = one.scan("t", "", 0, ReadMode::kLocal);
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_EQ(s.entries.size(), 5u) << "node " << i;
  }
}

TEST_F(NodeClusterTest, FollowersRedirectWritesToTheLeader) {
  int leader = cluster_->leader(5s);
  ASSERT_NE(leader, 0);
  int follower = leader == 1 ? 2 : 1;
  Client c({cluster_->address(follower)}, 5s);
  Reply r = c.put("", "via-follower", "x");
  ASSERT_TRUE(r.ok()) << r.message;
  // The follower sent the client on: another node took the write (the
  // leader, unless an election under load moved it meanwhile).
  EXPECT_NE(r.node, cluster_->address(follower));
  EXPECT_NE(r.node, "");

  // The follower's status names the leader (polled: it learns of a new
  // leader by its first heartbeat).
  Client status_client({cluster_->address(follower)}, 2s);
  std::string text;
  for (auto until = std::chrono::steady_clock::now() + 5s;
       std::chrono::steady_clock::now() < until;) {
    Reply st = status_client.status();
    ASSERT_TRUE(st.ok()) << st.message;
    text = st.value;
    int now_leader = cluster_->leader(2s);
    if (now_leader != follower && now_leader != 0 &&
        text.find("role: follower") != std::string::npos &&
        text.find("leader: " + cluster_->address(now_leader) + "\n") != std::string::npos) {
      break;
    }
    text.clear();
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_NE(text, "") << "the follower's status never named the leader";
}

TEST_F(NodeClusterTest, KilledLeaderIsReplacedAndCatchesUpAfterRestart) {
  Client c(cluster_->addresses(), 5s);
  ASSERT_TRUE(c.put("", "before", "1").ok());
  int old_leader = cluster_->leader(5s);
  ASSERT_NE(old_leader, 0);
  ASSERT_TRUE(cluster_->kill(old_leader).is_ok());
  EXPECT_EQ(cluster_->pid(old_leader), 0);

  int new_leader = cluster_->leader(10s);
  ASSERT_NE(new_leader, 0);
  EXPECT_NE(new_leader, old_leader);
  // The dead leader's Raft connections closed: the first survivor in id
  // order campaigned at once rather than after its election timer.
  const int first_survivor = old_leader == 1 ? 2 : 1;
  const std::string log = testing::read_text(cluster_->log_path(first_survivor));
  EXPECT_NE(log.find("leader " + std::to_string(old_leader) +
                     " closed its Raft connection; starting an election"),
            std::string::npos)
      << log;
  Reply after;
  for (auto until = std::chrono::steady_clock::now() + 10s;
       std::chrono::steady_clock::now() < until;) {
    after = c.put("", "after", "2");
    if (after.ok()) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(after.ok()) << reply_code_name(after.code) << ": " << after.message;
  Reply before = c.get("", "before", ReadMode::kLinearizable);
  ASSERT_TRUE(before.ok()) << before.message;
  EXPECT_EQ(before.value, "1");

  Status restarted = cluster_->restart(old_leader);
  ASSERT_TRUE(restarted.is_ok()) << restarted.to_string();
  EXPECT_EQ(wait_local_value(cluster_->address(old_leader), "", "after", "2"), "2");
  EXPECT_EQ(wait_local_value(cluster_->address(old_leader), "", "before", "1"), "1");
}

TEST_F(NodeClusterTest, StoppedFollowerDoesNotBlockWritesAndCatchesUpWhenResumed) {
  int leader = cluster_->leader(5s);
  ASSERT_NE(leader, 0);
  int follower = leader == 1 ? 2 : 1;
  ASSERT_TRUE(cluster_->stop(follower).is_ok());
  Client c({cluster_->address(leader)}, 5s);
  for (int i = 0; i < 10; ++i) {
    Reply r = c.put("", "s" + std::to_string(i), "v");
    ASSERT_TRUE(r.ok()) << i << ": " << reply_code_name(r.code) << ": " << r.message;
  }
  ASSERT_TRUE(cluster_->resume(follower).is_ok());
  EXPECT_EQ(wait_local_value(cluster_->address(follower), "", "s9", "v"), "v");
}

TEST_F(NodeClusterTest, AddedNodeCatchesUpAndRemovedNodeLeaves) {
  Client c(cluster_->addresses(), 5s);
  ASSERT_TRUE(c.put("", "early", "e").ok());
  auto added = cluster_->add_node();
  ASSERT_TRUE(added.is_ok()) << added.status().to_string();
  EXPECT_EQ(*added, 4);
  EXPECT_EQ(cluster_->size(), 4);
  EXPECT_EQ(wait_local_value(cluster_->address(4), "", "early", "e"), "e");
  Client via_new({cluster_->address(4)}, 5s);
  Reply late = via_new.put("", "late", "l");  // redirected to the leader
  ASSERT_TRUE(late.ok()) << late.message;
  EXPECT_EQ(wait_local_value(cluster_->address(4), "", "late", "l"), "l");

  Reply st = c.status();
  ASSERT_TRUE(st.ok());
  EXPECT_NE(st.value.find("4=" + cluster_->address(4)), std::string::npos) << st.value;

  Status removed = cluster_->remove_node(4);
  ASSERT_TRUE(removed.is_ok()) << removed.to_string();
  EXPECT_EQ(cluster_->pid(4), 0);
  Client three({cluster_->address(1), cluster_->address(2), cluster_->address(3)}, 5s);
  Reply after = three.put("", "after-remove", "x");
  ASSERT_TRUE(after.ok()) << after.message;
  Reply st2 = three.status();
  EXPECT_EQ(st2.value.find("4=" + cluster_->address(4)), std::string::npos) << st2.value;
}

// A member removed while it runs refuses the client's hello: a client that
// lists it first goes on to the next node instead of failing there.
TEST_F(NodeClusterTest, ARemovedNodeSendsClientsToTheNextNode) {
  Client c(cluster_->addresses(), 5s);
  ASSERT_TRUE(c.put("", "before", "b").ok());
  auto added = cluster_->add_node();
  ASSERT_TRUE(added.is_ok()) << added.status().to_string();
  const std::string removed = cluster_->address(*added);
  Reply gone = c.remove_member(static_cast<uint64_t>(*added));
  ASSERT_TRUE(gone.ok()) << gone.message;
  Client alone({removed}, 2s);
  std::string role;
  for (auto until = std::chrono::steady_clock::now() + 10s;
       role != "removed" && std::chrono::steady_clock::now() < until;) {
    Reply st = alone.status();
    if (st.ok()) role = st.value.substr(st.value.find("role: ") + 6, 7);
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(role, "removed");
  Client first({removed, cluster_->address(1), cluster_->address(2), cluster_->address(3)}, 5s);
  Reply put = first.put("", "after", "a");
  ASSERT_TRUE(put.ok()) << put.message;
  EXPECT_NE(put.node, removed);
  first.connect_to(removed);
  Reply get = first.get("", "before", replica::ReadMode::kLocal);
  ASSERT_TRUE(get.ok()) << get.message;
  EXPECT_EQ(get.value, "b");
  EXPECT_NE(get.node, removed);
  // Alone, it says why.
  Reply refused = alone.get("", "before", replica::ReadMode::kLocal);
  EXPECT_EQ(refused.code, Reply::Code::kFailed);
  EXPECT_NE(refused.message.find("removed from the cluster"), std::string::npos) << refused.message;
}

// A node that missed more entries than the leader keeps behind its snapshot
// catches up by fetching the leader's copy of the file (snapshot port P + 2).
TEST(NodeSnapshotTest, RestartedNodeFarBehindInstallsASnapshotCopy) {
  testing::TempDir dir;
  LocalClusterOptions o = cluster_options(dir.path(), 3);
  o.extra_args.insert(o.extra_args.end(),
                      {"--snapshot-threshold", "16", "--snapshot-trailing", "4"});
  LocalCluster cluster(o);
  Status started = cluster.start();
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  int leader = cluster.leader(5s);
  ASSERT_NE(leader, 0);
  int behind = leader == 3 ? 2 : 3;
  ASSERT_TRUE(cluster.kill(behind).is_ok());

  Client c(cluster.addresses(), 5s);
  for (int i = 0; i < 80; ++i) {
    Reply r = c.put("", "key" + std::to_string(i), "value" + std::to_string(i));
    ASSERT_TRUE(r.ok()) << i << ": " << reply_code_name(r.code) << ": " << r.message;
  }
  ASSERT_TRUE(cluster.restart(behind).is_ok());
  EXPECT_EQ(wait_local_value(cluster.address(behind), "", "key79", "value79"), "value79");
  EXPECT_EQ(wait_local_value(cluster.address(behind), "", "key0", "value0"), "value0");
  Client one({cluster.address(behind)}, 2s);
  Reply st = one.status();
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st.value.find("snapshots_installed: 0\n"), std::string::npos) << st.value;
}

TEST_F(NodeClusterTest, MalformedFrameGetsAFailedReplyAndTheServerGoesOn) {
  auto deadline = [] { return std::chrono::steady_clock::now() + 5s; };
  auto fd = sys::connect_to(cluster_->address(1), deadline());
  ASSERT_TRUE(fd.is_ok()) << fd.status().to_string();
  ASSERT_TRUE(write_frame(*fd, std::string("\x63garbage"), deadline()).is_ok());
  auto body = read_frame(*fd, deadline());
  ASSERT_TRUE(body.is_ok()) << body.status().to_string();
  auto reply = decode_reply(*body);
  ASSERT_TRUE(reply.is_ok());
  EXPECT_EQ(reply->code, ReplyCode::kFailed);
  EXPECT_NE(reply->message.find("unknown op 99"), std::string::npos) << reply->message;

  // An over-long length: a failed reply, then the server closes the connection.
  std::string huge("\xff\xff\xff\xff", 4);
  ASSERT_TRUE(sys::send_all(*fd, huge, deadline()).is_ok());
  auto body2 = read_frame(*fd, deadline());
  ASSERT_TRUE(body2.is_ok()) << body2.status().to_string();
  auto reply2 = decode_reply(*body2);
  ASSERT_TRUE(reply2.is_ok());
  EXPECT_EQ(reply2->code, ReplyCode::kFailed);
  EXPECT_NE(reply2->message.find("over the limit"), std::string::npos) << reply2->message;
  ::close(*fd);

  Client c({cluster_->address(1)}, 2s);
  EXPECT_TRUE(c.status().ok());
}

// VmRSS of a process in KiB (0 when unreadable).
long rss_kib(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/status").c_str(), "r");
  if (f == nullptr) return 0;
  char line[256];
  long kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  }
  std::fclose(f);
  return kib;
}

TEST_F(NodeClusterTest, DeclaredFrameLengthIsNotAllocatedBeforeItsBytesArrive) {
  auto deadline = [] { return std::chrono::steady_clock::now() + 5s; };
  pid_t pid = cluster_->pid(1);
  long before = rss_kib(pid);
  ASSERT_GT(before, 0);
  // Ten connections each declare a 60 MiB body and send 4 bytes of it.
  std::vector<int> fds;
  const uint32_t n = 60u << 20;
  std::string head{static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
                   static_cast<char>((n >> 16) & 0xff), static_cast<char>(n >> 24)};
  for (int i = 0; i < 10; ++i) {
    auto fd = sys::connect_to(cluster_->address(1), deadline());
    ASSERT_TRUE(fd.is_ok()) << fd.status().to_string();
    ASSERT_TRUE(sys::send_all(*fd, head + std::string("\x01", 1) + "abc", deadline()).is_ok());
    fds.push_back(*fd);
  }
  std::this_thread::sleep_for(500ms);
  long after = rss_kib(pid);
  for (int fd : fds) ::close(fd);
  std::printf("node RSS %ld KiB -> %ld KiB\n", before, after);
  EXPECT_LT(after - before, 32 * 1024) << "RSS grew from " << before << " to " << after << " KiB";
  Client c({cluster_->address(1)}, 2s);
  EXPECT_TRUE(c.status().ok());
}

TEST_F(NodeClusterTest, StoppedFirstNodeIsSkippedBeforeTheRequestIsSent) {
  Client warm(cluster_->addresses(), 5s);
  ASSERT_TRUE(warm.put("", "before", "1").ok());
  int leader = cluster_->leader(5s);
  ASSERT_NE(leader, 0);
  int stopped = leader == 1 ? 2 : 1;
  ASSERT_TRUE(cluster_->stop(stopped).is_ok());
  std::vector<std::string> nodes = {cluster_->address(stopped)};
  for (int i = 1; i <= 3; ++i) {
    if (i != stopped) nodes.push_back(cluster_->address(i));
  }
  Client c(nodes, 5s);
  auto start = std::chrono::steady_clock::now();
  Reply put = c.put("", "k", "v");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(put.ok()) << reply_code_name(put.code) << ": " << put.message;
  EXPECT_LT(took, 3s);
  ASSERT_TRUE(cluster_->resume(stopped).is_ok());
}

TEST(NodeConnectionsTest, IdleConnectionsAreClosedAndABusyNodeIsARefusal) {
  testing::TempDir dir;
  LocalClusterOptions o = cluster_options(dir.path(), 1);
  // Long enough that the refusal below is seen before the idle ones close,
  // on a machine busy enough that a request takes a second.
  o.extra_args.insert(o.extra_args.end(), {"--max-connections", "2", "--idle-timeout-ms", "6000"});
  LocalCluster cluster(o);
  ASSERT_TRUE(cluster.start().is_ok());
  auto deadline = [] { return std::chrono::steady_clock::now() + 5s; };
  std::vector<int> idle;
  const auto opened = std::chrono::steady_clock::now();
  for (int i = 0; i < 2; ++i) {
    auto fd = sys::connect_to(cluster.address(1), deadline());
    ASSERT_TRUE(fd.is_ok());
    idle.push_back(*fd);
  }
  {
    // Refused once the server has taken both idle connections (on a busy
    // machine its accepting thread may lag a little behind connect()).
    const auto until = opened + 4000ms;
    Reply r;
    do {
      std::this_thread::sleep_for(100ms);
      Client c({cluster.address(1)}, 1s);
      r = c.status();
    } while (r.code != Reply::Code::kFailed && std::chrono::steady_clock::now() < until);
    EXPECT_EQ(r.code, Reply::Code::kFailed);
    EXPECT_NE(r.message.find("too many connections"), std::string::npos) << r.message;
  }
  // The idle connections are closed after 6 s: room again.
  for (int fd : idle) {
    bool closed = false;
    for (auto until = opened + 20s; !closed && std::chrono::steady_clock::now() < until;) {
      std::this_thread::sleep_for(100ms);
      closed = sys::peer_closed(fd);
    }
    EXPECT_TRUE(closed);
    EXPECT_GE(std::chrono::steady_clock::now() - opened, 6s) << "closed before its idle timeout";
    ::close(fd);
  }
  Client c({cluster.address(1)}, 5s);
  Reply r = c.status();
  EXPECT_TRUE(r.ok()) << r.message;
}

}  // namespace
}  // namespace ordo::node
