// The "sqlite" adapter: the SQLite database `path`/db.sqlite in WAL mode
// with synchronous=FULL when durable (the WAL is fsynced on each commit;
// OFF when not durable), a WITHOUT ROWID table (k BLOB PRIMARY KEY, v BLOB)
// per table, one transaction (BEGIN ... COMMIT) per KvWrite, prepared
// statements throughout; put_concurrent serializes its callers on the
// writer's connection under a mutex; compact is VACUUM plus a truncating
// checkpoint. Each KvRead opens its own connection and holds one
// read transaction on it (a WAL snapshot), so readers in several threads do
// not share a connection; a request reader has its own connection too, in
// autocommit mode (each statement its own read txn). Other settings are
// SQLite's defaults (4 KiB pages, 2 MB page cache, automatic checkpoints
// every 1000 WAL pages).
#include <sqlite3.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kv_registry.h"

namespace ordo::bench {
namespace {

Status sqlite_status(sqlite3* db, int rc, std::string_view what) {
  if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW) return Status::ok();
  std::string msg = "sqlite " + std::string(what) + ": " +
                    (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {  // the primary result code
    case SQLITE_NOTFOUND:
      return Status::not_found(std::move(msg));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::busy(std::move(msg));
    case SQLITE_FULL:
      return Status::full(std::move(msg));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::corruption(std::move(msg));
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
      return Status::io_error(std::move(msg), db != nullptr ? sqlite3_system_errno(db) : 0);
    default:
      return Status::invalid_argument(std::move(msg));
  }
}

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct Finalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using DbPtr = std::unique_ptr<sqlite3, CloseDb>;
using StmtPtr = std::unique_ptr<sqlite3_stmt, Finalize>;

Status exec(sqlite3* db, const std::string& sql) {
  return sqlite_status(db, sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), sql);
}

Result<StmtPtr> prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return sqlite_status(db, rc, "prepare " + sql);
  return StmtPtr(stmt);
}

