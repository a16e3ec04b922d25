// A 3-node ordo-node cluster on 127.0.0.1 under faults: clients write while
// the leader is killed (SIGKILL) and restarted, a follower is stopped
// (SIGSTOP) for a while, and a follower is down while the others take
// 100,000 entries, so that it catches up by a snapshot install. A checker records every write as
// acknowledged, failed or unknown, and at the end reads every key from every
// node: each acknowledged write is there, no key holds a value nobody wrote,
// no failed write is there, and `ordo dump --all` of the three files is
// identical.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client.h"
#include "local_cluster.h"
#include "tools_test_util.h"

namespace ordo::testing {
namespace {

using namespace std::chrono_literals;
using node::Client;
using node::LocalCluster;
using node::LocalClusterOptions;
using node::Reply;

constexpr std::string_view kTree = "chaos";
// Keys written many times (by any writer) next to keys written once.
constexpr int kOverwrittenKeys = 64;
constexpr uint64_t kLagEntries = 100000;

struct Write {
  std::string key;
  std::string value;
  Reply::Code outcome;
  std::string message;  // why, when not acknowledged
};

// Every write any client made, with its outcome.
class History {
 public:
  void record(std::string key, std::string value, const Reply& reply) {
    const Reply::Code outcome = reply.code;
    std::lock_guard lock(mu_);
    writes_.push_back(
        Write{std::move(key), std::move(value), outcome,
              outcome == Reply::Code::kOk ? std::string() : reply.node + ": " + reply.message});
    if (outcome == Reply::Code::kOk) ++acked_;
  }
  uint64_t acked() const {
    std::lock_guard lock(mu_);
    return acked_;
  }
  std::vector<Write> writes() const {
    std::lock_guard lock(mu_);
    return writes_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Write> writes_;
  uint64_t acked_ = 0;
};

// Writers that put until stopped: most keys once ("u/<writer>/<n>"), some
// keys over and over ("o/<k>"); every value is unique.
class Writers {
 public:
  // `group` makes keys and values unique across groups of writers.
  Writers(std::string group, std::vector<std::string> nodes, History& history, int count,
          uint32_t seed)
      : group_(std::move(group)), nodes_(std::move(nodes)), history_(history) {
    for (int w = 0; w < count; ++w) {
      threads_.emplace_back([this, w, seed] { run(w, seed + static_cast<uint32_t>(w)); });
    }
  }
  ~Writers() { stop(); }
  void stop() {
    stop_ = true;
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  void run(int w, uint32_t seed) {
    Client client(nodes_, 3000ms);
    std::mt19937 rng(seed);
    for (uint64_t n = 0; !stop_; ++n) {
      std::string key = rng() % 5 == 0
                            ? "o/" + std::to_string(rng() % kOverwrittenKeys)
                            : "u/" + group_ + std::to_string(w) + "/" + std::to_string(n);
      std::string value = group_ + "w" + std::to_string(w) + "n" + std::to_string(n);
      value.resize(100, '.');
      Reply reply = client.put(kTree, key, value);
      history_.record(key, value, reply);
      if (!reply.ok()) std::this_thread::sleep_for(20ms);  // no leader for a moment
    }
  }

  std::string group_;
  std::vector<std::string> nodes_;
  History& history_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// A field of the status text ("name: value" lines), or "" when absent.
std::string status_field(const Reply& status, const std::string& name) {
  const std::string prefix = name + ": ";
  size_t at = 0;
  while (at < status.value.size()) {
    size_t end = status.value.find('\n', at);
    if (end == std::string::npos) end = status.value.size();
    std::string_view line(status.value.data() + at, end - at);
    if (line.substr(0, prefix.size()) == prefix) return std::string(line.substr(prefix.size()));
    at = end + 1;
  }
  return "";
}

uint64_t status_number(Client& client, const std::string& name) {
  Reply r = client.status();
  if (!r.ok()) return 0;
  std::string v = status_field(r, name);
  return v.empty() ? 0 : std::stoull(v);
}

// Every entry of the tree as node `address` holds it (local reads).
std::map<std::string, std::string> read_all(const std::string& address) {
  Client client({address}, 10000ms);
  std::map<std::string, std::string> entries;
  std::string from;
  for (;;) {
    Reply r = client.scan(kTree, from, 5000, replica::ReadMode::kLocal);
    EXPECT_TRUE(r.ok()) << address << ": " << r.message;
    if (!r.ok() || r.entries.empty()) break;
    for (auto& [k, v] : r.entries) entries[k] = v;
    from = r.entries.back().first + std::string(1, '\0');
  }
  return entries;
}

// Waits until every running node applied the same index, stable over a
// status round; returns it (0 on timeout).
uint64_t wait_converged(LocalCluster& cluster, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::set<uint64_t> applied;
    for (int i = 1; i <= cluster.size(); ++i) {
      Client c({cluster.address(i)}, 2000ms);
      applied.insert(status_number(c, "applied_index"));
    }
    if (applied.size() == 1 && *applied.begin() > 0) return *applied.begin();
    std::this_thread::sleep_for(200ms);
  }
  return 0;
}

int a_follower(LocalCluster& cluster) {
  const int leader = cluster.leader(10s);
  return leader == 1 ? 2 : 1;
}

TEST(ReplicationChaosTest, AcknowledgedWritesSurviveKillsStopsAndASnapshotCatchUp) {
  const uint32_t seed = static_cast<uint32_t>(std::random_device{}());
  std::printf("seed %u\n", seed);
  TempDir dir;
  LocalClusterOptions options;
  options.binary = ORDO_NODE_BINARY;
  options.root = dir.path();
  options.nodes = 3;
  options.extra_args = {"--snapshot-threshold",  "4096", "--snapshot-trailing",    "1024",
                        "--election-timeout-ms", "600",  "--heartbeat-timeout-ms", "60"};
  LocalCluster cluster(options);
  ASSERT_TRUE(cluster.start().ok());

  History history;
  {
    Writers writers("a", cluster.addresses(), history, 4, seed);
    std::this_thread::sleep_for(1s);

    // The leader dies mid-stream and comes back on its own files.
    const int leader = cluster.leader(10s);
    ASSERT_GT(leader, 0);
    ASSERT_TRUE(cluster.kill(leader).ok());
    std::this_thread::sleep_for(1500ms);
    ASSERT_GT(cluster.leader(15s), 0) << "no new leader after the kill";
    ASSERT_TRUE(cluster.restart(leader).ok());
    std::this_thread::sleep_for(1s);

    // A follower stops answering for a while.
    const int paused = a_follower(cluster);
    ASSERT_TRUE(cluster.stop(paused).ok());
    std::this_thread::sleep_for(2s);
    ASSERT_TRUE(cluster.resume(paused).ok());
    std::this_thread::sleep_for(1s);
    writers.stop();
  }

  // One follower falls kLagEntries entries behind: far past what the log
  // keeps (the trailing 1024), so only a snapshot install can bring it back.
  // It is killed rather than stopped: the leader's transport would queue the
  // entries for a stopped follower's open connection and deliver them all on
  // resume.
  const int lagging = a_follower(cluster);
  ASSERT_TRUE(cluster.kill(lagging).ok());
  {
    const uint64_t acked_before = history.acked();
    Writers bulk("b", cluster.addresses(), history, 16, seed + 1000);
    const auto deadline = std::chrono::steady_clock::now() + 240s;
    while (history.acked() - acked_before < kLagEntries &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(100ms);
    }
    bulk.stop();
    ASSERT_GE(history.acked() - acked_before, kLagEntries) << "the cluster wrote too slowly";
  }
  ASSERT_TRUE(cluster.restart(lagging).ok());

  const uint64_t applied = wait_converged(cluster, 120s);
  ASSERT_GT(applied, kLagEntries) << "the nodes did not converge";
  {
    Client c({cluster.address(lagging)}, 5000ms);
    Reply st = c.status();
    ASSERT_TRUE(st.ok()) << st.message;
    const std::string installed = status_field(st, "snapshots_installed");
    EXPECT_GT(installed.empty() ? 0 : std::stoull(installed), 0u)
        << "node " << lagging << " caught up without a snapshot install:\n"
        << st.value;
  }

  // The check: every node against the history.
  std::map<std::string, std::set<std::string>> written;  // key -> every value sent
  std::map<std::string, bool> acked_key;
  std::map<std::string, std::string> failed_values;  // value -> why it failed
  uint64_t counts[static_cast<int>(Reply::Code::kCompareFailed) + 1] = {};
  for (const Write& w : history.writes()) {
    written[w.key].insert(w.value);
    counts[static_cast<int>(w.outcome)]++;
    if (w.outcome == Reply::Code::kOk) acked_key[w.key] = true;
    if (w.outcome == Reply::Code::kFailed) failed_values[w.value] = w.message;
  }
  std::printf("writes: %llu acknowledged, %llu failed, %llu unknown\n",
              static_cast<unsigned long long>(counts[static_cast<int>(Reply::Code::kOk)]),
              static_cast<unsigned long long>(counts[static_cast<int>(Reply::Code::kFailed)]),
              static_cast<unsigned long long>(counts[static_cast<int>(Reply::Code::kUnknown)]));

  std::vector<std::map<std::string, std::string>> contents;
  for (int i = 1; i <= cluster.size(); ++i) contents.push_back(read_all(cluster.address(i)));
  for (int i = 0; i < cluster.size(); ++i) {
    SCOPED_TRACE("node " + std::to_string(i + 1));
    const auto& entries = contents[static_cast<size_t>(i)];
    uint64_t missing = 0, foreign = 0, resurrected = 0;
    for (const auto& [key, was_acked] : acked_key) {
      if (was_acked && entries.count(key) == 0) ++missing;
    }
    for (const auto& [key, value] : entries) {
      auto it = written.find(key);
      if (it == written.end() || it->second.count(value) == 0) ++foreign;
      if (auto f = failed_values.find(value); f != failed_values.end()) {
        if (++resurrected <= 3)
          ADD_FAILURE() << key << " holds a value whose write failed: " << f->second;
      }
    }
    // A key written once and acknowledged holds exactly its value.
    uint64_t wrong = 0;
    for (const Write& w : history.writes()) {
      if (w.outcome != Reply::Code::kOk || w.key.rfind("u/", 0) != 0) continue;
      auto it = entries.find(w.key);
      if (it != entries.end() && it->second != w.value) ++wrong;
    }
    EXPECT_EQ(missing, 0u) << "acknowledged keys missing";
    EXPECT_EQ(foreign, 0u) << "keys holding a value nobody wrote to them";
    EXPECT_EQ(resurrected, 0u) << "values of writes reported failed";
    EXPECT_EQ(wrong, 0u) << "acknowledged values replaced";
    EXPECT_EQ(entries, contents[0]) << "differs from node 1";
  }

  // The files themselves, byte for byte as dumped, once the nodes are gone.
  std::vector<std::string> data_files;
  for (int i = 1; i <= cluster.size(); ++i) {
    ASSERT_TRUE(cluster.kill(i).ok());
    data_files.push_back(cluster.data_dir(i) + "/data.ordo");
  }
  std::vector<std::string> dumps;
  for (const auto& file : data_files) {
    ProcessResult r = run_process({ORDO_TOOL_PATH, "dump", "--all", file});
    ASSERT_EQ(r.exit_code, 0) << file << ": " << r.err;
    dumps.push_back(r.out);
  }
  EXPECT_GT(dumps[0].size(), kLagEntries * 100);
  EXPECT_EQ(dumps[1], dumps[0]) << "node 2's dump differs from node 1's";
  EXPECT_EQ(dumps[2], dumps[0]) << "node 3's dump differs from node 1's";
}

}  // namespace
}  // namespace ordo::testing
