// The "wiredtiger" and "wiredtiger-equal-mem" adapters: a WiredTiger
// database in the directory `path`, a table "table:NAME" per table
// (key_format=u, value_format=u: raw bytes, compared by WiredTiger's default
// collation, byte by byte as unsigned, a shorter key before its extensions),
// one snapshot-isolation transaction per KvWrite, per KvRead and per
// put_concurrent (run again when it conflicts with another). WT_SESSION is
// not thread-safe, so every KvWrite, KvRead and put_concurrent call leases a
// session of its own from a pool (sessions and their cursors are reused, one
// user at a time); compact is a checkpoint, WT_SESSION::compact of every
// table, and a checkpoint.
//
// Settings: the log is on (log=(enabled=true)); durable commits are
// commit_transaction("sync=on"), the log synced at each commit; not durable,
// transaction_sync=(enabled=true,method=none): each commit writes its log
// records to the file and does not sync them (the same writes, no syncs, as
// the other peers' non-durable settings). Pages reach the table files through
// eviction and checkpoints: checkpoint=(wait=60,log_size=2GB), a checkpoint
// a minute or per 2 GB of log (MongoDB's settings), and one at close.
// "wiredtiger" runs at WiredTiger's default cache (cache_size 100 MB);
// "wiredtiger-equal-mem" at cache_size = KvOptions::ordo_txn_budget_bytes,
// the memory ordo is given. Everything else is WiredTiger's default.
#include <wiredtiger.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kv_registry.h"

namespace ordo::bench {
namespace {

constexpr const char* kTableConfig = "key_format=u,value_format=u";
// put_concurrent's tries of one put that keeps conflicting, then its Busy;
// the wait before try n + 1 is n x 50 us, at most 1 ms (the other writer
// holds the key until its commit's log sync returns).
constexpr int kMaxConflictAttempts = 10000;
constexpr int kConflictWaitStepUs = 50;
constexpr int kConflictWaitMaxUs = 1000;

Status wt_status(int rc, std::string_view what) {
  if (rc == 0) return Status::ok();
  std::string msg = "wiredtiger " + std::string(what) + ": " + wiredtiger_strerror(rc);
  switch (rc) {
    case WT_NOTFOUND:
      return Status::not_found(std::move(msg));
    case WT_ROLLBACK:  // a write conflict, or evicted to free the cache
    case WT_PREPARE_CONFLICT:
    case EBUSY:
      return Status::busy(std::move(msg));
    case WT_CACHE_FULL:
    case ENOSPC:
      return Status::full(std::move(msg));
    case WT_PANIC:
    case WT_RUN_RECOVERY:
    case WT_TRY_SALVAGE:
      return Status::corruption(std::move(msg));
    case WT_DUPLICATE_KEY:
    case EINVAL:
      return Status::invalid_argument(std::move(msg));
    default:
      break;
  }
  if (rc > 0) return Status::io_error(std::move(msg), rc);  // an errno
  return Status::invalid_argument(std::move(msg));
}

WT_ITEM to_item(ByteView b) {
  WT_ITEM item{};
  item.data = b.data();
  item.size = b.size();
  return item;
}
ByteView from_item(const WT_ITEM& item) { return ByteView(item.data, item.size); }

// A session and its cursors by TableId, opened on first use.
class Session {
 public:
  explicit Session(WT_SESSION* session) : session_(session) {}

  WT_SESSION* get() const { return session_; }

  Result<WT_CURSOR*> cursor(TableId table, const std::vector<std::string>& uris) {
    if (cursors_.size() <= table) cursors_.resize(table + 1, nullptr);
    WT_CURSOR*& c = cursors_[table];
    if (c == nullptr) {
      const int rc = session_->open_cursor(session_, uris[table].c_str(), nullptr, nullptr, &c);
      if (rc != 0) {
        c = nullptr;
        return wt_status(rc, "open_cursor " + uris[table]);
      }
    }
    return c;
  }

  // Lets go of every cursor's position (and the page it pins).
  void reset_cursors() {
    for (WT_CURSOR* c : cursors_) {
      if (c != nullptr) (void)c->reset(c);
    }
  }

 private:
  WT_SESSION* session_;
  std::vector<WT_CURSOR*> cursors_;
};

class SessionPool;

// A session taken from the pool, given back on destruction.
class Lease {
 public:
  Lease(SessionPool& pool, Session& session) : pool_(&pool), session_(&session) {}
  Lease(Lease&& other) noexcept
      : pool_(std::exchange(other.pool_, nullptr)), session_(other.session_) {}
  Lease& operator=(Lease&&) = delete;
  ~Lease();

