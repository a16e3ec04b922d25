// Replicas of one cluster in this process, on free 127.0.0.1 ports, in a
// temporary directory: open, close, find the leader, wait for applies.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ordo/replica.h"
#include "ordo/sys/node_ports.h"
#include "ordo/sys/ports.h"
#include "temp_dir.h"

namespace ordo::replica::testing_cluster {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

inline constexpr auto kWait = 20s;  // generous: two busy cores

// A Raft port R with R and its snapshot port R + 1 free on 127.0.0.1, none
// handed out before in this process (a replica listens on both only once it
// opens). Aborts when there is none: no cluster test can run without it.
inline uint16_t free_raft_port() {
  Result<uint16_t> port = sys::pick_free_port_run(sys::kReplicaPortCount);
  if (!port.is_ok()) {
    std::fprintf(stderr, "%s\n", port.status().to_string().c_str());
    std::abort();
  }
  return *port;
}

class Cluster {
 public:
  // `n` bootstrap members with ids 1..n; `tweak` adjusts each one's options.
  explicit Cluster(int n, std::function<void(ReplicaOptions&)> tweak = {})
      : tweak_(std::move(tweak)) {
    for (int i = 1; i <= n; ++i) add_slot(static_cast<uint64_t>(i));
    for (auto& [id, o] : options_) {
      for (int i = 1; i <= n; ++i)
        o.bootstrap.push_back(Member{static_cast<uint64_t>(i), options_[i].address, true});
    }
  }
  ~Cluster() {
    // Followers first, so that the leader is not re-elected around them.
    replicas_.clear();
  }

  // A member slot with no bootstrap list (to be added by add_member).
  uint64_t add_slot(uint64_t id) {
    ReplicaOptions o;
    o.id = id;
    o.address = "127.0.0.1:" + std::to_string(free_raft_port());
    o.dir = tmp_.file("r" + std::to_string(id));
    o.heartbeat_timeout_ms = 50;
    o.election_timeout_ms = 500;
    if (tweak_) tweak_(o);
    options_[id] = o;
    return id;
  }

  const ReplicaOptions& options(uint64_t id) { return options_[id]; }

  void open(uint64_t id) {
    auto r = Replica::open(options_[id]);
    ASSERT_TRUE(r.is_ok()) << "replica " << id << ": " << r.status().to_string();
    replicas_[id] = std::move(*r);
  }
  void open_all() {
    for (auto& [id, o] : options_) {
      if (!o.bootstrap.empty()) open(id);
    }
  }
  void close(uint64_t id) { replicas_.erase(id); }
  bool is_open(uint64_t id) const { return replicas_.count(id) != 0; }
  Replica& at(uint64_t id) { return *replicas_.at(id); }
  std::vector<uint64_t> open_ids() const {
    std::vector<uint64_t> ids;
    for (auto& [id, r] : replicas_) ids.push_back(id);
    return ids;
  }

  // The id of the leader once one open replica leads and every open replica
  // names it; 0 when none within `timeout`.
  uint64_t wait_leader(std::chrono::milliseconds timeout = kWait) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      uint64_t leader = 0;
      bool agreed = true;
      for (auto& [id, r] : replicas_) {
        ReplicaStatus s = r->status();
        if (s.role == Role::kLeader) leader = id;
      }
      if (leader != 0) {
        for (auto& [id, r] : replicas_) agreed = agreed && r->status().leader_id == leader;
        if (agreed) return leader;
      }
      std::this_thread::sleep_for(10ms);
    }
    return 0;
  }

  // Whether replica `id` applied up to `index` within `timeout`.
  bool wait_applied(uint64_t id, uint64_t index, std::chrono::milliseconds timeout = kWait) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      if (at(id).status().applied_index >= index) return true;
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }

  // Writes put(tree, key, value) through the leader, retrying while the
  // leader changes; returns the kApplied result (or the last failure).
  WriteResult put(const std::string& tree, const std::string& key, const std::string& value) {
    WriteBatch b;
    b.put(tree, key, value);
    return write(b);
  }
  WriteResult write(const WriteBatch& b) {
    WriteResult last;
    const auto deadline = Clock::now() + kWait;
    while (Clock::now() < deadline) {
      uint64_t leader = wait_leader();
      if (leader == 0) break;
      last = at(leader).write(b, 10s);
      if (last.outcome == Outcome::kApplied) return last;
      if (last.outcome == Outcome::kFailed && last.status.is_invalid_argument()) return last;
      std::this_thread::sleep_for(20ms);
    }
    return last;
  }

 private:
  ordo::testing::TempDir tmp_;
  std::function<void(ReplicaOptions&)> tweak_;
  std::map<uint64_t, ReplicaOptions> options_;
  std::map<uint64_t, std::unique_ptr<Replica>> replicas_;
};

// Every tree and entry of a view, as tree -> key -> value ("" = default tree).
using Contents = std::map<std::string, std::map<std::string, std::string>>;
inline Contents contents_of(ReadView& view) {
  Contents out;
  auto add_tree = [&](const std::string& name, const Tree& tree) {
    auto& entries = out[name];
    Status s = view.txn().scan(tree, KeyRange::all(), [&](ByteView k, ByteView v) {
      entries[k.str()] = v.str();
      return true;
    });
    EXPECT_TRUE(s.is_ok()) << s.to_string();
  };
  add_tree("", view.txn().default_tree());
  auto names = view.txn().list_trees();
  EXPECT_TRUE(names.is_ok());
  for (const std::string& name : *names) {
    auto tree = view.txn().open_tree(name);
    EXPECT_TRUE(tree.is_ok());
    add_tree(name, *tree);
  }
  return out;
}

inline Contents contents_of(Replica& r) {
  auto view = r.read(ReadMode::kLocal, 1s);
  EXPECT_TRUE(view.is_ok()) << view.status().to_string();
  return contents_of(*view);
}

// The changes replica `r` applied since its history began (its open, or the
// cluster's start), oldest first; their indexes never go down (the changes
// of one entry share its index).
inline std::vector<Change> applied_changes(Replica& r) {
  uint64_t from = 1;
  Result<WatchResult> w = r.watch(nullptr, from, 0, 1000000, size_t{1} << 30, 0ms);
  if (!w.is_ok() && w.status().is_not_found()) {
    // "compacted: oldest index N": the history starts at N.
    const std::string& m = w.status().message();
    const size_t at = m.find("oldest index ");
    EXPECT_NE(at, std::string::npos) << m;
    if (at == std::string::npos) return {};
    from = std::stoull(m.substr(at + 13));
    w = r.watch(nullptr, from, 0, 1000000, size_t{1} << 30, 0ms);
  }
  EXPECT_TRUE(w.is_ok()) << w.status().to_string();
  if (!w.is_ok()) return {};
  for (size_t i = 1; i < w->changes.size(); ++i) {
    EXPECT_GE(w->changes[i].index, w->changes[i - 1].index) << "change " << i;
  }
  return std::move(w->changes);
}

inline uint64_t txn_id_of(Replica& r) {
  auto view = r.read(ReadMode::kLocal, 1s);
  EXPECT_TRUE(view.is_ok()) << view.status().to_string();
  return view->txn().txn_id();
}

}  // namespace ordo::replica::testing_cluster
