// Memory of a 3-node ordo-node cluster while a follower is stopped
// (SIGSTOP) under write load: the leader's resident memory, sampled from
// /proc/PID/status, with the Raft log's byte budget and without it. A
// measurement (docs/REPLICATION.md, "Memory"), run only with
// ORDO_LONG_TESTS=1; ORDO_MEMORY_SECONDS sets the stop (default 60).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "client.h"
#include "local_cluster.h"
#include "temp_dir.h"

namespace ordo::node {
namespace {

using namespace std::chrono_literals;

struct Memory {
  uint64_t rss_kib = 0;
  uint64_t anon_kib = 0;
};

Memory memory_of(pid_t pid) {
  Memory m;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string name;
  uint64_t kib = 0;
  std::string unit;
  while (in >> name) {
    if (name == "VmRSS:" && in >> kib >> unit) m.rss_kib = kib;
    if (name == "RssAnon:" && in >> kib >> unit) m.anon_kib = kib;
  }
  return m;
}

// A numeric entry of the node's status (0 when missing).
uint64_t status_entry(Client& c, const std::string& name) {
  Reply r = c.status();
  for (const auto& [k, v] : r.entries) {
    if (k == name) return std::stoull(v);
  }
  return 0;
}

// Writes 16 KiB values from 4 threads while one follower is stopped for
// `seconds`; prints the leader's memory before, at its most and at the end.
// Returns the most anonymous memory the leader gained (KiB).
uint64_t run(const std::vector<std::string>& extra_args, const char* label) {
  const char* secs_env = std::getenv("ORDO_MEMORY_SECONDS");
  const int seconds = secs_env != nullptr ? std::atoi(secs_env) : 60;
  testing::TempDir dir;
  LocalClusterOptions o;
  o.binary = ORDO_NODE_BINARY;
  o.root = dir.path();
  o.nodes = 3;
  o.extra_args = extra_args;
  o.start_timeout = 30s;
  LocalCluster cluster(o);
  Status s = cluster.start();
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  if (!s.is_ok()) return 0;
  const int leader = cluster.leader(10s);
  EXPECT_NE(leader, 0);
  const int stopped = leader == 3 ? 2 : 3;
  const pid_t pid = cluster.pid(leader);

  std::atomic<bool> done{false};
  std::atomic<uint64_t> written_bytes{0};
  std::atomic<uint64_t> failed{0};
  const std::string value(16 << 10, 'v');
  auto writer = [&](int t) {
    Client c({cluster.address(leader)}, 10s);
    for (uint64_t i = 0; !done.load(); ++i) {
      Reply r = c.put("", "t" + std::to_string(t) + "-" + std::to_string(i % 4096), value);
      if (r.ok()) {
        written_bytes += value.size();
      } else {
        ++failed;
      }
    }
  };
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) writers.emplace_back(writer, t);
  std::this_thread::sleep_for(5s);
  const Memory before = memory_of(pid);
  const uint64_t written_before = written_bytes.load();
  EXPECT_TRUE(cluster.stop(stopped).is_ok());
  Memory most = before;
  Client status_client({cluster.address(leader)}, 5s);
  uint64_t most_log_bytes = 0;
  for (int i = 0; i < seconds; ++i) {
    std::this_thread::sleep_for(1s);
    Memory m = memory_of(pid);
    most.rss_kib = std::max(most.rss_kib, m.rss_kib);
    most.anon_kib = std::max(most.anon_kib, m.anon_kib);
    most_log_bytes = std::max(most_log_bytes, status_entry(status_client, "raft_log_bytes"));
  }
  const Memory end = memory_of(pid);
  const uint64_t written = written_bytes.load() - written_before;
  EXPECT_TRUE(cluster.resume(stopped).is_ok());
  done = true;
  for (auto& w : writers) w.join();
  // The stopped follower catches up: entries, or a snapshot copy when the
  // leader's log moved past it.
  const uint64_t target = status_entry(status_client, "applied_index");
  Client follower({cluster.address(stopped)}, 5s);
  const auto resumed = std::chrono::steady_clock::now();
  bool caught_up = false;
  while (!caught_up && std::chrono::steady_clock::now() - resumed < 120s) {
    caught_up = status_entry(follower, "applied_index") >= target;
    if (!caught_up) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(caught_up) << "follower " << stopped << " did not catch up";
  const double catch_up_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - resumed).count();
  const uint64_t installed = status_entry(follower, "snapshots_installed");
  std::printf(
      "%s: follower %d stopped %d s, %.1f MB written meanwhile (%llu writes failed); leader "
      "VmRSS %.1f -> max %.1f -> %.1f MiB, RssAnon %.1f -> max %.1f -> %.1f MiB, "
      "raft_log_bytes max %.1f MiB; the follower caught up in %.1f s (%llu snapshot "
      "installs)\n",
      label, stopped, seconds, static_cast<double>(written) / 1e6,
      static_cast<unsigned long long>(failed.load()), before.rss_kib / 1024.0,
      most.rss_kib / 1024.0, end.rss_kib / 1024.0, before.anon_kib / 1024.0, most.anon_kib / 1024.0,
      end.anon_kib / 1024.0, static_cast<double>(most_log_bytes) / (1 << 20), catch_up_s,
      static_cast<unsigned long long>(installed));
  return most.anon_kib > before.anon_kib ? most.anon_kib - before.anon_kib : 0;
}

TEST(NodeMemory, LeaderMemoryWhileAFollowerIsStopped) {
  if (std::getenv("ORDO_LONG_TESTS") == nullptr) {
    GTEST_SKIP() << "a 2-minute measurement: set ORDO_LONG_TESTS=1";
  }
  // Budgets small enough for a minute of writes to pass them.
  const uint64_t bounded_kib =
      run({"--snapshot-threshold-bytes", "16777216", "--snapshot-trailing-bytes", "4194304"},
          "budget 16 MiB + 4 MiB");
  // Entry counts alone (8192 entries of 16 KiB: 128 MiB before a snapshot).
  (void)run(
      {"--snapshot-threshold-bytes", "1099511627776", "--snapshot-trailing-bytes", "1099511627776"},
      "no byte budget");
  // The log's budget (20 MiB) and the unapplied budget (64 MiB) with room
  // for the process's own growth.
  EXPECT_LT(bounded_kib, 128u * 1024);
}

}  // namespace
}  // namespace ordo::node