  Session& operator*() const { return *session_; }
  Session* operator->() const { return session_; }

 private:
  SessionPool* pool_;
  Session* session_;
};

// Every session of the connection; they close with it.
class SessionPool {
 public:
  explicit SessionPool(WT_CONNECTION* conn) : conn_(conn) {}

  // A free session, or a new one (snapshot isolation) when none is free.
  Result<Lease> take() {
    std::lock_guard lock(mu_);
    if (free_.empty()) {
      WT_SESSION* raw = nullptr;
      const int rc = conn_->open_session(conn_, nullptr, "isolation=snapshot", &raw);
      if (rc != 0) return wt_status(rc, "open_session");
      all_.push_back(std::make_unique<Session>(raw));
      free_.push_back(all_.back().get());
    }
    Session* s = free_.back();
    free_.pop_back();
    return Lease(*this, *s);
  }

  void give(Session& s) {
    s.reset_cursors();
    std::lock_guard lock(mu_);
    free_.push_back(&s);
  }

  // The connection closed them: forget them all.
  void forget() {
    std::lock_guard lock(mu_);
    free_.clear();
    all_.clear();
  }

 private:
  WT_CONNECTION* conn_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Session>> all_;
  std::vector<Session*> free_;
};

Lease::~Lease() {
  if (pool_ != nullptr) pool_->give(*session_);
}

// Rolls back on destruction unless committed.
class WtWrite final : public KvWrite {
 public:
  WtWrite(Lease lease, const std::vector<std::string>& uris, const char* commit_config)
      : lease_(std::move(lease)), uris_(uris), commit_config_(commit_config) {}
  ~WtWrite() override {
    if (!done_) (void)lease_->get()->rollback_transaction(lease_->get(), nullptr);
  }

  // Called once, before any other call.
  Status begin() {
    WT_SESSION* s = lease_->get();
    ORDO_RETURN_IF_ERROR(wt_status(s->begin_transaction(s, nullptr), "begin_transaction"));
    done_ = false;
    return Status::ok();
  }

  Status put(TableId table, ByteView key, ByteView value) override {
    ORDO_ASSIGN_OR_RETURN(WT_CURSOR * c, lease_->cursor(table, uris_));
    WT_ITEM k = to_item(key);
    WT_ITEM v = to_item(value);
    c->set_key(c, &k);
    c->set_value(c, &v);
    return wt_status(c->insert(c), "insert");
  }
  Status del(TableId table, ByteView key) override {
    ORDO_ASSIGN_OR_RETURN(WT_CURSOR * c, lease_->cursor(table, uris_));
    WT_ITEM k = to_item(key);
    c->set_key(c, &k);
    const int rc = c->remove(c);
    return rc == WT_NOTFOUND ? Status::ok() : wt_status(rc, "remove");
  }
  // A failed commit_transaction has rolled the transaction back.
  Status commit() override {
    done_ = true;
    WT_SESSION* s = lease_->get();
    return wt_status(s->commit_transaction(s, commit_config_), "commit_transaction");
  }

 private:
  Lease lease_;
  const std::vector<std::string>& uris_;
  const char* const commit_config_;
  bool done_ = true;  // until begin()
};

// `per_call` (begin_request_reads): no transaction of its own, so each
// cursor call runs in the implicit one WiredTiger gives it, and a value is
// copied out before the call returns.
class WtRead final : public KvRead {
 public:
  WtRead(Lease lease, const std::vector<std::string>& uris, bool per_call = false)
      : lease_(std::move(lease)), uris_(uris), per_call_(per_call) {}
  ~WtRead() override {
    if (begun_) (void)lease_->get()->rollback_transaction(lease_->get(), nullptr);
  }

  // The snapshot is taken here, at the start of the transaction.
  Status begin() {
    WT_SESSION* s = lease_->get();
    ORDO_RETURN_IF_ERROR(wt_status(s->begin_transaction(s, nullptr), "begin_transaction"));
    begun_ = true;
    return Status::ok();
  }

  // The value stays in the cursor's page until the cursor's next call.
  Result<ByteView> get(TableId table, ByteView key) override {
    ORDO_ASSIGN_OR_RETURN(WT_CURSOR * c, lease_->cursor(table, uris_));
    WT_ITEM k = to_item(key);
    c->set_key(c, &k);
    ORDO_RETURN_IF_ERROR(wt_status(c->search(c), "search"));
    WT_ITEM v{};
    ORDO_RETURN_IF_ERROR(wt_status(c->get_value(c, &v), "get_value"));
    if (!per_call_) return from_item(v);
    copy_.assign(static_cast<const char*>(v.data), v.size);
    (void)c->reset(c);
    return ByteView(copy_);
  }

