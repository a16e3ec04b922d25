// The "rocksdb" adapter: a RocksDB database in the directory `path`, a
// column family per table, one WriteBatch per KvWrite written with
// WriteOptions.sync = durable (the WAL is fsynced on each commit), a
// snapshot per KvRead (none for a request reader: RocksDB's implicit one per
// read); put_concurrent is a synced one-put batch, compact
// CompactRange.
//
// Options are RocksDB's defaults (64 MiB memtable, level compaction, its
// default compression) plus create_if_missing and
// create_missing_column_families: the engine as users get it.
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/write_batch.h>

#include <string>
#include <vector>

#include "kv_registry.h"

namespace ordo::bench {
namespace {

Status rocks_status(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::ok();
  std::string msg = "rocksdb " + std::string(what) + ": " + s.ToString();
  if (s.IsNotFound()) return Status::not_found(std::move(msg));
  if (s.IsCorruption()) return Status::corruption(std::move(msg));
  if (s.IsInvalidArgument() || s.IsNotSupported()) return Status::invalid_argument(std::move(msg));
  if (s.IsBusy() || s.IsTryAgain()) return Status::busy(std::move(msg));
  if (s.IsNoSpace()) return Status::full(std::move(msg));
  return Status::io_error(std::move(msg), 0);  // RocksDB does not give the errno
}

rocksdb::Slice to_slice(ByteView b) { return rocksdb::Slice(b.char_data(), b.size()); }
ByteView from_slice(const rocksdb::Slice& s) { return ByteView(s.data(), s.size()); }

class RocksWrite final : public KvWrite {
 public:
  RocksWrite(rocksdb::DB& db, const std::vector<rocksdb::ColumnFamilyHandle*>& cfs, bool durable)
      : db_(db), cfs_(cfs) {
    options_.sync = durable;
  }

  Status put(TableId table, ByteView key, ByteView value) override {
    return rocks_status(batch_.Put(cfs_[table], to_slice(key), to_slice(value)), "put");
  }
  Status del(TableId table, ByteView key) override {
    return rocks_status(batch_.Delete(cfs_[table], to_slice(key)), "delete");
  }
  Status commit() override { return rocks_status(db_.Write(options_, &batch_), "write"); }

 private:
  rocksdb::DB& db_;
  const std::vector<rocksdb::ColumnFamilyHandle*>& cfs_;
  rocksdb::WriteOptions options_;
  rocksdb::WriteBatch batch_;
};

class RocksRead final : public KvRead {
 public:
  // `per_call` (begin_request_reads): no snapshot of its own, so each call
  // reads the implicit one RocksDB takes per read.
  RocksRead(rocksdb::DB& db, const std::vector<rocksdb::ColumnFamilyHandle*>& cfs, bool per_call)
      : db_(db), cfs_(cfs), snapshot_(per_call ? nullptr : db.GetSnapshot()) {
    options_.snapshot = snapshot_;
  }
  ~RocksRead() override {
    if (snapshot_ != nullptr) db_.ReleaseSnapshot(snapshot_);
  }

  Result<ByteView> get(TableId table, ByteView key) override {
    value_.Reset();
    ORDO_RETURN_IF_ERROR(
        rocks_status(db_.Get(options_, cfs_[table], to_slice(key), &value_), "get"));
    return from_slice(value_);
  }

  Result<uint64_t> scan(TableId table, ByteView from, uint64_t limit,
                        const ScanVisitor& visit) override {
    std::unique_ptr<rocksdb::Iterator> it(db_.NewIterator(options_, cfs_[table]));
    uint64_t n = 0;
    for (it->Seek(to_slice(from)); it->Valid() && n < limit; it->Next()) {
      visit(from_slice(it->key()), from_slice(it->value()));
      ++n;
    }
    ORDO_RETURN_IF_ERROR(rocks_status(it->status(), "iterate"));
    return n;
  }

 private:
  rocksdb::DB& db_;
  const std::vector<rocksdb::ColumnFamilyHandle*>& cfs_;
  const rocksdb::Snapshot* snapshot_;
  rocksdb::ReadOptions options_;
  rocksdb::PinnableSlice value_;  // the last get's value
};

class RocksKv final : public KvEngine {
 public:
  RocksKv(rocksdb::Options options, bool durable)
      : options_(std::move(options)), durable_(durable) {}
  ~RocksKv() override { (void)close(); }

