// The nodes workload of docs/BENCHMARKS.md: create N nodes in a hierarchy of
// fan-out F, each a 64-byte record in tree "nodes" (ID -> parent ID, name,
// padding) plus an entry in tree "children" ((parent ID, name) -> ID),
// committing durably every C nodes, or (--one-txn) once after the last node.
// Runs on any engine of kv_registry.h with the same IDs, records and commit
// points; the figures only ordo has (Stats, tree shape) are kept for ordo.
// With edge IDs (--ids edges) each node after the first also gets 1..8 edges
// to distinct random earlier nodes in tree "edges": key (node ID, destination
// ID), 32 bytes, value 0..16 bytes, put in random order: keys that ascend by
// their first 16 bytes only. Its leaf fill is reported for every engine that
// has pages (KvEngine::table_shape).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "id_array.h"
#include "kv_engine.h"
#include "ordo/database.h"
#include "ordo/uuid.h"
#include "phase_memory.h"
#include "system_figures.h"

namespace ordo::bench {

enum class IdKind {
  kSeq,     // UUIDv7, time-ordered: WriteTxn::next_id() on ordo, a UuidV7Generator on peers
  kRandom,  // UUIDv4-like from a seeded std::mt19937_64
  kEdges,   // as kSeq, plus the edges of each node (tree "edges")
};

// "seq", "random" or "edges".
std::string_view id_kind_name(IdKind kind);

struct NodesConfig {
  std::string engine = "ordo";  // a name of kv_registry.h
  uint64_t nodes = 1'000'000;
  uint64_t fanout = 20;
  uint64_t commit_every = 10'000;
  uint64_t window_nodes = 100'000;  // width of one point of the curve
  uint64_t seed = 42;               // of the random IDs, and of the edges
  // All nodes in one write txn, committed once at the end (commit_every is
  // ignored). The ID array is then file-backed (IdArray), so that RssAnon
  // shows the engine's memory, not the workload's.
  bool one_txn = false;
  // Options::txn_memory_budget_bytes of the load (ordo only).
  uint64_t txn_budget_bytes = Options{}.txn_memory_budget_bytes;
};

// Load speed over one window of nodes, ending at node count `at`.
struct CurvePoint {
  uint64_t at = 0;
  double nodes_per_s = 0;
};

// The timed load and what the engine and the process looked like at its end.
struct LoadResult {
  double seconds = 0;         // first put to the end of the last commit
  double load_seconds = 0;    // --one-txn: the puts; else the same as seconds
  double commit_seconds = 0;  // --one-txn: the one commit
  std::vector<CurvePoint> curve;
  Stats stats;        // ordo only
  DatabaseInfo info;  // ordo only
  ProcessMemory memory;
  // Bytes passed to write calls from the first put to the end of the last
  // commit (process_write_call_bytes()): the same count for every engine.
  uint64_t write_call_bytes = 0;
  std::vector<std::pair<std::string, double>> counters;  // KvEngine::counters()
  uint64_t edges = 0;                                    // edge IDs: edges put
};

// Creates the store of config.engine at `path` (durable; for ordo the
// configured txn budget), loads it, storing node i's ID in ids[i], and closes
// it (the close is not timed). Samples
// `memory` every 10,000 nodes; with one_txn, begins its "commit" phase before
// the commit (the caller begins "load"). Any engine error is returned as is.
// REQUIRES: ids.size() == config.nodes.
Result<LoadResult> load_nodes(const std::string& path, const NodesConfig& config, IdKind kind,
                              IdArray& ids, PhaseMemory& memory);

// The store as reopened after the load.
struct VerifyResult {
  uint64_t nodes_entries = 0;     // counted by a full scan
  uint64_t children_entries = 0;  // counted by a full scan
  // ordo only:
  TreeStats nodes;
  TreeStats children;
  uint64_t used_bytes = 0;  // pages in use x page size
  // Edge IDs: counted by a full scan, and the shape of tree "edges".
  uint64_t edges_entries = 0;
  std::optional<TableShape> edges;
};

// Reopens the store at `path` and checks that both tables hold exactly
// ids.size() entries (full scans), with edge IDs that tree "edges" holds
// `edges`, and that a sample of node records reads back with the right
// parent. Corruption naming the first mismatch otherwise.
Result<VerifyResult> verify_nodes(const std::string& path, const NodesConfig& config,
                                  std::span<const Uuid> ids, IdKind kind, uint64_t edges);

// One run: one ID kind on one fresh file.
struct NodesRun {
  std::string engine;
  IdKind ids = IdKind::kSeq;
  std::string path;
  uint64_t nodes = 0;
  double seconds = 0;
  double load_seconds = 0;
  double commit_seconds = 0;
  std::vector<CurvePoint> curve;
  FileUsage usage;  // every file of the store (ordo: its one file)
  VerifyResult tree;
  Stats stats;
  DatabaseInfo info;
  ProcessMemory memory;              // at the end of the load
  uint64_t write_call_bytes = 0;     // LoadResult::write_call_bytes
  ProcessMemory memory_before;       // before the load began (the process's own base)
  std::vector<PhaseFigures> phases;  // load[, commit], verify
  std::vector<std::pair<std::string, double>> counters;  // KvEngine::counters()
  std::string ids_storage;                               // IdArray::storage()
  // Edge IDs: the edges put.
  uint64_t edges = 0;

  double nodes_per_s() const { return seconds > 0 ? static_cast<double>(nodes) / seconds : 0; }
  // Apparent file size per node; includes the preallocated, unused extent.
  double bytes_per_node() const {
    return nodes > 0 ? static_cast<double>(usage.file_bytes) / static_cast<double>(nodes) : 0;
  }
  double write_call_bytes_per_node() const {
    return nodes > 0 ? static_cast<double>(write_call_bytes) / static_cast<double>(nodes) : 0;
  }
  // Pages in use per node: the figure that preallocation does not blur.
  double used_bytes_per_node() const {
    return nodes > 0 ? static_cast<double>(tree.used_bytes) / static_cast<double>(nodes) : 0;
  }
};

}  // namespace ordo::bench
