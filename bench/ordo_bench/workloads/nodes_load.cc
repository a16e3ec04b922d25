// The timed part of the nodes workload.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <optional>
#include <random>
#include <utility>

#include "kv_registry.h"
#include "node_record.h"
#include "nodes_workload.h"
#include "ordo/database.h"
#include "ordo/uuid_v7_generator.h"

namespace ordo::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

double seconds_between(SteadyClock::time_point from, SteadyClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Records one curve point per `window` nodes, and one for a last partial window.
class CurveRecorder {
 public:
  CurveRecorder(uint64_t window, uint64_t total, SteadyClock::time_point start)
      : window_(window), total_(total), last_time_(start) {}

  void after_node(uint64_t done) {
    if (done % window_ != 0 && done != total_) return;
    const SteadyClock::time_point now = SteadyClock::now();
    const double s = seconds_between(last_time_, now);
    curve_.push_back({done, s > 0 ? static_cast<double>(done - last_at_) / s : 0});
    last_at_ = done;
    last_time_ = now;
  }

  std::vector<CurvePoint> take() { return std::move(curve_); }

 private:
  const uint64_t window_;
  const uint64_t total_;
  uint64_t last_at_ = 0;
  SteadyClock::time_point last_time_;
  std::vector<CurvePoint> curve_;
};

Status put_node(KvWrite& txn, TableId nodes, TableId children, uint64_t i, const Uuid& id,
                const Uuid& parent) {
  const std::string name = node_name(i);
  const auto value = node_value(parent, name);
  ORDO_RETURN_IF_ERROR(txn.put(nodes, id.view(), ByteView(value.data(), value.size())));
  return txn.put(children, child_key(parent, name), id.view());
}

// Edge IDs: the 1..8 edges of node i to distinct random earlier nodes, in
// random order; key (node ID, destination ID), value 0..16 bytes.
class EdgeWriter {
 public:
  explicit EdgeWriter(uint64_t seed) : rng_(seed) {}

  Status put_edges(KvWrite& txn, TableId edges, const IdArray& ids, uint64_t i) {
    const uint64_t n = std::min<uint64_t>(i, 1 + rng_() % 8);
    dests_.clear();
    while (dests_.size() < n) {
      const uint64_t d = rng_() % i;
      if (std::find(dests_.begin(), dests_.end(), d) == dests_.end()) dests_.push_back(d);
    }
    std::array<std::byte, 2 * Uuid::kSize> key;
    std::memcpy(key.data(), ids[i].view().data(), Uuid::kSize);
    std::array<std::byte, 16> value;
    for (const uint64_t d : dests_) {
      std::memcpy(key.data() + Uuid::kSize, ids[d].view().data(), Uuid::kSize);
      const uint64_t len = rng_() % (value.size() + 1);
      std::memset(value.data(), static_cast<int>(d & 0xff), len);
      ORDO_RETURN_IF_ERROR(
          txn.put(edges, ByteView(key.data(), key.size()), ByteView(value.data(), len)));
      ++count_;
    }
    return Status::ok();
  }
  uint64_t count() const { return count_; }

 private:
  std::mt19937_64 rng_;
  std::vector<uint64_t> dests_;
  uint64_t count_ = 0;
};

// The next node ID: ordo's own txn.next_id() where the engine has one, else
// the same UUIDv7 generator standalone, else a seeded UUIDv4-like ID.
class IdSource {
 public:
  IdSource(IdKind kind, uint64_t seed) : kind_(kind), rng_(seed) {}
  Uuid next(KvWrite& txn) {
    if (kind_ == IdKind::kRandom) return random_node_id(rng_);
    if (std::optional<Uuid> id = txn.engine_id()) return *id;
    return generator_.next();
  }

 private:
  const IdKind kind_;
  std::mt19937_64 rng_;
  UuidV7Generator generator_;
};

// Resident memory is sampled every this many nodes (and by the sampling
// thread of PhaseMemory every few milliseconds).
constexpr uint64_t kMemorySampleEvery = 10'000;

Result<LoadResult> load(KvEngine& db, const NodesConfig& config, IdKind kind, IdArray& ids,
                        PhaseMemory& memory) {
  LoadResult result;
  IdSource id_source(kind, config.seed);

  ORDO_ASSIGN_OR_RETURN(const TableId nodes, db.open_table("nodes"));
  ORDO_ASSIGN_OR_RETURN(const TableId children, db.open_table("children"));
  std::optional<TableId> edge_table;
  if (kind == IdKind::kEdges) {
    ORDO_ASSIGN_OR_RETURN(edge_table, db.open_table("edges"));
  }
  EdgeWriter edges(config.seed);
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvWrite> txn, db.begin_write());

  // Without --one-txn: a commit every commit_every nodes, and the curve
  // point of a window includes its commits. With it: one commit after the
  // last node, timed as its own phase and left out of the curve.
  const uint64_t write_call_bytes_before = process_write_call_bytes();
  const SteadyClock::time_point start = SteadyClock::now();
  CurveRecorder curve(config.window_nodes, config.nodes, start);
  for (uint64_t i = 0; i < config.nodes; ++i) {
    const Uuid id = id_source.next(*txn);
    const Uuid parent = i == 0 ? Uuid{} : ids[parent_index(i, config.fanout)];
    ids[i] = id;
    ORDO_RETURN_IF_ERROR(put_node(*txn, nodes, children, i, id, parent));
    if (edge_table && i > 0) ORDO_RETURN_IF_ERROR(edges.put_edges(*txn, *edge_table, ids, i));
    const uint64_t done = i + 1;
    if (done % kMemorySampleEvery == 0) memory.sample();
    if (config.one_txn) {
      curve.after_node(done);
      continue;
    }
    if (done % config.commit_every == 0 || done == config.nodes) {
      ORDO_RETURN_IF_ERROR(txn->commit());
      txn.reset();
      if (done != config.nodes) {
        ORDO_ASSIGN_OR_RETURN(txn, db.begin_write());
      }
    }
    curve.after_node(done);
  }
  if (config.one_txn) {
    result.load_seconds = seconds_between(start, SteadyClock::now());
    memory.begin("commit");
    const SteadyClock::time_point commit_start = SteadyClock::now();
    ORDO_RETURN_IF_ERROR(txn->commit());
    txn.reset();
    result.commit_seconds = seconds_between(commit_start, SteadyClock::now());
  }
  result.seconds = seconds_between(start, SteadyClock::now());
  result.write_call_bytes = process_write_call_bytes() - write_call_bytes_before;
  if (!config.one_txn) result.load_seconds = result.seconds;
  result.curve = curve.take();
  if (Database* ordo = db.ordo_database()) {
    result.stats = ordo->stats();
    result.info = ordo->info();
  }
  result.counters = db.counters();
  result.edges = edges.count();
  result.memory = process_memory();
  return result;
}

}  // namespace

std::string_view id_kind_name(IdKind kind) {
  switch (kind) {
    case IdKind::kSeq:
      return "seq";
    case IdKind::kRandom:
      return "random";
    case IdKind::kEdges:
      return "edges";
  }
  return "?";
}

Result<LoadResult> load_nodes(const std::string& path, const NodesConfig& config, IdKind kind,
                              IdArray& ids, PhaseMemory& memory) {
  if (ids.size() != config.nodes) {
    return Status::invalid_argument("the ID array does not hold one ID per node");
  }
  KvOptions options;
  options.ordo_txn_budget_bytes = config.txn_budget_bytes;
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvEngine> db, open_engine(config.engine, path, options));
  ORDO_ASSIGN_OR_RETURN(LoadResult result, load(*db, config, kind, ids, memory));
  ORDO_RETURN_IF_ERROR(db->close());  // inside the last phase
  return result;
}

}  // namespace ordo::bench
