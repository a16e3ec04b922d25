// The workload of `ordo-bench replicated` on one store (one run of one arm):
// durable puts of unique 16-byte keys with 100-byte values for a fixed time
// with 1 client, then with 16 (a thread and a connection each, all connected
// first to the leader): puts/s, p50 and p99 latency; then the leader is
// killed (SIGKILL) while one client keeps writing, retrying against the other
// nodes: milliseconds from the kill to the next acknowledged put.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <vector>

#include "ordo/status.h"
#include "replicated_store.h"

namespace ordo::bench {

struct ReplicatedConfig {
  double seconds = 3.0;         // measured per client count
  double warmup_seconds = 0.5;  // before each measured window, not counted
  std::vector<int> clients = {1, 16};
  bool failover = true;
  std::chrono::milliseconds timeout{1000};  // per put
  // Per put in the failover phase: a put that hangs on a node without a
  // leader is given up after this and sent to the next node, so the figure
  // is not a multiple of the longer timeout.
  std::chrono::milliseconds failover_timeout{200};
  std::chrono::milliseconds retry_pause{5};  // after a put that failed
  std::chrono::milliseconds steady_before_kill{1000};
  std::chrono::milliseconds failover_limit{30000};  // no acknowledged put by then: an error
};

inline constexpr size_t kReplicatedKeyBytes = 16;
inline constexpr size_t kReplicatedValueBytes = 100;

// The key of put `seq` of client `client` in phase `phase`: 16 decimal
// digits, unique per (phase, client, seq) for phase, client < 100.
std::string replicated_key(int phase, int client, uint64_t seq);

// Runs the workload on a started store. The figures (a flat name -> number
// object): puts_per_s_C, p50_us_C, p99_us_C for each client count C, and
// failover_ms; "counts" holds the acknowledged and failed puts per phase and
// the nodes killed and elected. IOError when the store has no leader, a
// phase acknowledges no put at all, or no put is acknowledged within
// failover_limit after the kill.
Result<nlohmann::ordered_json> run_replicated(ReplicatedStore& store,
                                              const ReplicatedConfig& config);

}  // namespace ordo::bench
