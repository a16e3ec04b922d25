// The "ordo", "ordo-uring" and "ordo-verify" adapters: ordo::Database in one
// file, a tree per table, a WriteTxn per KvWrite, a ReadTxn per KvRead (a
// request reader renews and resets its one ReadTxn per call);
// put_concurrent a Database::batch call, compact a compact copy
// (Database::copy_to). "ordo" opens with the default Options, "ordo-uring"
// with IoBackend::kUring, "ordo-verify" with verify_checksums.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kv_registry.h"
#include "ordo/database.h"

namespace ordo::bench {
namespace {

class OrdoWrite final : public KvWrite {
 public:
  OrdoWrite(WriteTxn txn, const std::vector<Tree>& trees) : txn_(std::move(txn)), trees_(trees) {}

  Status put(TableId table, ByteView key, ByteView value) override {
    return txn_.put(trees_[table], key, value);
  }
  Status del(TableId table, ByteView key) override {
    Status s = txn_.del(trees_[table], key);
    return s.is_not_found() ? Status::ok() : s;
  }
  Status commit() override { return txn_.commit(); }
  std::optional<Uuid> engine_id() override {
    Result<Uuid> id = txn_.next_id();
    return id.is_ok() ? std::optional<Uuid>(*id) : std::nullopt;
  }

 private:
  WriteTxn txn_;
  const std::vector<Tree>& trees_;
};

class OrdoRead final : public KvRead {
 public:
  OrdoRead(ReadTxn txn, const std::vector<Tree>& trees) : txn_(std::move(txn)), trees_(trees) {}

  Result<ByteView> get(TableId table, ByteView key) override {
    return txn_.get(trees_[table], key);
  }
  Result<uint64_t> scan(TableId table, ByteView from, uint64_t limit,
                        const ScanVisitor& visit) override {
    uint64_t n = 0;
    if (limit == 0) return n;
    ORDO_RETURN_IF_ERROR(
        txn_.scan(trees_[table], KeyRange::starting_at(from), [&](ByteView k, ByteView v) {
          visit(k, v);
          return ++n < limit;
        }));
    return n;
  }

  ReadTxn& txn() { return txn_; }

 private:
  ReadTxn txn_;
  const std::vector<Tree>& trees_;
};

// begin_request_reads: one ReadTxn, renewed before each call and reset after
// it, as a server does per request (nothing is made again per call).
class OrdoRequestRead final : public KvRead {
 public:
  OrdoRequestRead(ReadTxn txn, const std::vector<Tree>& trees)
      : read_(std::move(txn), trees), txn_(read_.txn()) {
    txn_.reset();
  }

  Result<ByteView> get(TableId table, ByteView key) override {
    ORDO_RETURN_IF_ERROR(txn_.renew());
    Result<ByteView> value = read_.get(table, key);
    if (value.is_ok()) value_.assign(value->view());
    txn_.reset();
    if (!value.is_ok()) return value.status();
    return ByteView(value_);
  }
  Result<uint64_t> scan(TableId table, ByteView from, uint64_t limit,
                        const ScanVisitor& visit) override {
    ORDO_RETURN_IF_ERROR(txn_.renew());
    Result<uint64_t> n = read_.scan(table, from, limit, visit);
    txn_.reset();
    return n;
  }

 private:
  OrdoRead read_;
  ReadTxn& txn_;       // read_'s
  std::string value_;  // the last get's value, copied before the reset
};

class OrdoKv final : public KvEngine {
 public:
  OrdoKv(std::unique_ptr<Database> db, std::string name)
      : db_(std::move(db)), name_(std::move(name)) {}

  std::string_view name() const override { return name_; }

  Result<TableId> open_table(std::string_view name) override {
    ORDO_ASSIGN_OR_RETURN(Tree tree, open_or_create(name));
    trees_.push_back(std::move(tree));
    return static_cast<TableId>(trees_.size() - 1);
  }

  Result<std::unique_ptr<KvWrite>> begin_write() override {
    ORDO_ASSIGN_OR_RETURN(WriteTxn txn, db_->begin_write());
    return std::unique_ptr<KvWrite>(std::make_unique<OrdoWrite>(std::move(txn), trees_));
  }

  Result<std::unique_ptr<KvRead>> begin_read() override {
    ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db_->begin_read());
    return std::unique_ptr<KvRead>(std::make_unique<OrdoRead>(std::move(txn), trees_));
  }

  Result<std::unique_ptr<KvRead>> begin_request_reads() override {
    ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db_->begin_read());
    return std::unique_ptr<KvRead>(std::make_unique<OrdoRequestRead>(std::move(txn), trees_));
  }

  // Every commit is already on disk; closing only unmaps and unlocks.
  Status close() override {
    db_.reset();
    return Status::ok();
  }

  Database* ordo_database() override { return db_.get(); }

  Result<std::optional<TableShape>> table_shape(TableId table) override {
    ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db_->begin_read());
    ORDO_ASSIGN_OR_RETURN(const TreeStats stats, txn.tree_stats(trees_[table]));
    return std::optional<TableShape>(TableShape{stats.entries, stats.leaf_pages, stats.branch_pages,
                                                db_->info().page_size_bytes, stats.leaf_fill});
  }

  // Database::batch: callers that arrive while a commit runs share the
  // next one (one fdatasync for the group).
  Status put_concurrent(TableId table, ByteView key, ByteView value) override {
    const Tree& tree = trees_[table];
    return db_->batch([&](WriteTxn& txn) { return txn.put(tree, key, value); });
  }

  // Database::copy_to with CopyOptions::compact: every tree rewritten
  // densely into a new file (what `ordo copy --compact` does).
  Result<std::string> compact(const std::string& copy_path) override {
    CopyOptions options;
    options.compact = true;
    ORDO_RETURN_IF_ERROR(db_->copy_to(copy_path, options).status());
    return copy_path;
  }

 private:
  // An existing tree costs no commit (a reopened store stays as it was).
  Result<Tree> open_or_create(std::string_view name) {
    {
      ORDO_ASSIGN_OR_RETURN(ReadTxn read, db_->begin_read());
      Result<Tree> tree = read.open_tree(name);
      if (!tree.status().is_not_found()) return tree;
    }
    ORDO_ASSIGN_OR_RETURN(WriteTxn txn, db_->begin_write());
    ORDO_ASSIGN_OR_RETURN(Tree tree, txn.create_tree(name));
    ORDO_RETURN_IF_ERROR(txn.commit());
    return tree;
  }

  std::unique_ptr<Database> db_;
  std::string name_;
  std::vector<Tree> trees_;  // by TableId
};

}  // namespace

Result<std::unique_ptr<KvEngine>> open_ordo_kv(const std::string& path, const KvOptions& options,
                                               std::string_view variant) {
  Options o;
  o.sync_commits = options.durable;
  if (variant == "ordo-uring") o.io_backend = IoBackend::kUring;
  if (variant == "ordo-verify") o.verify_checksums = true;
  o.txn_memory_budget_bytes = options.ordo_txn_budget_bytes;
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::open(path, o));
  return std::unique_ptr<KvEngine>(std::make_unique<OrdoKv>(std::move(db), std::string(variant)));
}

}  // namespace ordo::bench