Result<DbPtr> connect(const std::string& file) {
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(file.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  DbPtr db(raw);  // sqlite3_open_v2 may return a handle even on failure
  if (rc != SQLITE_OK) return sqlite_status(db.get(), rc, "open " + file);
  return db;
}

// The SQL name of table `name`: "t_<name>", quoted.
std::string table_sql(std::string_view name) {
  std::string out = "\"t_";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void bind_blob(sqlite3_stmt* s, int i, ByteView b) {
  // SQLITE_STATIC: the bytes outlive the step that reads them.
  sqlite3_bind_blob(s, i, b.size() == 0 ? static_cast<const void*>("") : b.data(),
                    static_cast<int>(b.size()), SQLITE_STATIC);
}

ByteView column_blob(sqlite3_stmt* s, int i) {
  return ByteView(sqlite3_column_blob(s, i), static_cast<size_t>(sqlite3_column_bytes(s, i)));
}

// Runs a statement that returns no rows, then resets it.
Status step_done(sqlite3* db, sqlite3_stmt* s, std::string_view what) {
  const int rc = sqlite3_step(s);
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? Status::ok() : sqlite_status(db, rc, what);
}

// The writer's statements of one table.
struct WriteStatements {
  StmtPtr put;
  StmtPtr del;
};

class SqliteWrite final : public KvWrite {
 public:
  SqliteWrite(sqlite3* db, const std::vector<WriteStatements>& tables) : db_(db), tables_(tables) {}
  ~SqliteWrite() override {
    if (!done_) (void)exec(db_, "ROLLBACK");
  }

  Status put(TableId table, ByteView key, ByteView value) override {
    sqlite3_stmt* s = tables_[table].put.get();
    bind_blob(s, 1, key);
    bind_blob(s, 2, value);
    return step_done(db_, s, "put");
  }
  Status del(TableId table, ByteView key) override {
    sqlite3_stmt* s = tables_[table].del.get();
    bind_blob(s, 1, key);
    return step_done(db_, s, "delete");
  }
  Status commit() override {
    done_ = true;
    Status s = exec(db_, "COMMIT");
    if (!s.is_ok()) (void)exec(db_, "ROLLBACK");
    return s;
  }

 private:
  sqlite3* db_;
  const std::vector<WriteStatements>& tables_;
  bool done_ = false;
};

class SqliteRead final : public KvRead {
 public:
  SqliteRead(DbPtr db, const std::vector<std::string>& names) : db_(std::move(db)), names_(names) {}
  ~SqliteRead() override {
    if (in_txn_) (void)exec(db_.get(), "COMMIT");
  }

  // One read txn for the reader's life; without it (begin_request_reads)
  // each statement runs in autocommit mode, its own read txn.
  Status begin() {
    ORDO_RETURN_IF_ERROR(exec(db_.get(), "BEGIN"));
    in_txn_ = true;
    return Status::ok();
  }

  Result<ByteView> get(TableId table, ByteView key) override {
    ORDO_ASSIGN_OR_RETURN(sqlite3_stmt * s, statements(table, /*scan=*/false));
    bind_blob(s, 1, key);
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) value_.assign(column_blob(s, 0).view());
    sqlite3_reset(s);
    if (rc == SQLITE_DONE) return Status::not_found("sqlite get: no such key");
    if (rc != SQLITE_ROW) return sqlite_status(db_.get(), rc, "get");
    return ByteView(value_);
  }

  Result<uint64_t> scan(TableId table, ByteView from, uint64_t limit,
                        const ScanVisitor& visit) override {
    ORDO_ASSIGN_OR_RETURN(sqlite3_stmt * s, statements(table, /*scan=*/true));
    bind_blob(s, 1, from);
    sqlite3_bind_int64(s, 2, static_cast<sqlite3_int64>(std::min<uint64_t>(limit, INT64_MAX)));
    uint64_t n = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      visit(column_blob(s, 0), column_blob(s, 1));
      ++n;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return sqlite_status(db_.get(), rc, "scan");
    return n;
  }

 private:
  // The get or scan statement of `table`, prepared on first use.
  Result<sqlite3_stmt*> statements(TableId table, bool scan) {
    if (gets_.size() <= table) {
      gets_.resize(table + 1);
      scans_.resize(table + 1);
    }
    StmtPtr& s = scan ? scans_[table] : gets_[table];
    if (s == nullptr) {
      const std::string t = table_sql(names_[table]);
      ORDO_ASSIGN_OR_RETURN(s, prepare(db_.get(), scan ? "SELECT k, v FROM " + t +
                                                             " WHERE k >= ?1 ORDER BY k LIMIT ?2"
                                                       : "SELECT v FROM " + t + " WHERE k = ?1"));
    }
    return s.get();
  }

  // Statements are declared after the connection: they are finalized first.
  DbPtr db_;
  const std::vector<std::string>& names_;
  std::vector<StmtPtr> gets_;
  std::vector<StmtPtr> scans_;
  std::string value_;  // the last get's value
  bool in_txn_ = false;
};

class SqliteKv final : public KvEngine {
 public:
  SqliteKv(DbPtr db, std::string dir, std::string file)
      : db_(std::move(db)), dir_(std::move(dir)), file_(std::move(file)) {}

  std::string_view name() const override { return "sqlite"; }

  Result<TableId> open_table(std::string_view name) override {
    const std::string t = table_sql(name);
    ORDO_RETURN_IF_ERROR(exec(db_.get(), "CREATE TABLE IF NOT EXISTS " + t +
                                             " (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID"));
    WriteStatements w;
    ORDO_ASSIGN_OR_RETURN(
        w.put, prepare(db_.get(), "INSERT OR REPLACE INTO " + t + " (k, v) VALUES (?1, ?2)"));
    ORDO_ASSIGN_OR_RETURN(w.del, prepare(db_.get(), "DELETE FROM " + t + " WHERE k = ?1"));
    tables_.push_back(std::move(w));
    names_.emplace_back(name);
    return static_cast<TableId>(tables_.size() - 1);
  }

  Result<std::unique_ptr<KvWrite>> begin_write() override {
    ORDO_RETURN_IF_ERROR(exec(db_.get(), "BEGIN"));
    return std::unique_ptr<KvWrite>(std::make_unique<SqliteWrite>(db_.get(), tables_));
  }

  Result<std::unique_ptr<KvRead>> begin_read() override {
    ORDO_ASSIGN_OR_RETURN(DbPtr db, connect(file_));
    auto read = std::make_unique<SqliteRead>(std::move(db), names_);
    ORDO_RETURN_IF_ERROR(read->begin());
    return std::unique_ptr<KvRead>(std::move(read));
  }

  Result<std::unique_ptr<KvRead>> begin_request_reads() override {
    ORDO_ASSIGN_OR_RETURN(DbPtr db, connect(file_));
    return std::unique_ptr<KvRead>(std::make_unique<SqliteRead>(std::move(db), names_));
  }

  // The writer's connection, shared: one call at a time under a mutex, each
  // its own BEGIN ... COMMIT (SQLite lets one writer in at a time anyway).
  Status put_concurrent(TableId table, ByteView key, ByteView value) override {
    std::lock_guard lock(concurrent_);
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvWrite> write, begin_write());
    ORDO_RETURN_IF_ERROR(write->put(table, key, value));
    return write->commit();
  }

  // VACUUM (it rebuilds the file through the WAL), then a truncating
  // checkpoint so that the rebuilt pages reach the file and the WAL empties.
  Result<std::string> compact(const std::string& /*copy_path*/) override {
    ORDO_RETURN_IF_ERROR(exec(db_.get(), "VACUUM"));
    ORDO_RETURN_IF_ERROR(exec(db_.get(), "PRAGMA wal_checkpoint(TRUNCATE)"));
    return dir_;
  }

  Status close() override {
    tables_.clear();  // finalize the statements, then close
    const int rc = sqlite3_close(db_.get());
    if (rc != SQLITE_OK) return sqlite_status(db_.get(), rc, "close");
    (void)db_.release();
    return Status::ok();
  }

 private:
  DbPtr db_;
  std::string dir_;                      // the store
  std::string file_;                     // its database file
  std::mutex concurrent_;                // put_concurrent's callers
  std::vector<WriteStatements> tables_;  // by TableId; finalized before db_ closes
  std::vector<std::string> names_;       // by TableId
};

}  // namespace

Result<std::unique_ptr<KvEngine>> open_sqlite_kv(const std::string& path,
                                                 const KvOptions& options) {
  ORDO_RETURN_IF_ERROR(make_store_directory(path));
  const std::string file = path + "/db.sqlite";
  ORDO_ASSIGN_OR_RETURN(DbPtr db, connect(file));
  ORDO_RETURN_IF_ERROR(exec(db.get(), "PRAGMA journal_mode=WAL"));
  ORDO_RETURN_IF_ERROR(
      exec(db.get(), options.durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF"));
  return std::unique_ptr<KvEngine>(std::make_unique<SqliteKv>(std::move(db), path, file));
}

}  // namespace ordo::bench
