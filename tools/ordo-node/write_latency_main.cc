// ordo-node-latency: the write path's latency on a local 3-node cluster.
// Starts ordo-node processes (LocalCluster) in a temporary directory, then
// for each client count runs that many threads, each with its own Client,
// putting 100-byte values under unique keys for --seconds, and prints
// puts/s, mean, p50, p99 and max latency in microseconds. Values are
// --value-bytes long (100 by default).
//
//   ordo-node-latency --binary build/tools/ordo-node/ordo-node --clients 1,16
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "client.h"
#include "local_cluster.h"
#include "ordo/sys/temp_dir.h"

namespace {

using Clock = std::chrono::steady_clock;

struct RunResult {
  std::vector<uint32_t> micros;  // one per acknowledged put
  uint64_t failed = 0;
  double seconds = 0;
};

RunResult run(const std::vector<std::string>& nodes, int clients, double seconds, int round,
              size_t value_bytes) {
  std::vector<std::vector<uint32_t>> per(static_cast<size_t>(clients));
  std::atomic<uint64_t> failed{0};
  const auto start = Clock::now();
  const auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      ordo::node::Client client(nodes, std::chrono::milliseconds(10000));
      const std::string value(value_bytes, 'v');
      std::vector<uint32_t>& out = per[static_cast<size_t>(c)];
      for (uint64_t i = 0; Clock::now() < end; ++i) {
        const std::string key =
            "r" + std::to_string(round) + "c" + std::to_string(c) + "-" + std::to_string(i);
        const auto t0 = Clock::now();
        ordo::node::Reply r = client.put("", key, value);
        const auto us =
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
        if (r.ok()) {
          out.push_back(static_cast<uint32_t>(us));
        } else {
          failed.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  RunResult result;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& v : per) result.micros.insert(result.micros.end(), v.begin(), v.end());
  result.failed = failed.load();
  return result;
}

uint32_t percentile(const std::vector<uint32_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1));
  return sorted[i];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ordo-node write latency on a local 3-node cluster"};
  std::string binary;
  std::string clients_text = "1,16";
  double seconds = 5;
  int rounds = 1;
  size_t value_bytes = 100;
  std::vector<std::string> node_args;
  app.add_option("--binary", binary, "path of the ordo-node executable")->required();
  app.add_option("--clients", clients_text, "client counts, comma-separated")
      ->capture_default_str();
  app.add_option("--seconds", seconds, "duration of each run")->capture_default_str();
  app.add_option("--rounds", rounds, "runs per client count")->capture_default_str();
  app.add_option("--value-bytes", value_bytes, "bytes per value")->capture_default_str();
  app.add_option("--node-arg", node_args, "extra argument for every node (repeatable)");
  CLI11_PARSE(app, argc, argv);

  std::vector<int> counts;
  std::stringstream ss(clients_text);
  for (std::string part; std::getline(ss, part, ',');) counts.push_back(std::atoi(part.c_str()));

  ordo::Result<ordo::sys::TempDir> root = ordo::sys::TempDir::make("ordo-latency-");
  if (!root.is_ok()) {
    std::fprintf(stderr, "%s\n", root.status().to_string().c_str());
    return 1;
  }
  int rc = 0;
  {
    ordo::node::LocalClusterOptions o;
    o.binary = binary;
    o.root = root->path();
    o.nodes = 3;
    o.extra_args = node_args;
    ordo::node::LocalCluster cluster(o);
    ordo::Status s = cluster.start();
    if (!s.is_ok()) {
      std::fprintf(stderr, "cluster start: %s\n", s.to_string().c_str());
      rc = 1;
    } else {
      int round = 0;
      for (int clients : counts) {
        for (int r = 0; r < rounds; ++r) {
          RunResult res = run(cluster.addresses(), clients, seconds, round++, value_bytes);
          std::sort(res.micros.begin(), res.micros.end());
          double mean = 0;
          for (uint32_t us : res.micros) mean += us;
          if (!res.micros.empty()) mean /= static_cast<double>(res.micros.size());
          std::printf(
              "clients %2d: %8.0f puts/s  mean %6.0f us  p50 %6u us  p99 %6u us  max %6u us  "
              "failed %llu\n",
              clients, static_cast<double>(res.micros.size()) / res.seconds, mean,
              percentile(res.micros, 0.50), percentile(res.micros, 0.99),
              res.micros.empty() ? 0 : res.micros.back(),
              static_cast<unsigned long long>(res.failed));
          std::fflush(stdout);
        }
      }
    }
  }
  return rc;
}