  Result<uint64_t> scan(TableId table, ByteView from, uint64_t limit,
                        const ScanVisitor& visit) override {
    if (limit == 0) return uint64_t{0};
    ORDO_ASSIGN_OR_RETURN(WT_CURSOR * c, lease_->cursor(table, uris_));
    int rc = 0;
    if (from.empty()) {  // every key is >= the empty key: start at the first
      (void)c->reset(c);
      rc = c->next(c);
    } else {
      WT_ITEM k = to_item(from);
      c->set_key(c, &k);
      int exact = 0;
      rc = c->search_near(c, &exact);
      if (rc == 0 && exact < 0) rc = c->next(c);  // landed on the key before `from`
    }
    uint64_t n = 0;
    while (rc == 0) {
      WT_ITEM k{};
      WT_ITEM v{};
      rc = c->get_key(c, &k);
      if (rc == 0) rc = c->get_value(c, &v);
      if (rc != 0) break;
      visit(from_item(k), from_item(v));
      if (++n == limit) break;
      rc = c->next(c);
    }
    (void)c->reset(c);
    if (rc != 0 && rc != WT_NOTFOUND) return wt_status(rc, "scan");
    return n;
  }

 private:
  Lease lease_;
  const std::vector<std::string>& uris_;
  const bool per_call_;
  std::string copy_;  // per_call_: the last value read
  bool begun_ = false;
};

class WtKv final : public KvEngine {
 public:
  WtKv(WT_CONNECTION* conn, std::string_view name, std::string path, bool durable)
      : conn_(conn),
        name_(name),
        path_(std::move(path)),
        commit_config_(durable ? "sync=on" : nullptr),
        pool_(conn) {}
  ~WtKv() override { (void)close(); }

  std::string_view name() const override { return name_; }

  // WT_SESSION::create, a no-op for a table that exists with this format.
  Result<TableId> open_table(std::string_view name) override {
    std::string uri = "table:" + std::string(name);
    ORDO_ASSIGN_OR_RETURN(Lease lease, pool_.take());
    WT_SESSION* s = lease->get();
    ORDO_RETURN_IF_ERROR(wt_status(s->create(s, uri.c_str(), kTableConfig), "create " + uri));
    uris_.push_back(std::move(uri));
    return static_cast<TableId>(uris_.size() - 1);
  }

  Result<std::unique_ptr<KvWrite>> begin_write() override {
    ORDO_ASSIGN_OR_RETURN(Lease lease, pool_.take());
    auto write = std::make_unique<WtWrite>(std::move(lease), uris_, commit_config_);
    ORDO_RETURN_IF_ERROR(write->begin());
    return std::unique_ptr<KvWrite>(std::move(write));
  }

  Result<std::unique_ptr<KvRead>> begin_read() override {
    ORDO_ASSIGN_OR_RETURN(Lease lease, pool_.take());
    auto read = std::make_unique<WtRead>(std::move(lease), uris_);
    ORDO_RETURN_IF_ERROR(read->begin());
    return std::unique_ptr<KvRead>(std::move(read));
  }

  Result<std::unique_ptr<KvRead>> begin_request_reads() override {
    ORDO_ASSIGN_OR_RETURN(Lease lease, pool_.take());
    return std::unique_ptr<KvRead>(std::make_unique<WtRead>(std::move(lease), uris_, true));
  }

  // One transaction per call on a session of its own; WiredTiger groups the
  // log syncs of the transactions that commit together. Two calls that put
  // the same key at once conflict (snapshot isolation: the later insert gets
  // WT_ROLLBACK); the loser rolls back, waits and runs again, as
  // WiredTiger's users do, and counters() says how often ("rollback_retries").
  Status put_concurrent(TableId table, ByteView key, ByteView value) override {
    ORDO_ASSIGN_OR_RETURN(Lease lease, pool_.take());
    ORDO_ASSIGN_OR_RETURN(WT_CURSOR * c, lease->cursor(table, uris_));
    WT_SESSION* s = lease->get();
    WT_ITEM k = to_item(key);
    WT_ITEM v = to_item(value);
    for (int attempt = 1;; ++attempt) {
      ORDO_RETURN_IF_ERROR(wt_status(s->begin_transaction(s, nullptr), "begin_transaction"));
      c->set_key(c, &k);
      c->set_value(c, &v);
      const int rc = c->insert(c);
      if (rc == 0) {
        return wt_status(s->commit_transaction(s, commit_config_), "commit_transaction");
      }
      (void)s->rollback_transaction(s, nullptr);
      if (rc != WT_ROLLBACK || attempt == kMaxConflictAttempts) return wt_status(rc, "insert");
      rollback_retries_.fetch_add(1, std::memory_order_relaxed);
      std::this_thread::sleep_for(
          std::chrono::microseconds(std::min(attempt * kConflictWaitStepUs, kConflictWaitMaxUs)));
    }
  }

