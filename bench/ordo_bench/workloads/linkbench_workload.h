// The linkbench workload of docs/BENCHMARKS.md: a graph store's write path on
// any engine of kv_registry.h, with the data of linkbench_graph.h.
//
// For each N of `sizes`, on a FRESH store (a store per size, so every N
// starts from the same state): preload N nodes, each followed by its links
// (about 5 per node), a commit every `load_batch` puts (not timed). Then run
// `ops_per_type` of each of the six operations, interleaved in a seeded
// random order, each timed alone (begin to end, in microseconds):
//   add_node     one durable write txn: a new node (engine_id() on ordo, a
//                standalone UuidV7Generator on peers)
//   add_link     one durable write txn: a link between two random nodes of a
//                random type (an existing link is overwritten)
//   update_link  one durable write txn: a new value for a random existing link
//   delete_link  one durable write txn: delete a random existing link
//   get_node     one read snapshot: get a random node (checked)
//   get_links    one read snapshot: every link of a random (id1, type), by a
//                range scan (rows.h scan_prefix; the count is checked)
// Afterwards every group the operations changed, and the groups of about
// `check_samples` nodes spread over all of them, must hold exactly the id2s
// of the model (LinkModel); the run fails with Corruption otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "latency.h"
#include "ordo/status.h"
#include "store_figures.h"

namespace ordo::bench {

enum class LinkOp { kAddNode, kAddLink, kUpdateLink, kDeleteLink, kGetNode, kGetLinks };
inline constexpr size_t kLinkOpCount = 6;
inline constexpr std::array<LinkOp, kLinkOpCount> kLinkOps = {
    LinkOp::kAddNode,    LinkOp::kAddLink, LinkOp::kUpdateLink,
    LinkOp::kDeleteLink, LinkOp::kGetNode, LinkOp::kGetLinks};

// "add_node", "add_link", "update_link", "delete_link", "get_node", "get_links".
std::string_view link_op_name(LinkOp op);
// True for the four write operations.
bool link_op_writes(LinkOp op);

struct LinkbenchConfig {
  std::string engine = "ordo";
  std::vector<uint64_t> sizes = {10'000, 100'000, 1'000'000};  // N, ascending
  uint64_t ops_per_type = 1000;   // timed operations of each kind at each N
  uint64_t seed = 42;             // of the graph and the operations
  uint64_t load_batch = 10'000;   // preload puts per commit
  uint64_t check_samples = 1000;  // nodes whose links are checked at the end
};

// One N.
struct LinkbenchAtSize {
  uint64_t nodes = 0;  // N preloaded
  uint64_t links = 0;  // links preloaded
  double preload_seconds = 0;
  std::array<LatencySummary, kLinkOpCount> ops;  // by LinkOp, microseconds
  uint64_t links_read = 0;                       // by the timed get_links
  uint64_t groups_checked = 0;                   // (id1, type) groups compared with the model
  StoreFigures store;                            // after the timed operations
};

struct LinkbenchRun {
  std::string engine;
  std::vector<LinkbenchAtSize> sizes;

  // p99 of `op` at the largest N / p99 at the smallest N (1 with one N; 0
  // when the smallest is 0).
  double p99_growth(LinkOp op) const;
};

// Runs the workload, size i on a new store of config.engine at paths[i].
// Corruption when a read or the final check disagrees with the model;
// otherwise any engine error as is. REQUIRES: paths.size() ==
// config.sizes.size(), every size > 0, ops_per_type > 0.
Result<LinkbenchRun> run_linkbench(const std::vector<std::string>& paths,
                                   const LinkbenchConfig& config);

}  // namespace ordo::bench
