// Writes through the client while a follower is stopped (SIGSTOP: the kernel
// still accepts its connections, nothing answers them). Prints how many puts
// were acknowledged in the window by one long-lived client and by a fresh
// client per put (as the command-line client does), the stopped follower
// first in both clients' node lists; asserts only that writes went on.
// ORDO_PAUSED_SECONDS sets each window (default 2).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "client.h"
#include "local_cluster.h"
#include "temp_dir.h"

namespace ordo::node {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::chrono::seconds window() {
  const char* env = std::getenv("ORDO_PAUSED_SECONDS");
  const long s = env != nullptr ? std::strtol(env, nullptr, 10) : 0;
  return std::chrono::seconds(s > 0 ? s : 2);
}

TEST(NodePausedFollower, WritesGoOnAroundAStoppedFollower) {
  testing::TempDir dir;
  LocalClusterOptions o;
  o.binary = ORDO_NODE_BINARY;
  o.root = dir.path();
  o.nodes = 3;
  o.extra_args = {"--election-timeout-ms", "600", "--heartbeat-timeout-ms", "60"};
  o.start_timeout = 15s;
  LocalCluster cluster(o);
  Status started = cluster.start();
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  const int leader = cluster.leader(10s);
  ASSERT_GT(leader, 0);
  const int paused = leader == 1 ? 2 : 1;
  std::vector<std::string> nodes = {cluster.address(paused)};
  for (int i = 1; i <= 3; ++i) {
    if (i != paused) nodes.push_back(cluster.address(i));
  }
  ASSERT_TRUE(cluster.stop(paused).is_ok());

  int long_lived_ok = 0;
  int long_lived_other = 0;
  {
    Client client(nodes, 3000ms);
    const auto until = Clock::now() + window();
    for (int n = 0; Clock::now() < until; ++n) {
      Reply r = client.put("", "a/" + std::to_string(n), "v");
      (r.ok() ? long_lived_ok : long_lived_other)++;
    }
  }
  int fresh_ok = 0;
  int fresh_other = 0;
  {
    const auto until = Clock::now() + window();
    for (int n = 0; Clock::now() < until; ++n) {
      Client client(nodes, 3000ms);
      Reply r = client.put("", "b/" + std::to_string(n), "v");
      (r.ok() ? fresh_ok : fresh_other)++;
    }
  }
  ASSERT_TRUE(cluster.resume(paused).is_ok());
  std::printf(
      "follower %d stopped, %lld s each: one client: %d puts acknowledged (%d not); "
      "a client per put: %d acknowledged (%d not)\n",
      paused, static_cast<long long>(window().count()), long_lived_ok, long_lived_other, fresh_ok,
      fresh_other);
  EXPECT_GT(long_lived_ok, 0);
  EXPECT_GT(fresh_ok, 0);
}

}  // namespace
}  // namespace ordo::node
