// ordo: an embedded persistent key-value store. One database is one file
// holding any number of named B+-trees (plus a default tree), updated by
// copy-on-write transactions.
//
//   auto db = ordo::Database::open("/data/graph.ordo");        // Result<unique_ptr>
//   auto txn = (*db)->begin_write();
//   auto nodes = txn->create_tree("nodes");
//   ordo::Uuid id = txn->next_id();                             // time-ordered
//   txn->put(*nodes, id.view(), "record");
//   ordo::Status s = txn->commit();                            // durable on return
//
// Transactions: one write txn at a time (begin_write() waits for the current
// one to end); any number of read txns, each on the snapshot of the last
// commit before it began, in any threads. Readers never block the writer.
// A txn object and its cursors are used by one thread at a time. A txn that
// is destroyed without commit() is aborted. The Database must outlive every
// txn and cursor made from it.
//
// Keys and values are byte strings (ByteView). Keys compare as unsigned bytes.
// Limits (page size P, 4096 by default): key at most P/4 - 24 bytes (1000 at
// 4 KiB); value at most kMaxValueBytes (128 MiB); larger is InvalidArgument.
// Values up to P/4 bytes live in the leaf; larger ones in a run of overflow
// pages. Tree names: 1 to P/4 - 24 bytes; the number of trees is limited only
// by the file size.
//
// Errors: every fallible call returns Status or Result<T> (status.h); no
// exception crosses this API.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/byte_view.h"
#include "ordo/id64.h"
#include "ordo/options.h"
#include "ordo/status.h"
#include "ordo/uuid.h"

namespace ordo {

// Largest value in bytes (128 MiB).
inline constexpr uint64_t kMaxValueBytes = 128ull << 20;

class Database;
class TxnImpl;
class WriteTxnImpl;
class DatabaseImpl;
class CursorImpl;
class DatabaseOpener;

// Names one tree of a database. Cheap to copy; valid for the Database that
// issued it, in any later txn (a txn that cannot see the tree reports
// NotFound). The default tree always exists.
struct Tree {
  uint32_t id = 0;   // 0 is the default tree
  std::string name;  // empty for the default tree
};

// Shape and fill of one tree, from a full walk of its pages.
struct TreeStats {
  std::string name;
  uint64_t entries = 0;
  uint32_t depth = 0;  // 0 for an empty tree, 1 when the root is a leaf
  uint64_t leaf_pages = 0;
  uint64_t branch_pages = 0;
  double leaf_fill = 0;  // leaf bytes in use / leaf bytes, 0..1
};

// Pages in the free tree, from a walk of it.
struct FreeSpace {
  uint64_t free_pages = 0;     // all pages recorded as free
  // Of those, pages the next write txn may not reuse yet: freed by the last
  // commit, or still reachable from a live read snapshot.
  uint64_t pending_pages = 0;
  uint64_t entries = 0;        // free-tree entries (freeing txn, chunk)
};

// One problem found by Txn::check().
struct CheckProblem {
  uint64_t page_number = 0;  // the page concerned (0 and 1 are the meta pages)
  std::string what;
};

// What Txn::check() found.
struct CheckReport {
  bool clean() const { return problems.empty(); }
  std::vector<CheckProblem> problems;  // in walk order; at most kMaxProblems
  bool truncated = false;              // more problems than were kept
  uint64_t high_water_pages = 0;       // pages below the high-water mark
  uint64_t tree_pages = 0;             // leaf and branch pages, every tree
  uint64_t overflow_pages = 0;
  uint64_t free_pages = 0;             // listed in the free tree
  uint64_t trees = 0;                  // default tree plus named trees walked
  uint64_t entries = 0;                // keys in all trees
  static constexpr size_t kMaxProblems = 1000;
};

// One of the two meta pages as found on disk.
struct MetaInfo {
  bool valid = false;  // magic, version, page size and checksum all verify
  std::string problem;  // why not valid; empty when valid
  uint64_t txn_id = 0;
  uint64_t page_high_water = 0;  // pages ever used (next never-used page number)
  uint64_t file_bytes = 0;       // file length the meta's commit allocated
  uint64_t free_pages = 0;       // pages recorded in the free tree
  uint64_t tree_count = 0;       // named trees in the catalog
};

// What `ordo info` shows.
struct DatabaseInfo {
  std::string path;
  uint32_t page_size_bytes = 0;
  uint32_t format_version = 0;
  uint64_t file_bytes = 0;        // current file length
  uint64_t txn_id = 0;            // last committed txn
  int current_meta = 0;           // 0 or 1: the meta page in use
  MetaInfo metas[2];
  uint64_t pages_used = 0;        // high-water pages minus free pages
  Uuid id_high_water;             // last UUIDv7 issued by a committed txn
  Id64 id64_high_water;           // last 64-bit ID issued by a committed txn
  std::string io_backend;         // "io_uring", "posix", or "none" (read-only)
  // Non-empty when open found the newest commit incomplete (a crash during a
  // one-sync commit) and used the one before; says which and why.
  std::string recovery;
};

// Counters since open, for benchmarks and tests. Each is read atomically, not all
// together. What a steady-state commit costs (Database::stats() before and after):
// one-sync with io_uring, 1 write_calls and 1 syncs; two-sync, 2 and 2; with POSIX,
// write_calls counts each pwritev (one per run of adjacent pages, plus the meta page)
// and each fdatasync; file_growths stays 0 until the preallocated extent is used up.
struct Stats {
  uint64_t commits = 0;        // successful commits
  uint64_t pages_written = 0;  // data and meta pages written by commits
  uint64_t bytes_written = 0;  // bytes of successful writes: commits, spills, overflow runs
  // System calls that handed writes or syncs to the kernel: io_uring_enter calls with
  // io_uring (a one-sync commit is one), pwritev and fdatasync calls with POSIX. Failed
  // calls count too.
  uint64_t write_calls = 0;
  uint64_t syncs = 0;          // successful fdatasyncs (io_uring or POSIX)
  uint64_t file_growths = 0;   // extent preallocations (fallocate) that grew the file
  uint64_t pages_reused = 0;   // allocations served from the free tree
  uint64_t pages_spilled = 0;  // dirty pages written before commit (memory budget)
  uint64_t overflow_pages_written = 0;  // pages of large values
};

// Ordered iteration over one tree. Positioning calls return Corruption when
// they meet a damaged page. key()/value() REQUIRE valid(); their views stay
// valid until the txn ends, or in a write txn until its next write; a cursor
// of a write txn must be repositioned after a write.
// REQUIRES: the txn that made the cursor is still live (not committed,
// aborted or destroyed). A cursor used after its txn ended is not detected:
// its snapshot's pages may have been reused, so it can return wrong entries
// or Corruption.
class Cursor {
 public:
  Cursor(Cursor&&) noexcept;
  Cursor& operator=(Cursor&&) noexcept;
  ~Cursor();

