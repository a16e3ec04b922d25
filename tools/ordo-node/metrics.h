// The node's metrics in the Prometheus text format (version 0.0.4), served
// over plain HTTP/1.0 on --metrics-listen: GET /metrics answers 200 with
// every numeric entry of the status reply as a gauge ordo_<name>, the role
// as ordo_role{role="..."} (1 for this node's role, 0 for the others),
// ordo_apply_error (1 while the node cannot
// apply an entry), and the counters of Metrics. Anything else is 404 (405
// for a method other than GET, 400 for a request that is not HTTP).
// docs/NODE.md lists the metrics.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ordo/status.h"
#include "protocol.h"

namespace ordo::node {

// Counters of the requests this process served. Thread-safe (relaxed
// atomics); never reset.
class Metrics {
 public:
  // Upper bounds of the latency histograms' buckets, in seconds (+Inf last).
  static constexpr std::array<double, 14> kBucketsSeconds = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

  // One request: by op and reply code; put, get and batch also by latency.
  void record_request(Op op, ReplyCode code, std::chrono::nanoseconds latency);
  // A write whose guard failed / whose apply failed alike on every replica.
  void record_compare_failed() { compare_failed_.fetch_add(1, std::memory_order_relaxed); }
  void record_apply_failed() { apply_failed_.fetch_add(1, std::memory_order_relaxed); }

  // The exposition text: `status` (name, value) entries as described
  // above, then the counters.
  std::string render(const std::vector<std::pair<std::string, std::string>>& status) const;

 private:
  static constexpr size_t kOps = 32;   // op bytes 0..31
  static constexpr size_t kCodes = 8;  // reply code bytes 0..7
  static constexpr size_t kTimed = 3;  // put, get, batch
  struct Histogram {
    std::array<std::atomic<uint64_t>, kBucketsSeconds.size() + 1> buckets{};  // +Inf last
    std::atomic<uint64_t> sum_ns{0};
  };
  std::array<std::array<std::atomic<uint64_t>, kCodes>, kOps> requests_{};
  std::array<Histogram, kTimed> latency_{};
  std::atomic<uint64_t> compare_failed_{0};
  std::atomic<uint64_t> apply_failed_{0};
};

// The process's counters.
Metrics& node_metrics();

// A blocking HTTP/1.0 responder on one thread: one connection at a time,
// each bounded (a request head of at most 8 KiB within 2 s, the reply sent
// within 2 s), then closed. Bytes that are not HTTP get 400 and a close;
// nothing a client sends stops the thread.
class MetricsServer {
 public:
  // Listens on `address` ("IPv4:port") and serves `render()` as /metrics.
  // IOError when the port is taken; InvalidArgument for a bad address.
  static Result<std::unique_ptr<MetricsServer>> start(const std::string& address,
                                                      std::function<std::string()> render);
  // Stops accepting, ends the connection in progress and joins the thread.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

 private:
  MetricsServer(int listen_fd, std::function<std::string()> render);
  void run();
  void serve(int fd);

  int listen_fd_;
  std::function<std::string()> render_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ordo::node
