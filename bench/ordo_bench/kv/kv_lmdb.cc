// The "lmdb" and "lmdb-append" adapters: an LMDB environment in the
// directory `path`, a named DB (mdb_dbi_open) per table, an MDB txn per
// KvWrite, per KvRead and per put_concurrent (a request reader renews and
// resets its one read txn per call); compact is mdb_env_copy2 with
// MDB_CP_COMPACT.
//
// Settings: durable = LMDB's default (two syncs per commit, data then meta);
// not durable = MDB_NOSYNC. MDB_NOTLS so that a thread may hold a read txn
// beside the write txn. The map size is 256 GiB of address space (the file
// grows only as pages are used), at most KvOptions::max_tables named DBs.
// "lmdb-append" puts with MDB_APPEND, valid
// only for a key above every key in the DB; LMDB refuses any other key with
// MDB_KEYEXIST, and the adapter then puts it plainly and counts it in
// counters() as "append_fallback_puts", so a run on unsorted keys says so.
#include <lmdb.h>

#include <string>
#include <vector>

#include "kv_registry.h"

namespace ordo::bench {
namespace {

constexpr size_t kMapSizeBytes = 256ull << 30;

Status lmdb_status(int rc, std::string_view what) {
  std::string msg = "lmdb " + std::string(what) + ": " + mdb_strerror(rc);
  switch (rc) {
    case MDB_SUCCESS:
      return Status::ok();
    case MDB_NOTFOUND:
      return Status::not_found(std::move(msg));
    case MDB_MAP_FULL:
    case MDB_DBS_FULL:
    case MDB_READERS_FULL:
    case MDB_TXN_FULL:
      return Status::full(std::move(msg));
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH:
      return Status::corruption(std::move(msg));
    default:
      break;
  }
  if (rc > 0) return Status::io_error(std::move(msg), rc);  // an errno
  return Status::invalid_argument(std::move(msg));
}

MDB_val to_val(ByteView b) { return MDB_val{b.size(), const_cast<std::byte*>(b.data())}; }
ByteView from_val(const MDB_val& v) { return ByteView(v.mv_data, v.mv_size); }

// Aborts on destruction unless committed.
class TxnHandle {
 public:
  explicit TxnHandle(MDB_txn* txn) : txn_(txn) {}
  TxnHandle(const TxnHandle&) = delete;
  TxnHandle& operator=(const TxnHandle&) = delete;
  ~TxnHandle() {
    if (txn_ != nullptr) mdb_txn_abort(txn_);
  }
  MDB_txn* get() const { return txn_; }
  Status commit() {
    const int rc = mdb_txn_commit(txn_);  // frees the txn whatever the outcome
    txn_ = nullptr;
    return lmdb_status(rc, "commit");
  }

 private:
  MDB_txn* txn_;
};

Result<MDB_txn*> begin_txn(MDB_env* env, unsigned flags) {
  MDB_txn* txn = nullptr;
  const int rc = mdb_txn_begin(env, nullptr, flags, &txn);
  if (rc != MDB_SUCCESS) return lmdb_status(rc, "mdb_txn_begin");
  return txn;
}

class LmdbWrite final : public KvWrite {
 public:
  LmdbWrite(MDB_txn* txn, const std::vector<MDB_dbi>& dbis, bool append, uint64_t& fallbacks)
      : txn_(txn), dbis_(dbis), append_(append), fallbacks_(fallbacks) {}

  Status put(TableId table, ByteView key, ByteView value) override {
    MDB_val k = to_val(key);
    MDB_val v = to_val(value);
    int rc = mdb_put(txn_.get(), dbis_[table], &k, &v, append_ ? MDB_APPEND : 0);
    if (append_ && rc == MDB_KEYEXIST) {  // not above the last key: cannot append
      ++fallbacks_;
      rc = mdb_put(txn_.get(), dbis_[table], &k, &v, 0);
    }
    return lmdb_status(rc, "mdb_put");
  }
  Status del(TableId table, ByteView key) override {
    MDB_val k = to_val(key);
    const int rc = mdb_del(txn_.get(), dbis_[table], &k, nullptr);
    return rc == MDB_NOTFOUND ? Status::ok() : lmdb_status(rc, "mdb_del");
  }
  Status commit() override { return txn_.commit(); }