  Status first();
  Status last();
  Status seek(ByteView key);  // first entry with key >= `key`
  Status next();
  Status prev();
  bool valid() const;
  ByteView key() const;
  // An overflow value whose pages are damaged reads as empty and sets
  // status() to Corruption.
  ByteView value() const;
  // Ok, or the Corruption met by value().
  Status status() const;

 private:
  friend class Txn;
  explicit Cursor(std::unique_ptr<CursorImpl> impl);
  std::unique_ptr<CursorImpl> impl_;
};

// Reads shared by read and write txns.
class Txn {
 public:
  Txn(Txn&&) noexcept;
  Txn& operator=(Txn&&) noexcept;
  virtual ~Txn();

  // The txn id of the snapshot read (a write txn: the id it will commit as;
  // 0 once it ended).
  uint64_t txn_id() const;

  Tree default_tree() const { return Tree{}; }
  // NotFound when no tree of that name exists in this txn's view.
  Result<Tree> open_tree(std::string_view name);
  // Names of all named trees, in byte order.
  Result<std::vector<std::string>> list_trees();

  // The value stored under `key`. NotFound when absent or when the tree does
  // not exist in this txn; Corruption on a damaged page. The view is valid as
  // Cursor::key() documents.
  Result<ByteView> get(const Tree& tree, ByteView key);
  // A cursor, not yet positioned. NotFound for an unknown tree.
  Result<Cursor> cursor(const Tree& tree);
  // Walks the whole tree; Corruption names the first damaged page.
  Result<TreeStats> tree_stats(const Tree& tree);
  // Walks the free tree.
  Result<FreeSpace> free_space();