  // Opens every column family the directory has (RocksDB insists).
  Status open(const std::string& path) {
    std::vector<std::string> names;
    if (!rocksdb::DB::ListColumnFamilies(options_, path, &names).ok()) {
      names = {rocksdb::kDefaultColumnFamilyName};  // a new database
    }
    std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
    for (const std::string& n : names) descriptors.emplace_back(n, options_);
    rocksdb::DB* db = nullptr;
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    ORDO_RETURN_IF_ERROR(rocks_status(rocksdb::DB::Open(options_, path, descriptors, &handles, &db),
                                      "open " + path));
    db_.reset(db);
    for (size_t i = 0; i < names.size(); ++i) existing_.emplace_back(names[i], handles[i]);
    return Status::ok();
  }

  std::string_view name() const override { return "rocksdb"; }

  Result<TableId> open_table(std::string_view name) override {
    rocksdb::ColumnFamilyHandle* cf = nullptr;
    for (const auto& [n, handle] : existing_) {
      if (n == name) cf = handle;
    }
    if (cf == nullptr) {
      ORDO_RETURN_IF_ERROR(rocks_status(db_->CreateColumnFamily(options_, std::string(name), &cf),
                                        "create column family"));
      existing_.emplace_back(std::string(name), cf);
    }
    cfs_.push_back(cf);
    return static_cast<TableId>(cfs_.size() - 1);
  }

  Result<std::unique_ptr<KvWrite>> begin_write() override {
    return std::unique_ptr<KvWrite>(std::make_unique<RocksWrite>(*db_, cfs_, durable_));
  }

  Result<std::unique_ptr<KvRead>> begin_read() override {
    return std::unique_ptr<KvRead>(std::make_unique<RocksRead>(*db_, cfs_, false));
  }
  Result<std::unique_ptr<KvRead>> begin_request_reads() override {
    return std::unique_ptr<KvRead>(std::make_unique<RocksRead>(*db_, cfs_, true));
  }

  // A one-put WriteBatch written with sync = durable; RocksDB groups the
  // concurrent writers' batches into its WAL writes itself.
  Status put_concurrent(TableId table, ByteView key, ByteView value) override {
    RocksWrite write(*db_, cfs_, durable_);
    ORDO_RETURN_IF_ERROR(write.put(table, key, value));
    return write.commit();
  }

  // CompactRange over the whole key range of every column family, the
  // bottommost level rewritten too, so deleted entries leave the files.
  Result<std::string> compact(const std::string& /*copy_path*/) override {
    rocksdb::CompactRangeOptions options;
    options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    for (auto& [n, handle] : existing_) {
      ORDO_RETURN_IF_ERROR(
          rocks_status(db_->CompactRange(options, handle, nullptr, nullptr), "compact " + n));
    }
    return db_->GetName();
  }

  Status close() override {
    if (db_ == nullptr) return Status::ok();
    Status first;
    for (auto& [n, handle] : existing_) {
      Status s = rocks_status(db_->DestroyColumnFamilyHandle(handle), "destroy handle");
      if (first.is_ok()) first = s;
    }
    existing_.clear();
    cfs_.clear();
    Status s = rocks_status(db_->Close(), "close");
    db_.reset();
    return first.is_ok() ? s : first;
  }

 private:
  const rocksdb::Options options_;
  const bool durable_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<std::pair<std::string, rocksdb::ColumnFamilyHandle*>> existing_;  // all open
  std::vector<rocksdb::ColumnFamilyHandle*> cfs_;                               // by TableId
};

}  // namespace

Result<std::unique_ptr<KvEngine>> open_rocksdb_kv(const std::string& path,
                                                  const KvOptions& options) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.create_missing_column_families = true;
  auto kv = std::make_unique<RocksKv>(o, options.durable);
  ORDO_RETURN_IF_ERROR(kv->open(path));
  return std::unique_ptr<KvEngine>(std::move(kv));
}

}  // namespace ordo::bench
