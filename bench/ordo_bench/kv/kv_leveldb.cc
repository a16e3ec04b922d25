// The "leveldb" adapter: a LevelDB database in the directory `path`; LevelDB
// has one key space, so table T's keys are stored as "T\0" + key (scans stop
// at the end of the prefix). One WriteBatch per KvWrite written with
// WriteOptions.sync = durable (put_concurrent: one per call), a snapshot per
// KvRead (none for a request reader: LevelDB's implicit one per read),
// compact = CompactRange in place. Options are LevelDB's defaults plus
// create_if_missing.
#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <string>
#include <vector>

#include "kv_registry.h"

namespace ordo::bench {
namespace {

Status level_status(const leveldb::Status& s, std::string_view what) {
  if (s.ok()) return Status::ok();
  std::string msg = "leveldb " + std::string(what) + ": " + s.ToString();
  if (s.IsNotFound()) return Status::not_found(std::move(msg));
  if (s.IsCorruption()) return Status::corruption(std::move(msg));
  if (s.IsInvalidArgument() || s.IsNotSupportedError()) {
    return Status::invalid_argument(std::move(msg));
  }
  return Status::io_error(std::move(msg), 0);  // LevelDB does not give the errno
}

ByteView from_slice(const leveldb::Slice& s) { return ByteView(s.data(), s.size()); }

// Table prefixes by TableId, and keys built on them.
class Prefixes {
 public:
  TableId add(std::string_view name) {
    prefixes_.push_back(std::string(name) + '\0');
    return static_cast<TableId>(prefixes_.size() - 1);
  }
  const std::string& of(TableId table) const { return prefixes_[table]; }
  // prefix + key in `buffer`; the slice is valid until the next call with it.
  leveldb::Slice key(TableId table, ByteView key, std::string& buffer) const {
    buffer.assign(prefixes_[table]);
    buffer.append(key.char_data(), key.size());
    return leveldb::Slice(buffer);
  }

 private:
  std::vector<std::string> prefixes_;
};

class LevelWrite final : public KvWrite {
 public:
  LevelWrite(leveldb::DB& db, const Prefixes& prefixes, bool durable)
      : db_(db), prefixes_(prefixes) {
    options_.sync = durable;
  }

  Status put(TableId table, ByteView key, ByteView value) override {
    batch_.Put(prefixes_.key(table, key, key_), leveldb::Slice(value.char_data(), value.size()));
    return Status::ok();
  }
  Status del(TableId table, ByteView key) override {
    batch_.Delete(prefixes_.key(table, key, key_));
    return Status::ok();
  }
  Status commit() override { return level_status(db_.Write(options_, &batch_), "write"); }

 private:
  leveldb::DB& db_;
  const Prefixes& prefixes_;
  leveldb::WriteOptions options_;
  leveldb::WriteBatch batch_;
  std::string key_;
};

class LevelRead final : public KvRead {
 public:
  // `per_call` (begin_request_reads): no snapshot of its own, so each call
  // reads the implicit one LevelDB takes per read.
  LevelRead(leveldb::DB& db, const Prefixes& prefixes, bool per_call)
      : db_(db), prefixes_(prefixes), snapshot_(per_call ? nullptr : db.GetSnapshot()) {
    options_.snapshot = snapshot_;
  }
  ~LevelRead() override {
    if (snapshot_ != nullptr) db_.ReleaseSnapshot(snapshot_);
  }

  Result<ByteView> get(TableId table, ByteView key) override {
    ORDO_RETURN_IF_ERROR(
        level_status(db_.Get(options_, prefixes_.key(table, key, key_), &value_), "get"));
    return ByteView(value_);
  }

  Result<uint64_t> scan(TableId table, ByteView from, uint64_t limit,
                        const ScanVisitor& visit) override {
    const leveldb::Slice prefix(prefixes_.of(table));
    std::unique_ptr<leveldb::Iterator> it(db_.NewIterator(options_));
    uint64_t n = 0;
    for (it->Seek(prefixes_.key(table, from, key_)); it->Valid() && n < limit; it->Next()) {
      leveldb::Slice k = it->key();
      if (!k.starts_with(prefix)) break;
      k.remove_prefix(prefix.size());
      visit(from_slice(k), from_slice(it->value()));
      ++n;
    }
    ORDO_RETURN_IF_ERROR(level_status(it->status(), "iterate"));
    return n;
  }

 private:
  leveldb::DB& db_;
  const Prefixes& prefixes_;
  const leveldb::Snapshot* snapshot_;
  leveldb::ReadOptions options_;
  std::string key_;
  std::string value_;  // the last get's value
};

class LevelKv final : public KvEngine {
 public:
  LevelKv(std::unique_ptr<leveldb::DB> db, bool durable, std::string path)
      : db_(std::move(db)), durable_(durable), path_(std::move(path)) {}

  std::string_view name() const override { return "leveldb"; }
  Result<TableId> open_table(std::string_view name) override { return prefixes_.add(name); }

  Result<std::unique_ptr<KvWrite>> begin_write() override {
    return std::unique_ptr<KvWrite>(std::make_unique<LevelWrite>(*db_, prefixes_, durable_));
  }
  Result<std::unique_ptr<KvRead>> begin_read() override {
    return std::unique_ptr<KvRead>(std::make_unique<LevelRead>(*db_, prefixes_, false));
  }
  Result<std::unique_ptr<KvRead>> begin_request_reads() override {
    return std::unique_ptr<KvRead>(std::make_unique<LevelRead>(*db_, prefixes_, true));
  }
  // A synced one-put WriteBatch per call; LevelDB queues concurrent writers
  // and writes their batches together.
  Status put_concurrent(TableId table, ByteView key, ByteView value) override {
    LevelWrite write(*db_, prefixes_, durable_);
    ORDO_RETURN_IF_ERROR(write.put(table, key, value));
    return write.commit();
  }
  // CompactRange over the whole key space, in place.
  Result<std::string> compact(const std::string& /*copy_path*/) override {
    db_->CompactRange(nullptr, nullptr);
    return path_;
  }
  // LevelDB's destructor waits for its compaction; it reports nothing.
  Status close() override {
    db_.reset();
    return Status::ok();
  }

 private:
  std::unique_ptr<leveldb::DB> db_;
  const bool durable_;
  const std::string path_;
  Prefixes prefixes_;
};

}  // namespace

Result<std::unique_ptr<KvEngine>> open_leveldb_kv(const std::string& path,
                                                  const KvOptions& options) {
  leveldb::Options o;
  o.create_if_missing = true;
  leveldb::DB* db = nullptr;
  ORDO_RETURN_IF_ERROR(level_status(leveldb::DB::Open(o, path, &db), "open " + path));
  return std::unique_ptr<KvEngine>(
      std::make_unique<LevelKv>(std::unique_ptr<leveldb::DB>(db), options.durable, path));
}

}  // namespace ordo::bench
