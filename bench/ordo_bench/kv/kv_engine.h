// KvEngine: the one interface every workload drives, so that ordo and its
// peers (LMDB, RocksDB, LevelDB, SQLite, WiredTiger) run the same keys, values and commit
// points (docs/BENCHMARKS.md, "The drivers"). One adapter per engine, each in its own
// file (kv_ordo.cc, kv_lmdb.cc, ...); kv_registry.h opens one by name.
//
// Model: a store at one path holds named tables (ordo trees, LMDB named DBs,
// RocksDB column families, LevelDB key prefixes, SQLite WITHOUT ROWID
// tables, WiredTiger tables). Writes go through one KvWrite at a time (a txn or write batch);
// commit() makes them visible and, when the store was opened durable, durable
// with the engine's own durable setting. Reads go through KvRead snapshots,
// any number, each used by one thread.
//
// Errors: every call returns Status/Result; a peer library's error is
// converted to the closest Status code with the peer's own message.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ordo/byte_view.h"
#include "ordo/options.h"
#include "ordo/status.h"
#include "ordo/uuid.h"

namespace ordo {
class Database;
}

namespace ordo::bench {

struct KvOptions {
  // Commits survive power loss: ordo sync_commits, LMDB without MDB_NOSYNC,
  // RocksDB/LevelDB WriteOptions.sync, SQLite WAL + synchronous=FULL,
  // WiredTiger's log with commit_transaction("sync=on"). When false each
  // engine skips its syncs (SQLite: synchronous=OFF; WiredTiger:
  // transaction_sync method=none).
  bool durable = true;
  // LMDB only: mdb_env_set_maxdbs, the named DBs (tables) the store may hold.
  uint32_t max_tables = 256;
  // ordo: Options::txn_memory_budget_bytes; wiredtiger-equal-mem: its
  // cache_size, so that both run in the same memory.
  uint64_t ordo_txn_budget_bytes = Options{}.txn_memory_budget_bytes;
};

// A table of one store, from KvEngine::open_table; valid for that store.
using TableId = uint32_t;

// One write txn or batch. Destroying it without commit() discards its writes.
// Used by one thread.
class KvWrite {
 public:
  virtual ~KvWrite() = default;

  // Inserts or overwrites.
  virtual Status put(TableId table, ByteView key, ByteView value) = 0;
  // Removes `key`. Absent keys are not an error (RocksDB, LevelDB and SQLite
  // cannot tell inside a batch), so the adapters ignore NotFound.
  virtual Status del(TableId table, ByteView key) = 0;
  // Makes every write visible (durable when the store is). The KvWrite is
  // finished afterwards, whatever the outcome.
  virtual Status commit() = 0;
  // ordo: WriteTxn::next_id() (the engine's own time-ordered IDs); peers:
  // nullopt, and the workload uses a standalone UuidV7Generator.
  virtual std::optional<Uuid> engine_id() { return std::nullopt; }
};

// The leaves of one table as its engine lays them out.
struct TableShape {
  uint64_t entries = 0;
  uint64_t leaf_pages = 0;
  uint64_t branch_pages = 0;
  uint32_t page_size_bytes = 0;
  double leaf_fill = 0;  // leaf bytes in use / leaf pages x page size, 0..1
};

// Called for each entry of a scan; the views are valid during the call only.
using ScanVisitor = std::function<void(ByteView key, ByteView value)>;

// A read snapshot of the last commit before it began (for SQLite, of the
// commit current at its first read). Used by one thread at a time; ends on
// destruction.
class KvRead {
 public:
  virtual ~KvRead() = default;

  // The value under `key`, NotFound when absent. The view is valid until the
  // next call on this reader.
  virtual Result<ByteView> get(TableId table, ByteView key) = 0;
  // Visits up to `limit` entries with key >= `from`, in key order; returns
  // how many it visited.
  virtual Result<uint64_t> scan(TableId table, ByteView from, uint64_t limit,
                                const ScanVisitor& visit) = 0;
};

// One open store. Destroying it closes it (errors then are dropped: call
// close() to see them). REQUIRES: every KvWrite and KvRead ended first.
// Thread-safety: the KvEngine's own calls from one thread; a KvRead it made
// may then be handed to another thread (each thread its own KvRead).
class KvEngine {
 public:
  virtual ~KvEngine() = default;

  // "ordo", "lmdb", "lmdb-append", "rocksdb", "leveldb", "sqlite", "wiredtiger" or
  // "wiredtiger-equal-mem" (or one of ordo's variants, kv_registry.h).
  virtual std::string_view name() const = 0;
  // Opens the table `name`, creating it (in its own commit) when missing.
  virtual Result<TableId> open_table(std::string_view name) = 0;
  // The write txn/batch. At most one at a time.
  virtual Result<std::unique_ptr<KvWrite>> begin_write() = 0;
  virtual Result<std::unique_ptr<KvRead>> begin_read() = 0;
  // A reader for a server that answers one request per call: each get() and
  // scan() reads its own snapshot of the last commit, taken when the call
  // begins and ended before it returns, as the engine's users do per request.
  // ordo: one ReadTxn, renew() before the call and reset() after; LMDB: one
  // MDB_txn, mdb_txn_renew and mdb_txn_reset; RocksDB and LevelDB: reads
  // without a snapshot (each call its own implicit one); SQLite: statements
  // in autocommit mode on the reader's own connection (each its own read
  // txn). A value is the reader's copy, valid until its next call, as a
  // response built from it would be. Used by one thread at a time.
  virtual Result<std::unique_ptr<KvRead>> begin_request_reads() = 0;
  // Flushes what the engine holds in memory and closes; afterwards only the
  // destructor may be called.
  virtual Status close() = 0;

  // Puts one row and commits it in a write of its own (durable when the
  // store is), from any number of threads at once: the concurrent-commit arm
  // of the commit workload. Each adapter says how its writers meet (one txn
  // per call, a synced write batch, a shared connection under a mutex).
  // REQUIRES: no KvWrite from begin_write() open meanwhile.
  virtual Status put_concurrent(TableId table, ByteView key, ByteView value) = 0;

  // Compacts the store the engine's own way and returns the path whose files
  // now hold it: ordo and LMDB write a compact copy at `copy_path` (a new
  // file or directory) and return it; RocksDB, LevelDB, SQLite and WiredTiger
  // compact in place and return the store's own path, leaving `copy_path` unused.
  // REQUIRES: no KvWrite or KvRead open.
  virtual Result<std::string> compact(const std::string& copy_path) = 0;

  // The shape of `table` in the last commit: ordo from a walk of its tree,
  // LMDB from mdb_stat and its node layout; nullopt for engines without
  // pages (RocksDB, LevelDB), without a page count per table (SQLite) or
  // without a fixed page size (WiredTiger).
  // REQUIRES: no KvWrite open.
  virtual Result<std::optional<TableShape>> table_shape(TableId table) {
    return std::optional<TableShape>();
  }

  // Counters the adapter keeps (lmdb-append: puts that could not append),
  // name -> number, reported beside the workload's figures.
  virtual std::vector<std::pair<std::string, double>> counters() const { return {}; }
  // The ordo Database behind the "ordo" adapter (for its own stats); nullptr
  // for peers.
  virtual Database* ordo_database() { return nullptr; }
};

}  // namespace ordo::bench