  std::vector<std::pair<std::string, double>> counters() const override {
    return {{"rollback_retries",
             static_cast<double>(rollback_retries_.load(std::memory_order_relaxed))}};
  }

  // In place: a checkpoint (the pages without the removed entries reach the
  // files), WT_SESSION::compact of every table of the store (it moves blocks
  // from the end of each file into its free space and truncates the file),
  // then a checkpoint.
  Result<std::string> compact(const std::string& /*copy_path*/) override {
    ORDO_ASSIGN_OR_RETURN(Lease lease, pool_.take());
    WT_SESSION* s = lease->get();
    ORDO_RETURN_IF_ERROR(wt_status(s->checkpoint(s, nullptr), "checkpoint"));
    ORDO_ASSIGN_OR_RETURN(const std::vector<std::string> tables, all_tables(*s));
    for (const std::string& uri : tables) {
      ORDO_RETURN_IF_ERROR(wt_status(s->compact(s, uri.c_str(), nullptr), "compact " + uri));
    }
    ORDO_RETURN_IF_ERROR(wt_status(s->checkpoint(s, nullptr), "checkpoint"));
    return path_;
  }

  // Closes every session and cursor and writes a final checkpoint.
  Status close() override {
    if (conn_ == nullptr) return Status::ok();
    pool_.forget();
    const int rc = conn_->close(conn_, nullptr);
    conn_ = nullptr;
    return wt_status(rc, "close " + path_);
  }

  // table_shape: nullopt. WiredTiger writes each page at the size
  // reconciliation gives it (up to leaf_page_max, in allocation_size units),
  // so there is no page size that a fill could be measured against.

 private:
  // The "table:" URIs of the store, from its metadata.
  static Result<std::vector<std::string>> all_tables(WT_SESSION& s) {
    WT_CURSOR* c = nullptr;
    ORDO_RETURN_IF_ERROR(
        wt_status(s.open_cursor(&s, "metadata:", nullptr, nullptr, &c), "open_cursor metadata:"));
    std::vector<std::string> out;
    const std::string_view prefix = "table:";
    int rc = 0;
    while ((rc = c->next(c)) == 0) {
      const char* key = nullptr;
      rc = c->get_key(c, &key);
      if (rc != 0) break;
      if (std::string_view(key).starts_with(prefix)) out.emplace_back(key);
    }
    (void)c->close(c);
    if (rc != WT_NOTFOUND) return wt_status(rc, "read metadata:");
    return out;
  }

  WT_CONNECTION* conn_;
  const std::string name_;
  const std::string path_;
  const char* const commit_config_;
  SessionPool pool_;
  std::vector<std::string> uris_;  // by TableId
  std::atomic<uint64_t> rollback_retries_{0};
};

}  // namespace

Result<std::unique_ptr<KvEngine>> open_wiredtiger_kv(const std::string& path,
                                                     const KvOptions& options, bool equal_mem) {
  ORDO_RETURN_IF_ERROR(make_store_directory(path));
  // config_base=false: no WiredTiger.basecfg, so that the settings are this
  // open's alone (a basecfg would carry a store's cache_size to its next open).
  std::string config =
      "create,config_base=false,log=(enabled=true),checkpoint=(wait=60,log_size=2GB)";
  if (!options.durable) config += ",transaction_sync=(enabled=true,method=none)";
  if (equal_mem) config += ",cache_size=" + std::to_string(options.ordo_txn_budget_bytes);
  WT_CONNECTION* conn = nullptr;
  const int rc = wiredtiger_open(path.c_str(), nullptr, config.c_str(), &conn);
  if (rc != 0) return wt_status(rc, "wiredtiger_open " + path);
  return std::unique_ptr<KvEngine>(std::make_unique<WtKv>(
      conn, equal_mem ? "wiredtiger-equal-mem" : "wiredtiger", path, options.durable));
}

}  // namespace ordo::bench