 private:
  TxnHandle txn_;
  const std::vector<MDB_dbi>& dbis_;
  const bool append_;
  uint64_t& fallbacks_;
};

// A read txn for the life of the reader, or (per_call, begin_request_reads)
// one MDB_txn renewed before each call and reset after it, as a server does
// per request: the reader slot stays this txn's, nothing is allocated.
class LmdbRead final : public KvRead {
 public:
  LmdbRead(MDB_txn* txn, const std::vector<MDB_dbi>& dbis, bool per_call)
      : txn_(txn), dbis_(dbis), per_call_(per_call) {
    if (per_call_) mdb_txn_reset(txn);
  }

  Result<ByteView> get(TableId table, ByteView key) override {
    ORDO_RETURN_IF_ERROR(renew());
    MDB_val k = to_val(key);
    MDB_val v;
    const int rc = mdb_get(txn_.get(), dbis_[table], &k, &v);
    if (!per_call_) {
      if (rc != MDB_SUCCESS) return lmdb_status(rc, "mdb_get");
      return from_val(v);
    }
    if (rc == MDB_SUCCESS) value_.assign(static_cast<const char*>(v.mv_data), v.mv_size);
    mdb_txn_reset(txn_.get());
    if (rc != MDB_SUCCESS) return lmdb_status(rc, "mdb_get");
    return ByteView(value_);
  }

  Result<uint64_t> scan(TableId table, ByteView from, uint64_t limit,
                        const ScanVisitor& visit) override {
    ORDO_RETURN_IF_ERROR(renew());
    MDB_cursor* cursor = nullptr;
    int rc = mdb_cursor_open(txn_.get(), dbis_[table], &cursor);
    if (rc != MDB_SUCCESS) {
      if (per_call_) mdb_txn_reset(txn_.get());
      return lmdb_status(rc, "mdb_cursor_open");
    }
    MDB_val k = to_val(from);
    MDB_val v;
    uint64_t n = 0;
    // LMDB refuses an empty key: start at the first one instead.
    const MDB_cursor_op start = from.empty() ? MDB_FIRST : MDB_SET_RANGE;
    for (rc = mdb_cursor_get(cursor, &k, &v, start); rc == MDB_SUCCESS && n < limit;
         rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
      visit(from_val(k), from_val(v));
      ++n;
    }
    mdb_cursor_close(cursor);
    if (per_call_) mdb_txn_reset(txn_.get());
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) return lmdb_status(rc, "mdb_cursor_get");
    return n;
  }

 private:
  Status renew() {
    return per_call_ ? lmdb_status(mdb_txn_renew(txn_.get()), "mdb_txn_renew") : Status::ok();
  }

  TxnHandle txn_;
  const std::vector<MDB_dbi>& dbis_;
  const bool per_call_;
  std::string value_;  // per_call: the last get's value, copied before the reset
};

class LmdbKv final : public KvEngine {
 public:
  LmdbKv(MDB_env* env, bool append) : env_(env), append_(append) {}
  ~LmdbKv() override {
    if (env_ != nullptr) mdb_env_close(env_);
  }

  std::string_view name() const override { return append_ ? "lmdb-append" : "lmdb"; }

  Result<TableId> open_table(std::string_view name) override {
    ORDO_ASSIGN_OR_RETURN(MDB_txn * raw, begin_txn(env_, 0));
    TxnHandle txn(raw);
    MDB_dbi dbi = 0;
    const int rc = mdb_dbi_open(txn.get(), std::string(name).c_str(), MDB_CREATE, &dbi);
    if (rc != MDB_SUCCESS) return lmdb_status(rc, "mdb_dbi_open");
    ORDO_RETURN_IF_ERROR(txn.commit());
    dbis_.push_back(dbi);
    return static_cast<TableId>(dbis_.size() - 1);
  }

  Result<std::unique_ptr<KvWrite>> begin_write() override {
    ORDO_ASSIGN_OR_RETURN(MDB_txn * txn, begin_txn(env_, 0));
    return std::unique_ptr<KvWrite>(std::make_unique<LmdbWrite>(txn, dbis_, append_, fallbacks_));
  }

  Result<std::unique_ptr<KvRead>> begin_read() override {
    ORDO_ASSIGN_OR_RETURN(MDB_txn * txn, begin_txn(env_, MDB_RDONLY));
    return std::unique_ptr<KvRead>(std::make_unique<LmdbRead>(txn, dbis_, false));
  }

  Result<std::unique_ptr<KvRead>> begin_request_reads() override {
    ORDO_ASSIGN_OR_RETURN(MDB_txn * txn, begin_txn(env_, MDB_RDONLY));
    return std::unique_ptr<KvRead>(std::make_unique<LmdbRead>(txn, dbis_, true));
  }

