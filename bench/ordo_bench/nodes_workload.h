// The nodes workload of BENCHMARKING.md: create N nodes in a hierarchy of
// fan-out F, each a 64-byte record in tree "nodes" (ID -> parent ID, name,
// padding) plus an entry in tree "children" ((parent ID, name) -> ID),
// committing durably every C nodes, or (--one-txn) once after the last node.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "id_array.h"
#include "ordo/database.h"
#include "ordo/uuid.h"
#include "phase_memory.h"
#include "system_figures.h"

namespace ordo::bench {

enum class IdKind {
  kSeq,     // WriteTxn::next_id(): UUIDv7, time-ordered
  kRandom,  // UUIDv4-like from a seeded std::mt19937_64
};

// "seq" or "random".
std::string_view id_kind_name(IdKind kind);

struct NodesConfig {
  uint64_t nodes = 1'000'000;
  uint64_t fanout = 20;
  uint64_t commit_every = 10'000;
  uint64_t window_nodes = 100'000;  // width of one point of the curve
  uint64_t seed = 42;               // of the random IDs
  // All nodes in one write txn, committed once at the end (commit_every is
  // ignored). The ID array is then file-backed (IdArray), so that RssAnon
  // shows the engine's memory, not the workload's.
  bool one_txn = false;
  // Options::txn_memory_budget_bytes of the load.
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
  Stats stats;
  DatabaseInfo info;
  ProcessMemory memory;
};

// Creates the database at `path` (durable options, the configured txn
// budget), loads it, storing node i's ID in ids[i], and closes it. Samples
// `memory` every 10,000 nodes; with one_txn, begins its "commit" phase before
// the commit (the caller begins "load"). Any engine error is returned as is.
// REQUIRES: ids.size() == config.nodes.
Result<LoadResult> load_nodes(const std::string& path, const NodesConfig& config, IdKind kind,
                              IdArray& ids, PhaseMemory& memory);

// The file as reopened after the load.
struct VerifyResult {
  TreeStats nodes;
  TreeStats children;
  uint64_t used_bytes = 0;  // pages in use x page size
};

// Reopens `path` read-only and checks that both trees hold exactly
// ids.size() entries and that a sample of node records reads back with the
// right parent. Corruption naming the first mismatch otherwise.
Result<VerifyResult> verify_nodes(const std::string& path, const NodesConfig& config,
                                  std::span<const Uuid> ids);

// One run: one ID kind on one fresh file.
struct NodesRun {
  IdKind ids = IdKind::kSeq;
  std::string path;
  uint64_t nodes = 0;
  double seconds = 0;
  double load_seconds = 0;
  double commit_seconds = 0;
  std::vector<CurvePoint> curve;
  FileUsage usage;
  VerifyResult tree;
  Stats stats;
  DatabaseInfo info;
  ProcessMemory memory;              // at the end of the load
  ProcessMemory memory_before;       // before the load began (the process's own base)
  std::vector<PhaseFigures> phases;  // load[, commit], verify
  std::string ids_storage;           // IdArray::storage()

  double nodes_per_s() const { return seconds > 0 ? static_cast<double>(nodes) / seconds : 0; }
  // Apparent file size per node; includes the preallocated, unused extent.
  double bytes_per_node() const {
    return nodes > 0 ? static_cast<double>(usage.file_bytes) / static_cast<double>(nodes) : 0;
  }
  // Pages in use per node: the figure that preallocation does not blur.
  double used_bytes_per_node() const {
    return nodes > 0 ? static_cast<double>(tree.used_bytes) / static_cast<double>(nodes) : 0;
  }
};

}  // namespace ordo::bench