  // Checks this snapshot whole: every page of every tree, the catalog and the
  // free tree against its parent's checksum, page types and depth, key order
  // and the key bounds set by parents, overflow runs, catalog entries, entry
  // and page counts, and that every page below the high-water mark is
  // reachable exactly once or free exactly once (no leak, no double use).
  // Problems go into the report; the Status is non-ok only when the check
  // itself could not run. `progress(pages_done, pages_total)` is called every
  // few thousand pages. Work: one read and one hash of every page.
  Result<CheckReport> check(
      const std::function<void(uint64_t pages_done, uint64_t pages_total)>& progress = {});

 protected:
  Txn(std::unique_ptr<TxnImpl> impl, DatabaseImpl* db);
  // Null once a write txn committed or aborted; every call then fails with
  // InvalidArgument.
  std::unique_ptr<TxnImpl> impl_;
  DatabaseImpl* db_;
};

// A read txn: a snapshot. Holding one keeps the pages it can reach from
// being reused, so end long reads when done.
class ReadTxn : public Txn {
 private:
  friend class Database;
  ReadTxn(std::unique_ptr<TxnImpl> impl, DatabaseImpl* db);
};

// The write txn. Sees its own writes.
class WriteTxn : public Txn {
 public:
  // Creates the named tree, or opens it if it exists. InvalidArgument for an
  // empty or oversized name. Writes nothing until commit.
  Result<Tree> create_tree(std::string_view name);

  // Inserts or overwrites. InvalidArgument for an oversized key or value or
  // after a failed commit; NotFound for an unknown tree; Corruption on a
  // damaged page; Full when the file cannot grow.
  Status put(const Tree& tree, ByteView key, ByteView value);
  // Removes `key`; NotFound when absent. Pages left underfull merge with a
  // neighbour; freed pages go to the free tree.
  Status del(const Tree& tree, ByteView key);

  // Bulk load: appends `key`, which must sort after every key in the tree
  // (else InvalidArgument, and nothing changes), filling pages bottom-up to
  // Options::append_fill. Much faster than put for sorted input.
  Status append(const Tree& tree, ByteView key, ByteView value);

  // Removes the tree and frees all its pages. NotFound when absent;
  // InvalidArgument for the default tree. Handles to it then fail NotFound.
  Status drop_tree(std::string_view name);
  // Renames a tree. NotFound when `from` is absent; InvalidArgument when `to`
  // exists or is not a valid name. Handles to the old name fail NotFound.
  Status rename_tree(std::string_view from, std::string_view to);

  // A time-ordered RFC 9562 UUIDv7, strictly greater than every ID issued by
  // this database before, even across reopen with the clock set back.
  Uuid next_id();
  // A time-ordered 64-bit ID (ms, node Options::id_node, sequence), same rules.
  Id64 next_id64();

  // Makes every write durable (Options::commit_protocol: by default pages and
  // meta page, then one fdatasync) and visible to later txns. After it
  // returns, the txn is finished whatever the outcome. Full (no disk space)
  // leaves the database at its previous commit and usable. IOError also
  // leaves the previous commit, and poisons the handle: every later
  // begin_write() fails with IOError until the database is reopened.
  Status commit();
  // Discards every write. Also done by the destructor.
  void abort();

 private:
  friend class Database;
  WriteTxn(std::unique_ptr<TxnImpl> impl, DatabaseImpl* db);
  WriteTxnImpl& writer();
};

class Database {
 public:
  // Opens or creates the database file at `path`.
  // Returns: Busy when another handle (this or another process) has it open
  // for writing; NotFound when missing and !create_if_missing or read_only;
  // InvalidArgument for a file that is not an ordo database, of another
  // format version or page size, or a bad option; Corruption for a damaged or
  // truncated file (the message names what); IOError for OS failures.
  static Result<std::unique_ptr<Database>> open(const std::string& path,
                                                const Options& options = {});
  ~Database();

  // A snapshot of the last commit. Thread-safe.
  Result<ReadTxn> begin_read();
  // The write txn; waits while another one is open. InvalidArgument on a
  // read-only database. Thread-safe.
  Result<WriteTxn> begin_write();

  DatabaseInfo info() const;  // thread-safe
  Stats stats() const;        // thread-safe
  uint32_t page_size_bytes() const;
  uint32_t max_key_bytes() const;
  uint64_t max_value_bytes() const;    // kMaxValueBytes
  uint32_t max_inline_value_bytes() const;  // larger values go to overflow pages

 private:
  friend class DatabaseOpener;  // engine-internal: opens with a test I/O backend
  explicit Database(std::unique_ptr<DatabaseImpl> impl);
  std::unique_ptr<DatabaseImpl> impl_;
};

}  // namespace ordo