  // Commits are on disk already (durable) or flushed here (MDB_NOSYNC).
  Status close() override {
    const int rc = mdb_env_sync(env_, 1);
    mdb_env_close(env_);
    env_ = nullptr;
    return lmdb_status(rc, "mdb_env_sync");
  }

  // One txn per call; LMDB's writer lock lets one in at a time.
  Status put_concurrent(TableId table, ByteView key, ByteView value) override {
    ORDO_ASSIGN_OR_RETURN(MDB_txn * raw, begin_txn(env_, 0));
    TxnHandle txn(raw);
    MDB_val k = to_val(key);
    MDB_val v = to_val(value);
    ORDO_RETURN_IF_ERROR(lmdb_status(mdb_put(txn.get(), dbis_[table], &k, &v, 0), "mdb_put"));
    return txn.commit();
  }

  // mdb_env_copy2 with MDB_CP_COMPACT: a copy without free pages, in the new
  // directory `copy_path`.
  Result<std::string> compact(const std::string& copy_path) override {
    ORDO_RETURN_IF_ERROR(make_store_directory(copy_path));
    ORDO_RETURN_IF_ERROR(
        lmdb_status(mdb_env_copy2(env_, copy_path.c_str(), MDB_CP_COMPACT), "mdb_env_copy2"));
    return copy_path;
  }

  // mdb_stat gives pages and entries; the bytes in use follow LMDB's layout
  // (mdb.c): a 16-byte page header, a 2-byte pointer per node, a node of an
  // 8-byte header, key and value rounded up to even. Values too large for a
  // leaf (overflow pages) are not expected here and would count inline.
  Result<std::optional<TableShape>> table_shape(TableId table) override {
    ORDO_ASSIGN_OR_RETURN(MDB_txn * raw, begin_txn(env_, MDB_RDONLY));
    TxnHandle txn(raw);
    MDB_stat st;
    ORDO_RETURN_IF_ERROR(lmdb_status(mdb_stat(txn.get(), dbis_[table], &st), "mdb_stat"));
    MDB_cursor* cursor = nullptr;
    ORDO_RETURN_IF_ERROR(
        lmdb_status(mdb_cursor_open(txn.get(), dbis_[table], &cursor), "mdb_cursor_open"));
    uint64_t used = 16 * st.ms_leaf_pages;
    MDB_val k, v;
    int rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST);
    for (; rc == MDB_SUCCESS; rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
      used += 2 + ((8 + k.mv_size + v.mv_size + 1) & ~size_t{1});
    }
    mdb_cursor_close(cursor);
    if (rc != MDB_NOTFOUND) return lmdb_status(rc, "mdb_cursor_get");
    TableShape shape{st.ms_entries, st.ms_leaf_pages, st.ms_branch_pages, st.ms_psize, 0};
    if (st.ms_leaf_pages > 0) {
      shape.leaf_fill = static_cast<double>(used) /
                        (static_cast<double>(st.ms_leaf_pages) * static_cast<double>(st.ms_psize));
    }
    return std::optional<TableShape>(shape);
  }

  std::vector<std::pair<std::string, double>> counters() const override {
    if (!append_) return {};
    return {{"append_fallback_puts", static_cast<double>(fallbacks_)}};
  }

 private:
  MDB_env* env_;
  const bool append_;
  std::vector<MDB_dbi> dbis_;  // by TableId
  uint64_t fallbacks_ = 0;
};

Status configure(MDB_env* env, const std::string& path, const KvOptions& options) {
  int rc = mdb_env_set_mapsize(env, kMapSizeBytes);
  if (rc == MDB_SUCCESS) rc = mdb_env_set_maxdbs(env, options.max_tables);
  if (rc != MDB_SUCCESS) return lmdb_status(rc, "configure " + path);
  const unsigned flags = MDB_NOTLS | (options.durable ? 0u : unsigned{MDB_NOSYNC});
  rc = mdb_env_open(env, path.c_str(), flags, 0644);
  return lmdb_status(rc, "mdb_env_open " + path);
}

}  // namespace

Result<std::unique_ptr<KvEngine>> open_lmdb_kv(const std::string& path, const KvOptions& options,
                                               bool append) {
  ORDO_RETURN_IF_ERROR(make_store_directory(path));
  MDB_env* env = nullptr;
  const int rc = mdb_env_create(&env);
  if (rc != MDB_SUCCESS) return lmdb_status(rc, "mdb_env_create");
  auto kv = std::make_unique<LmdbKv>(env, append);  // closes env on any error below
  ORDO_RETURN_IF_ERROR(configure(env, path, options));
  return std::unique_ptr<KvEngine>(std::move(kv));
}

}  // namespace ordo::bench
