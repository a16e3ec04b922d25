// After the load: reopen the store and check that every node made it.
#include <fmt/core.h>

#include <algorithm>
#include <cstring>

#include "kv_registry.h"
#include "node_record.h"
#include "nodes_workload.h"
#include "ordo/database.h"

namespace ordo::bench {
namespace {

// Node records read back: about 1,000 spread over the whole load.
constexpr uint64_t kSampleCount = 1000;

Result<uint64_t> count_entries(KvRead& txn, TableId table) {
  return txn.scan(table, ByteView(), UINT64_MAX, [](ByteView, ByteView) {});
}

Status expect_entries(std::string_view tree, uint64_t entries, uint64_t expected) {
  if (entries == expected) return Status::ok();
  return Status::corruption(
      fmt::format("tree \"{}\" holds {} entries, expected {}", tree, entries, expected));
}

Status check_record(KvRead& txn, TableId nodes, const NodesConfig& config,
                    std::span<const Uuid> ids, uint64_t i) {
  Result<ByteView> value = txn.get(nodes, ids[i].view());
  if (!value.is_ok()) {
    return Status::corruption(
        fmt::format("node {} ({}): {}", i, ids[i].to_string(), value.status().to_string()));
  }
  const Uuid parent = i == 0 ? Uuid{} : ids[parent_index(i, config.fanout)];
  const auto expected = node_value(parent, node_name(i));
  if (value->size() != expected.size() ||
      std::memcmp(value->data(), expected.data(), expected.size()) != 0) {
    return Status::corruption(
        fmt::format("node {} ({}): record differs from what was written", i, ids[i].to_string()));
  }
  return Status::ok();
}

// Tree shape and pages in use, which only ordo reports.
Status add_ordo_figures(Database& db, VerifyResult& result) {
  ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db.begin_read());
  ORDO_ASSIGN_OR_RETURN(const Tree nodes, txn.open_tree("nodes"));
  ORDO_ASSIGN_OR_RETURN(const Tree children, txn.open_tree("children"));
  ORDO_ASSIGN_OR_RETURN(result.nodes, txn.tree_stats(nodes));
  ORDO_ASSIGN_OR_RETURN(result.children, txn.tree_stats(children));
  const DatabaseInfo info = db.info();
  result.used_bytes = info.pages_used * info.page_size_bytes;
  return Status::ok();
}

// Edge IDs: every edge made it, and the shape of its tree.
Status verify_edges(KvEngine& db, uint64_t edges, VerifyResult& result) {
  ORDO_ASSIGN_OR_RETURN(const TableId table, db.open_table("edges"));
  {
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> txn, db.begin_read());
    ORDO_ASSIGN_OR_RETURN(result.edges_entries, count_entries(*txn, table));
  }
  ORDO_RETURN_IF_ERROR(expect_entries("edges", result.edges_entries, edges));
  ORDO_ASSIGN_OR_RETURN(result.edges, db.table_shape(table));
  return Status::ok();
}

Result<VerifyResult> verify(KvEngine& db, const NodesConfig& config, std::span<const Uuid> ids,
                            IdKind kind, uint64_t edges) {
  ORDO_ASSIGN_OR_RETURN(const TableId nodes, db.open_table("nodes"));
  ORDO_ASSIGN_OR_RETURN(const TableId children, db.open_table("children"));
  VerifyResult result;
  {
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> txn, db.begin_read());
    ORDO_ASSIGN_OR_RETURN(result.nodes_entries, count_entries(*txn, nodes));
    ORDO_ASSIGN_OR_RETURN(result.children_entries, count_entries(*txn, children));
    ORDO_RETURN_IF_ERROR(expect_entries("nodes", result.nodes_entries, ids.size()));
    ORDO_RETURN_IF_ERROR(expect_entries("children", result.children_entries, ids.size()));
    const uint64_t step = std::max<uint64_t>(1, ids.size() / kSampleCount);
    for (uint64_t i = 0; i < ids.size(); i += step) {
      ORDO_RETURN_IF_ERROR(check_record(*txn, nodes, config, ids, i));
    }
    if (!ids.empty()) ORDO_RETURN_IF_ERROR(check_record(*txn, nodes, config, ids, ids.size() - 1));
  }
  if (kind == IdKind::kEdges) ORDO_RETURN_IF_ERROR(verify_edges(db, edges, result));
  if (Database* ordo = db.ordo_database()) ORDO_RETURN_IF_ERROR(add_ordo_figures(*ordo, result));
  return result;
}

}  // namespace

Result<VerifyResult> verify_nodes(const std::string& path, const NodesConfig& config,
                                  std::span<const Uuid> ids, IdKind kind, uint64_t edges) {
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvEngine> db, open_engine(config.engine, path, {}));
  ORDO_ASSIGN_OR_RETURN(VerifyResult result, verify(*db, config, ids, kind, edges));
  ORDO_RETURN_IF_ERROR(db->close());
  return result;
}

}  // namespace ordo::bench
