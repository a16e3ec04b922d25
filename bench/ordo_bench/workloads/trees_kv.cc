// The trees workload on a peer: a table per tree through KvEngine.
#include <algorithm>
#include <set>

#include "kv_registry.h"
#include "system_figures.h"
#include "trees_workload.h"

namespace ordo::bench {
namespace {

// Room for every tree, the batch and the workload's own slack, as LMDB
// needs to be told (KvOptions::max_tables).
constexpr uint64_t kSpareTables = 16;

class KvTrees final : public TreesTarget {
 public:
  explicit KvTrees(KvEngine& db) : db_(db) {}

  // open_table (a commit of its own where the engine makes one), then one
  // durable txn with the key.
  Status create_one(const std::string& name, uint64_t i) override {
    ORDO_ASSIGN_OR_RETURN(const TableId table, db_.open_table(name));
    tables_.push_back(table);
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvWrite> txn, db_.begin_write());
    const std::array<char, 8> value = tree_value(i);
    ORDO_RETURN_IF_ERROR(txn->put(table, kTreeKey, ByteView(value.data(), value.size())));
    return txn->commit();
  }

  // The interface has no table creation inside a txn: every open_table
  // first, then one txn with all the puts.
  Status create_batch(uint64_t count) override {
    for (uint64_t i = 0; i < count; ++i) {
      ORDO_ASSIGN_OR_RETURN(const TableId table, db_.open_table(batch_name(i)));
      batch_tables_.push_back(table);
    }
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvWrite> txn, db_.begin_write());
    for (uint64_t i = 0; i < count; ++i) {
      const std::array<char, 8> value = tree_value(i);
      ORDO_RETURN_IF_ERROR(
          txn->put(batch_tables_[i], kTreeKey, ByteView(value.data(), value.size())));
    }
    return txn->commit();
  }

  // No engine-neutral way to list tables: the trees are read back only.
  Status check(const TreesConfig& config, TreesRun& run) override {
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> read, db_.begin_read());
    const uint64_t step = std::max<uint64_t>(1, config.trees / kTreeCheckSamples);
    for (uint64_t i = 0; i < tables_.size(); i += step, ++run.trees_checked) {
      ORDO_RETURN_IF_ERROR(check_tree_value(read->get(tables_[i], kTreeKey), tree_name(i), i));
    }
    for (uint64_t i = 0; i < batch_tables_.size(); ++i, ++run.trees_checked) {
      ORDO_RETURN_IF_ERROR(
          check_tree_value(read->get(batch_tables_[i], kTreeKey), batch_name(i), i));
    }
    return Status::ok();
  }

 private:
  KvEngine& db_;
  std::vector<TableId> tables_;        // by tree index
  std::vector<TableId> batch_tables_;  // by batch index
};

}  // namespace

Result<TreesRun> run_trees_kv(const std::string& path, const std::string& dir,
                              const TreesConfig& config, SyncProbe* probe, TreesRun result) {
  result.dir_entries_before_open = 0;  // the store's directory is made by the open
  KvOptions options;
  options.durable = config.commits.sync;
  options.max_tables = static_cast<uint32_t>(config.trees + config.batch + kSpareTables);
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvEngine> db, open_engine(config.engine, path, options));
  KvTrees target(*db);
  ORDO_ASSIGN_OR_RETURN(result, run_trees_on(target, dir, config, probe, std::move(result)));
  ORDO_RETURN_IF_ERROR(db->close());
  return result;
}

}  // namespace ordo::bench
