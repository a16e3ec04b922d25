// ordo: an embedded persistent key-value store. One database is one file
// holding any number of named B+-trees (plus a default tree), updated by
// copy-on-write transactions.
//
//   auto db = ordo::Database::open("/data/graph.ordo");    // Result<unique_ptr<Database>>
//   if (!db.is_ok()) return fail(db.status());             // status().to_string() says why
//   auto txn = (*db)->begin_write();
//   if (!txn.is_ok()) return fail(txn.status());
//   auto nodes = txn->create_tree("nodes");
//   if (!nodes.is_ok()) return fail(nodes.status());
//   auto id = txn->next_id();                              // time-ordered UUIDv7
//   if (!id.is_ok()) return fail(id.status());
//   ordo::Status s = txn->put(*nodes, id->view(), "record");
//   if (s.is_ok()) s = txn->commit();                      // durable on return
//
// Transactions: one write txn at a time per database; any number of read
// txns, each on the snapshot of the last commit before it began, in any
// threads. Readers never block the writer. A txn object and its cursors are
// used by one thread at a time. A txn destroyed without commit() is aborted.
// Many threads making small changes share one write txn and one durable
// commit through Database::batch (group commit).
//
// Lifetimes (redb's model): every txn keeps the state of its database alive,
// so destroying the Database while txns or cursors exist, even while other
// threads read, is safe: they keep working, and the file is closed (its
// locks released) when the Database and the last txn are gone. A cursor
// keeps nothing alive: once its txn ends, every call on it reports TxnEnded.
// Calls on an ended txn report TxnEnded too. Nothing is undefined behaviour
// short of using a destroyed object.
//
// fork(): a child process inherits the parent's handles but must not use
// them: begin_read/begin_write/commit in the child return InvalidArgument.
// The child may destroy inherited handles, or exit normally or not: that
// releases none of the parent's locks or reader slots, shrinks no file and
// ends none of the parent's snapshots. The child opens the database itself
// if it needs it. (Descriptors are close-on-exec: exec releases everything.)
//
// Keys and values are byte strings (ByteView). Keys compare as unsigned bytes.
// Limits (page size P, 4096 by default): key at most P/4 - 24 bytes (1000 at
// 4 KiB); value at most kMaxValueBytes (128 MiB); larger is InvalidArgument.
// Values up to P/4 bytes live in the leaf; larger ones in a run of overflow
// pages. Tree names: 1 to P/4 - 24 bytes; the number of trees is limited only
// by the file size.
//
// Errors: every fallible call returns Status or Result<T> (status.h); no
// exception crosses this API but one thrown by the caller's own batch
// function, which Database::batch rethrows to that caller.
//
// This header, in order: Database, the txns (Txn, ReadTxn, WriteTxn),
// Cursor, then the values they take and return (Tree, KeyRange,
// UpgradeResult). The reports a database gives about itself (DatabaseInfo,
// Stats, CheckReport, TreeStats, FreeSpace) are in ordo/diagnostics.h,
// included here; the page-level inspection API is ordo/inspect.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/byte_view.h"
#include "ordo/changes.h"
#include "ordo/copy.h"
#include "ordo/diagnostics.h"
#include "ordo/id64.h"
#include "ordo/options.h"
#include "ordo/status.h"
#include "ordo/uuid.h"

namespace ordo {

class Database;
class Txn;
class ReadTxn;
class WriteTxn;
class Cursor;
class Tree;
class KeyRange;
class Savepoint;
struct UpgradeResult;
class TxnImpl;
class WriteTxnImpl;
class DatabaseImpl;
class CursorImpl;
class DatabaseOpener;
class TreeHandles;
class SavepointHandles;
class TxnFactory;
class TxnInternals;

// Called by Txn::scan for each entry in key order; return false to stop.
// The views are valid until the call returns or writes to the txn,
// whichever comes first.
using ScanFn = std::function<bool(ByteView key, ByteView value)>;

// The work of one Database::batch call: its changes, made in the group's
// write txn. Returns Ok to have them committed, anything else to have them
// rolled back (that status is then the caller's outcome). See batch().
using BatchFn = std::function<Status(WriteTxn&)>;

// An open database file. Thread-safe: every method may be called from any
// thread. Destroying it while txns exist is safe (see the top of this file).
class Database {
 public:
  // Opens or creates the database file at `path`.
  // Returns: Busy when another handle (this or another process) has it open
  // for writing and Options::writer_wait_ms passed; NotFound when missing
  // and !create_if_missing or read_only; NotOrdoFile for a file that is not
  // an ordo database (an empty file, or one of zeros only as a create cut
  // short between growing the file and writing its first meta leaves, is one
  // only for a read-only open: a writable open makes it a new database and,
  // for zeros, says so in DatabaseInfo::recovery); VersionMismatch for another format version;
  // InvalidArgument for another page size than Options asks, or a bad
  // option (an Options enum out of range included); Full when the file does
  // not fit in Options::map_reserve_bytes, or a new file's meta pages do not
  // fit on the filesystem; Corruption for a damaged or
  // truncated file (the message names what); NeedsRecovery (read_only only)
  // when the file's log holds commits whose pages are not all in the file,
  // after a crash of the machine or damage such as a cut (the message names
  // the txns, what failed and any newer checkpoint passed over): a writable
  // open replays them; IOError for OS failures.
  static Result<std::unique_ptr<Database>> open(const std::string& path,
                                                const Options& options = {});
  ~Database();

  // Converts the database file at `path` from format version 2 or 3 to
  // version 4 in place (docs/FORMAT.md, "Version history"); the last commit
  // stays the last commit, its trees, free pages and ID high-water marks
  // unchanged. A version 2 file first becomes version 3: the newest commit a
  // version 2 open would take (a one-sync commit only when its pages verify)
  // is kept, and a log area of `log_bytes` (0: Options::log_bytes' default,
  // 4 MiB; else a multiple of the page size from 64 KiB to 1 GiB) is added at
  // the old page high-water mark, written with zeros and synced. Then every
  // branch page is written anew past the high-water mark with the entry
  // counts of version 4 (leaves and overflow runs stay where they are; each
  // page read is checked against its parent's checksum), and synced; the
  // version 4 meta goes to the slot not holding the old meta and is synced;
  // then the other slot is zeroed and synced. A crash or failure at any
  // point leaves a file that Database::open reads as upgraded, or that
  // upgrade() converts again, with no commit lost. A file at version 4
  // already is left as it is: Ok with UpgradeResult::upgraded false (so
  // running it again is harmless).
  // Thread-safety: holds the file's writer lock for the call, so it fails
  // rather than run beside a handle that writes the file; any thread may
  // call it. Run it on a file that no process reads either (this build
  // cannot open an older file, but an older build can).
  // Returns: NotFound for a missing file; Busy when another handle (this or
  // another process) has the file open for writing; InvalidArgument for a
  // bad log_bytes; NotOrdoFile, Corruption (a damaged or truncated file, or
  // a tree whose pages disagree with their parents; the message names what)
  // and VersionMismatch (a version other than 2, 3 or 4) as open() reports
  // them; Corruption, changing nothing, for a version 3 file whose logged
  // commits lost pages in a crash (an open by a version 3 build replays
  // them; then upgrade); Full when the file system has no room for the log
  // area or the new branches; IOError for OS failures.
  static Result<UpgradeResult> upgrade(const std::string& path, uint64_t log_bytes = 0);

  // A snapshot of the last commit: it holds every commit that returned
  // before the call, in any process. InvalidArgument in a forked child; on a
  // read-only handle IOError, Busy, Corruption or NeedsRecovery as
  // ReadTxn::renew() says.
  // A thread that reads one snapshot after another may keep one ReadTxn and
  // reset() and renew() it instead.
  Result<ReadTxn> begin_read();
  // The write txn; waits while another thread's write txn is open. Busy at
  // once when this thread holds the open write txn (waiting would never
  // end); InvalidArgument on a read-only database or in a forked child;
  // IOError after a failed commit poisoned the handle.
  Result<WriteTxn> begin_write();
  // As begin_write(), but Busy at once when a write txn is open.
  Result<WriteTxn> try_begin_write();
  // As begin_write(), but Busy once `timeout` passed (ms resolution).
  Result<WriteTxn> begin_write(std::chrono::milliseconds timeout);

  // Group commit: commits `fn`'s changes together with those of the batch()
  // calls other threads make at the same time, in one write txn and one
  // commit (one fdatasync), and returns once that commit is durable (as
  // Options::sync_commits says), with this caller's own outcome. Meant for
  // many threads that each make small durable changes: N concurrent calls
  // cost about one commit instead of N.
  //
  //   Status s = db->batch([&](ordo::WriteTxn& txn) {
  //     return txn.put(txn.default_tree(), key, value);
  //   });
  //
  // How: callers queue in arrival order. The caller at the front leads: it
  // takes itself and every caller queued behind it, up to 128 (the rest wait
  // for the next group), begins the write txn as begin_write() does (waiting
  // for another thread's open write txn), calls each member's `fn` in queue
  // order on that txn, commits, hands each member its outcome and wakes the
  // caller now at the front, who leads whoever queued while that commit ran.
  // No timer, no background thread: a caller alone is committed at once.
  // The members' changes are applied in queue order, so a later member sees
  // the earlier ones' writes; after a crash either every change of a group
  // is in the file or none is.
  //
  // A member that fails does not fail the others: when `fn` returns a non-Ok
  // status, the txn is rolled back, that member is dropped from the group
  // with its own status as its outcome, and the group runs again without it
  // in a fresh txn. So `fn` may be called more than once (each time on a
  // fresh txn from which its earlier changes are gone): it must have no
  // effect outside the txn (act on the outcome once batch() returned). A
  // member dropped for failing is not called again.
  //
  // Rules for `fn`: it may read and write the txn in any way (trees, puts,
  // deletes, cursors, IDs), but must not end it: commit() and abort() on it
  // return InvalidArgument (abort() does nothing) and fail the member with
  // InvalidArgument; so does moving the txn out of its WriteTxn. It must not
  // begin another write txn or call batch() (both Busy: its thread holds the
  // write txn). It runs on the leading caller's thread, which may not be its
  // caller's, while the caller waits in batch(): it may use the caller's
  // stack objects, not thread-local state. A `fn` that goes on past a call
  // that left the txn unusable (Corruption, Full, IOError) fails with that
  // status. A `fn` that throws fails its member: the others go on, and
  // batch() rethrows the exception in its caller's thread (the one exception
  // that crosses this API: the caller's own).
  //
  // Returns: Ok once this caller's changes are durable; the status `fn`
  // returned when it failed; InvalidArgument for a `fn` that tried to end
  // or move the txn (neither happens: a move leaves an ended txn), an empty `fn`, a read-only
  // database or a forked child (as begin_write); Busy at once when this thread holds the open write
  // txn (waiting would never end); otherwise every member of the group gets the same status, from
  // begin_write (IOError on a handle poisoned by a failed commit) or from commit (the database
  // stays at its previous commit; the handle stays usable or is poisoned as WriteTxn::commit says).
  //
  // Thread-safety and lifetimes: any number of threads may call it at once,
  // beside begin_write() callers and readers. `fn` and what it captures must
  // live until batch() returns (they do, on the caller's stack). The call
  // keeps the database's state alive: destroying the Database while other
  // threads' calls are queued or running is safe; they complete. Stats::batch_groups,
  // batch_members and batch_rollbacks count the groups.
  Status batch(const BatchFn& fn);

  // Makes every commit so far durable and a checkpoint (docs/FORMAT.md, "The
  // log"): fdatasync, the last commit's meta into its slot, fdatasync; the log
  // starts again, so a later open replays nothing. Commits take checkpoints
  // by themselves (when the log area fills, and at close); call this after
  // commits made with Options::sync_commits false, to make them durable at a
  // point of your choosing, as mdb_env_sync does. Waits for the write txn of
  // another thread. Nothing to do (Ok) when no commit followed the last
  // checkpoint.
  // Errors: InvalidArgument on a read-only handle or in a forked child; Busy
  // when this thread holds the open write txn; IOError/Full when a write or
  // sync fails (the handle is then poisoned, as after a failed commit; the
  // commits stay durable as far as they were).
  // Thread-safe.
  Status checkpoint();

  // A consistent copy of the last commit: begin_read(), then
  // ReadTxn::copy_to(path, options). Errors as those two.
  Result<CopyResult> copy_to(const std::string& path, const CopyOptions& options = {});

  // The state of the database (diagnostics.h): its path, page size, format
  // version and file length, the last commit, both meta pages as found on
  // disk, the log area, the ID high-water marks, the write backend, and what
  // open recovered. A read-only handle first takes the newest commit on
  // disk, as begin_read() does (when that fails, it describes the commit it
  // had). Work: the two meta pages decoded from the mapping; no walk, no I/O
  // on a writable handle. Cannot fail: a meta that does not verify is
  // reported in its MetaInfo. Thread-safe.
  DatabaseInfo info() const;
  // The counters since this handle was opened (diagnostics.h), each read
  // atomically. Costs a few atomic loads; thread-safe.
  Stats stats() const;
  // The file's page size in bytes (4096 to 65536, a power of two).
  uint32_t page_size_bytes() const;
  // The longest key, and the longest tree name, in bytes: page size / 4 - 24
  // (1000 at 4 KiB). A longer key is InvalidArgument.
  uint32_t max_key_bytes() const;
  // The longest value in bytes: kMaxValueBytes (128 MiB).
  uint64_t max_value_bytes() const;
  // The longest value in bytes stored in its leaf (page size / 4); larger
  // values go to a run of overflow pages.
  uint32_t max_inline_value_bytes() const;
  // The four size functions above are thread-safe and cannot fail.

  // Kept snapshots (docs/USING.md, "Changes between snapshots"): commits the
  // database holds on to until released, across close, reopen and crashes.
  // The pages a kept snapshot reaches are never reused, as for a live read
  // txn, so the file grows by what later commits change until it is
  // released. A kept snapshot can be read (begin_read_at) and compared with
  // a newer one (ReadTxn::changes). Copies (copy_to) do not carry them.
  //
  // Keeps the last commit; returns its txn id. The change is a commit of
  // its own (a checkpoint: two syncs), durable on return, so the next call
  // keeps that commit: each call keeps one more snapshot. Errors as
  // begin_write() and commit(); InvalidArgument on a new database with no
  // commit yet. Thread-safe: waits for another thread's write txn.
  Result<uint64_t> keep_snapshot();
  // Releases kept snapshot `txn_id`: its pages become reusable once no
  // read txn reads it. A commit as keep_snapshot(). NotFound when it is not
  // kept; other errors as keep_snapshot().
  Status release_snapshot(uint64_t txn_id);
  // The txn ids of the kept snapshots, ascending. Corruption on a damaged
  // page. Thread-safe.
  Result<std::vector<uint64_t>> kept_snapshots();
  // A read txn on kept snapshot `txn_id` (or on the snapshot of a live read
  // txn of this handle, or on the newest commit when it is `txn_id`), held
  // as long as the txn lives, even if released meanwhile. NotFound
  // "snapshot N is not held: ..." for any other txn id. Other errors as
  // begin_read().
  Result<ReadTxn> begin_read_at(uint64_t txn_id);

  // Applies the delta file at `path` (ReadTxn::copy_delta_to) in one write
  // txn: the database, which must be at the delta's base (a copy of its
  // source at base txn A, or one a delta brought there), becomes the state
  // of the delta's target txn B, and commits as txn B (two syncs), so a
  // delta from B applies next. Each change is checked against the value it
  // replaces, and the state after it against B's trees and entry counts;
  // on any mismatch nothing is committed. Returns what was applied.
  // Errors: NotFound for a missing file; Corruption for a file that is not
  // a delta, truncated or damaged (refused before anything changes), or a
  // result that does not match B; InvalidArgument "the database is at txn
  // N" or "not the delta's base state" when it is not at the base;
  // VersionMismatch for another delta format; else as begin_write() and
  // commit(). Memory: the whole delta file. Thread-safe.
  Result<DeltaResult> apply_delta(const std::string& path);

 private:
  friend class DatabaseOpener;  // engine-internal: opens over a given write backend
  explicit Database(std::shared_ptr<DatabaseImpl> impl);
  std::shared_ptr<DatabaseImpl> impl_;
};

// Reads shared by read and write txns. Every call on a txn that ended
// (committed, aborted, moved from) or is reset (ReadTxn::reset) returns
// TxnEnded.
class Txn {
 public:
  // Moves the txn; the source is then ended. Database::batch's txn, while
  // lent to a batch function, is neither moved nor replaced: it keeps its
  // txn, a target it is moved to is an ended txn, and that function's member
  // fails.
  Txn(Txn&&) noexcept;
  Txn& operator=(Txn&&) noexcept;  // ends the txn assigned to first
  virtual ~Txn();

  // True until the txn is committed, aborted or moved from; false while a
  // read txn is reset, true again once it is renewed.
  bool live() const;

  // The txn id of the snapshot read (a write txn: the id it will commit as;
  // 0 once it ended).
  uint64_t txn_id() const;

  // The default tree, which every database has (a default-constructed Tree).
  Tree default_tree() const;
  // NotFound when no tree of that name exists in this txn's view;
  // InvalidArgument for an empty or oversized name.
  Result<Tree> open_tree(std::string_view name);
  // Names of all named trees, in byte order.
  Result<std::vector<std::string>> list_trees();

  // The value stored under `key`. NotFound when absent or when the tree does
  // not exist in this txn; InvalidArgument for a tree handle of another
  // database; Corruption on a damaged page. The view is valid as
  // Cursor::key() documents.
  Result<ByteView> get(const Tree& tree, ByteView key);
  // A cursor, not yet positioned. NotFound for an unknown tree;
  // InvalidArgument for a tree handle of another database.
  Result<Cursor> cursor(const Tree& tree);
  // Calls `fn` for each entry of `tree` in `range`, in key order, until it
  // returns false. In a write txn the scan sees the txn's writes, including
  // those `fn` makes: it goes on with the first key after the one visited,
  // so `fn` may delete the entry it is given (or others). Errors as cursor()
  // and Cursor::next(); a damaged overflow value is Corruption.
  Status scan(const Tree& tree, const KeyRange& range, const ScanFn& fn);

  // The shape and fill of `tree` in this txn's view (TreeStats,
  // diagnostics.h), from a walk of every page of it, overflow runs included.
  // NotFound for an unknown tree; InvalidArgument for a tree handle of
  // another database; Corruption names the first damaged page. Work: one
  // read of every page of the tree.
  Result<TreeStats> tree_stats(const Tree& tree);
  // The pages the free tree records and how many of them the next write txn
  // may not reuse yet (FreeSpace, diagnostics.h), from a walk of the free
  // tree. Corruption names the first damaged page. Work: one read of every
  // page of the free tree.
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

  // Ends the txn: a write txn discards every write (and releases the writer
  // lock), a read txn releases its snapshot; a reset read txn can no longer
  // be renewed. Also done by the destructor. Does nothing on an ended txn.
  void abort();

  // Counting and positions (docs/USING.md). Each branch entry of a tree
  // records how many entries its subtree holds, so these read one
  // root-to-leaf path or two (O(depth) pages), whatever the range's size. In
  // a write txn they see the txn's own writes. Errors: NotFound for an
  // unknown tree; InvalidArgument for a tree handle of another database;
  // Corruption on a damaged page; TxnEnded on an ended txn. Thread-safety:
  // as get().
  //
  // The number of entries of `tree` whose key lies in `range`.
  Result<uint64_t> count(const Tree& tree, const KeyRange& range);
  // The number of entries whose key sorts before `key` (bytewise): the
  // position of `key` when present, else the position it would take.
  Result<uint64_t> rank(const Tree& tree, ByteView key);
  // A cursor at the entry at position `i` (0-based, in key order), so that
  // at(t, rank(t, k)) is at `k` when present. NotFound when `i` is at or past
  // the number of entries.
  Result<Cursor> at(const Tree& tree, uint64_t i);

 protected:
  explicit Txn(std::unique_ptr<TxnImpl> impl);
  friend class TxnInternals;  // engine-internal: copy and inspection (inspect.h)
  // Null once the txn ended.
  std::unique_ptr<TxnImpl> impl_;
};

// A read txn: a snapshot. Holding one keeps the pages it can reach from
// being reused, so end long reads when done.
//
// One object may serve snapshot after snapshot, as a server answering one
// request per txn wants (LMDB's mdb_txn_reset / mdb_txn_renew):
//
//   auto txn = db->begin_read();                // once per thread
//   for (;;) {                                  // each request
//     if (ordo::Status s = txn->renew(); !s.is_ok()) return fail(s);
//     auto value = txn->get(tree, key);         // answer from the snapshot
//     txn->reset();                             // the writer may reuse its pages
//   }
//
// renew() is cheaper than begin_read(): the txn is not made again, and the
// roots of the trees it read stay looked up while no commit comes in between.
class ReadTxn : public Txn {
 public:
  // Ends the snapshot but keeps the txn for renew(): the pages the snapshot
  // reached may be reused by the writer from now on, as after abort(). Until
  // renew() succeeds every call on the txn reports TxnEnded and txn_id() is
  // 0; its cursors report TxnEnded for good (a renewed txn does not revive
  // them). Like a live txn, a reset one keeps the database's state alive
  // (the file stays open) until it is aborted or destroyed. Does nothing on
  // a reset or ended txn. Work: one lock of the database's reader table; on
  // a read-only handle, once the last reader of its snapshot in this handle
  // is gone, the release of that snapshot's reader slot (a file lock).
  // Thread-safety: one thread at a time per txn.
  void reset();

  // Takes a snapshot of the last commit, as begin_read() does, on this txn:
  // a reset txn becomes live again; a live one ends its snapshot first (as
  // reset()) and moves to the newest. Cursors made before report TxnEnded.
  // A read-only handle reads the newest meta from the file and takes its
  // reader slot, as begin_read() does.
  // Returns:
  //   TxnEnded         the txn was aborted, moved from or destroyed (abort()
  //                    ends a reset txn for good too), or holds a write txn.
  //   InvalidArgument  in a forked child (as begin_read()).
  //   IOError, Busy, Corruption  read-only handles: as begin_read() (the
  //                    meta could not be read, a writer in another process
  //                    kept committing while the snapshot was pinned, or no
  //                    valid meta).
  //   NeedsRecovery    read-only handles: the log holds commits whose pages
  //                    are not in the file (as Database::open).
  // On an error the txn is left reset: renew() may be called again.
  // Work: one lock of the reader table and a copy of the committed meta;
  // nothing is allocated. Thread-safety: one thread at a time per txn; other
  // txns and the writer go on meanwhile.
  Status renew();

  // Writes a copy of this snapshot to a new database file at `path`, while
  // writers go on committing (their commits are not in the copy). The copy
  // is a whole database whose last commit is this snapshot (same txn id, ID
  // high-water marks, trees and entries); options.compact rewrites it
  // densely (copy.h).
  //
  // Durable before it appears: the copy is written to a temporary file in
  // the target's directory (".NAME.ordo-copy-XXXXXX"), fsynced, renamed to
  // `path`, and the directory fsynced; on any error the temporary file is
  // removed and `path` is left as it was. A crash leaves either no file at
  // `path` (perhaps a stray temporary file) or the complete copy.
  // Returns:
  //   InvalidArgument  `path` exists and !options.overwrite, or names this
  //                    database's own file (also by a symlink or hard
  //                    link), a directory, or another file that is not
  //                    regular (a device, FIFO or socket is never replaced).
  //   NotFound         the target's directory does not exist.
  //   Full             no space left (ENOSPC, EDQUOT, EFBIG).
  //   Corruption       a damaged page of the snapshot (compact copies read
  //                    every entry; plain copies read the free tree and the
  //                    catalog).
  //   IOError          any other failure of the OS (errno inside).
  //   TxnEnded         the txn already ended.
  // Work: one read and one write of every page in use; a compact copy also
  // one hash per page written. Memory: a bit per page, plus one page per
  // tree level when compacting. Thread-safety: as every txn call, one thread
  // at a time per txn; other txns and the writer go on meanwhile.
  Result<CopyResult> copy_to(const std::string& path, const CopyOptions& options = {});

  // The same copy written to the open descriptor `fd` (a pipe, a socket,
  // stdout, a file), sequentially from its current position, with write(2):
  // no seek, so it streams. A compact copy reads the snapshot twice (the
  // meta pages come first and name the roots). A regular file is fsynced at
  // the end; other descriptors are not. `fd` stays open and owned by the
  // caller; options.overwrite is ignored. Errors as copy_to(path) (EPIPE is
  // IOError); on an error part of the copy may have been written.
  Result<CopyResult> copy_to_fd(int fd, const CopyOptions& options = {});

  // The changes to `tree` from the older snapshot `since_txn` to this txn's
  // snapshot, in key order (ChangeCursor, ordo/changes.h). `since_txn` must
  // be held: the snapshot of a live read txn of this handle or a kept
  // snapshot (Database::keep_snapshot); the cursor holds it while it lives.
  // A tree that did not exist at `since_txn` counts as empty then (every
  // entry an insert); one that no longer exists counts as empty now (every
  // entry a delete). `since_txn` equal to this snapshot gives no change.
  // Returns:
  //   NotFound         "snapshot N is not held: ..." for any other
  //                    `since_txn` (its pages may have been reused: never a
  //                    wrong answer); or the tree exists in neither snapshot.
  //   InvalidArgument  `since_txn` is newer than this snapshot, or a tree
  //                    handle of another database.
  //   Corruption       a damaged page (also from ChangeCursor::next()).
  //   TxnEnded         the txn ended or is reset.
  // Work: a lookup of the tree in both catalogs; then see ChangeCursor.
  Result<ChangeCursor> changes(const Tree& tree, uint64_t since_txn);

  // Writes a delta file at `path` (a new file; docs/FORMAT.md, "Delta
  // files"): every change of every tree from held snapshot `since_txn` to
  // this snapshot (trees created and dropped included), with checksums, for
  // Database::apply_delta on a copy at `since_txn`. Durable before it
  // appears, as copy_to. Work: the changed pages, as changes().
  // Errors: those of changes() for `since_txn`; InvalidArgument when
  // `path` is empty or exists; NotFound when its directory does not; Full, IOError.
  Result<DeltaResult> copy_delta_to(const std::string& path, uint64_t since_txn);

 private:
  friend class TxnFactory;  // engine-internal
  explicit ReadTxn(std::unique_ptr<TxnImpl> impl);
};

// The write txn. Sees its own writes, in get(), cursors and scan().
// After a call fails with Corruption, Full or IOError the txn may hold a
// half-made change: every later call but abort() then fails with
// InvalidArgument, and commit() aborts.
class WriteTxn : public Txn {
 public:
  // Creates the named tree, or opens it if it exists. InvalidArgument for an
  // empty or oversized name. Writes nothing until commit.
  Result<Tree> create_tree(std::string_view name);

  // Inserts or overwrites. InvalidArgument for an oversized key or value, a
  // tree handle of another database, or after a failed call; NotFound for an
  // unknown tree; Corruption on a damaged page; Full when the file cannot grow.
  Status put(const Tree& tree, ByteView key, ByteView value);
  // Removes `key`; NotFound when absent. Pages left underfull merge with a
  // neighbour; freed pages go to the free tree. Other errors as put().
  Status del(const Tree& tree, ByteView key);

  // Conditional writes, each decided at the leaf in the one descent of the
  // tree that put() makes (no get before a put); nothing is written when
  // they change nothing. Errors, size limits and what open cursors see
  // are those of put() (a removal by compare_and_set: of del()); values too
  // large for a leaf work in all three, and a replaced or removed one's
  // overflow pages are freed. Inside Database::batch they make
  // read-modify-write steps that no other member can interleave with.
  //
  // Inserts `key` only when it is absent (LMDB's MDB_NOOVERWRITE): true when
  // it was inserted, false when the key existed (its value is left as it is).
  Result<bool> insert(const Tree& tree, ByteView key, ByteView value);
  // Inserts or overwrites, as put(), and returns the value the key held
  // before (a copy, read from its overflow pages for a large one), or
  // nullopt when it was absent.
  Result<std::optional<std::string>> replace(const Tree& tree, ByteView key, ByteView value);
  // Sets `key` to `desired` only when its value equals `expected` byte for
  // byte; nullopt as `expected` means "the key is absent", as `desired`
  // "remove the key". Returns whether the values matched (the write was
  // made); false changes nothing. compare_and_set(t, k, nullopt, v) is
  // insert(t, k, v); compare_and_set(t, k, nullopt, nullopt) is true exactly
  // when the key is absent.
  Result<bool> compare_and_set(const Tree& tree, ByteView key, std::optional<ByteView> expected,
                               std::optional<ByteView> desired);

  // Removes every key in [from, to) (nothing when from >= to) and returns
  // how many it removed. Errors as put(); on an error the txn can only be
  // aborted. Work: one delete per key removed.
  Result<uint64_t> del_range(const Tree& tree, ByteView from, ByteView to);
  // Removes every key in `range`; as above.
  Result<uint64_t> del_range(const Tree& tree, const KeyRange& range);

  // Bulk load: appends `key`, which must sort after every key in the tree
  // (else InvalidArgument, and nothing changes), filling pages bottom-up to
  // Options::append_fill. Much faster than put for sorted input.
  Status append(const Tree& tree, ByteView key, ByteView value);

  // Removes the tree and frees all its pages. NotFound when absent;
  // InvalidArgument for the default tree. Handles to it then fail NotFound
  // (until a tree of the same name is created: see Tree).
  Status drop_tree(std::string_view name);
  // Renames a tree. NotFound when `from` is absent; InvalidArgument when `to`
  // exists or is not a valid name. Handles to the old name fail NotFound.
  Status rename_tree(std::string_view from, std::string_view to);

  // A time-ordered RFC 9562 UUIDv7, strictly greater than every ID issued by
  // this database before, even across reopen with the clock set back.
  // TxnEnded once the txn ended. An aborted txn's IDs are not reissued by
  // this handle; after a reopen only committed IDs are remembered.
  Result<Uuid> next_id();
  // A time-ordered 64-bit ID (ms, node Options::id_node, sequence), same rules.
  Result<Id64> next_id64();

  // Makes every write durable (Options::commit_protocol: by default the pages
  // into the page cache, then one log record synced by itself) and visible to
  // later txns. After it
  // returns, the txn is finished whatever the outcome. Other handles (read-only
  // ones, in any process) take the commit only once it is durable.
  // A failed commit leaves the previous commit, for this handle's readers,
  // every other handle and every later open: a meta already written is put
  // back before the error returns (docs/FORMAT.md, "Failed commits").
  // What the caller does next:
  //   Full from a page write or from growing the file (before the meta was
  //   written): the handle stays usable; retry on it once space is back.
  //   Full or IOError from a sync, IOError from any write: the handle is
  //   poisoned (the page cache's state is unknown after a failed sync); the
  //   message says "was not committed ... reopen", every later begin_write()
  //   fails with IOError; reads go on. Reopen the database to write again.
  //   When even the put-back could not be made durable (a disk failing every
  //   sync) the message says "failed too": a crash may then leave either commit.
  // TxnEnded when the txn already ended; InvalidArgument in a forked child.
  Status commit();

  // Savepoints: a point in the txn to come back to, as SQL's SAVEPOINT.
  //
  //   auto sp = txn.savepoint();                 // Result<Savepoint>
  //   Status s = txn.put(tree, "k", "v");        // ... any writes ...
  //   if (!s.is_ok()) s = txn.rollback_to(*sp);  // as if they were never made
  //   txn.release(*sp);                          // keep them; sp ends
  //
  // What returns: every tree's entries, the trees themselves (create_tree,
  // drop_tree, rename_tree since the savepoint are undone), the pages the txn
  // took or freed (no space is lost or leaked) and the operations its log
  // record will carry; a commit() after a rollback writes exactly the state
  // at the savepoint plus what followed the rollback. What does not: IDs
  // issued by next_id()/next_id64() (the generators stay monotonic: an ID is
  // never issued twice) and the counters of Stats.
  //
  // Nesting: savepoints nest to any depth. rollback_to(sp) ends every
  // savepoint taken after sp (they report InvalidArgument from then on) and
  // keeps sp itself, so the txn may go back to it again. release(sp) ends sp
  // and every savepoint taken after it, keeping their changes. A savepoint
  // never released ends with its txn; commit() commits what was not rolled
  // back. Savepoint handles are plain values: copying or destroying one
  // releases nothing.
  //
  // Cursors of the txn stay usable across a rollback, as across any write:
  // each re-seeks the key it was on, in the rolled-back state (the entry
  // after it when that key is gone); one of a tree that no longer exists
  // reports NotFound. Views from key()/value()/get() end, as after a write.
  // Tree handles stay valid: one of a tree created after the savepoint, and
  // rolled back, reports NotFound; one of a tree dropped or renamed after
  // it reaches that tree again.
  //
  // In Database::batch: a batch function may take, roll back to and release
  // its own savepoints in the txn it is given; the savepoints it leaves open
  // end (their changes kept) when it returns, so no function can roll back
  // another's changes.
  //
  // Cost: savepoint() copies nothing (a few small fields, bytes for two free
  // tree keys). While a savepoint is open, the first change to a page the txn
  // had written before it keeps a copy of that page in memory (outside
  // Options::txn_memory_budget_bytes; for a spilled page, read back from the
  // file), and each page allocation, free or reuse adds an entry to an undo
  // list. rollback_to() and release() cost O(pages changed since the
  // savepoint), not O(pages of the txn). Overflow runs of this txn freed while
  // a savepoint is open are reused only once none is (a rollback may need them).
  //
  // Errors (all three): TxnEnded once the txn ended; InvalidArgument after a
  // failed call left the txn fit only to be aborted (as every write call),
  // and in a forked child. rollback_to() and release() also return
  // InvalidArgument for a savepoint that is not open in this txn: a default-
  // constructed one, one of another txn, one released, or one ended by a
  // rollback to or a release of an earlier savepoint (the message says which).
  // Thread-safety: as every txn call.
  Result<Savepoint> savepoint();
  Status rollback_to(const Savepoint& sp);
  Status release(const Savepoint& sp);

 private:
  friend class TxnFactory;  // engine-internal
  explicit WriteTxn(std::unique_ptr<TxnImpl> impl);
  WriteTxnImpl& writer();
};

// Ordered iteration over one tree, made by Txn::cursor.
//
// Positions: after first()/last()/seek() the cursor is on an entry (valid())
// or past the end (!valid()). next()/prev() move from the current entry;
// from !valid() they do nothing. key()/value() of a cursor that is not
// valid() return empty views.
//
// In a write txn the cursor sees every write of its txn, whether made
// through it (put(), del()) or through the txn (WriteTxn::put, del,
// del_range, append, drop_tree): it stays on its entry while other keys
// change; when its own entry is deleted it moves to the entry after it
// (past the end when there is none), so
//   for (c.first(); c.valid();) c.del();
// empties a tree. A tree dropped or renamed in the txn makes the cursor
// report NotFound, also once a new tree takes its name (a rollback to a
// savepoint before the drop brings the cursor back).
//
// Views from key()/value() stay valid until the txn ends or is reset; in a
// write txn, only until its next write (through any cursor or the txn).
//
// Errors: positioning calls return Corruption when they meet a damaged page;
// TxnEnded once the cursor's txn was committed, aborted, reset, moved from or
// destroyed (valid() is then false, also after the txn is renewed);
// NotFound when its tree no longer exists in the txn. status() keeps the
// last error met, including by value().
//
// Thread-safety: like its txn, one thread at a time. The cursor may outlive
// its txn (it then only reports TxnEnded); it keeps nothing else alive.
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
  // The outcome of the last call on this cursor that returns a Status, or
  // the error that a later valid()/key()/value() met (TxnEnded, Corruption).
  Status status() const;

  // Write txns only. Inserts or overwrites `key` (as WriteTxn::put) and
  // leaves the cursor on it. InvalidArgument for a cursor of a read txn and
  // for what WriteTxn::put refuses; the other errors of WriteTxn::put.
  Status put(ByteView key, ByteView value);
  // Write txns only. Deletes the entry the cursor is on and moves to the
  // entry after it. InvalidArgument when !valid() or for a read txn's
  // cursor; the errors of WriteTxn::del.
  Status del();

 private:
  friend class Txn;
  explicit Cursor(std::unique_ptr<CursorImpl> impl);
  std::unique_ptr<CursorImpl> impl_;
};

// Names one tree of a database, by name (as an LMDB dbi does). Cheap to
// copy. Made by Txn::open_tree or WriteTxn::create_tree, and valid for the
// Database that issued it in any later txn: a txn in which no tree has that
// name reports NotFound, and one in which a tree of that name was created
// again (after drop_tree or rename_tree) reaches the new tree. A handle used
// with a txn of another database, or of another open of the same file, is
// InvalidArgument. A default-constructed Tree is the default tree, which
// every database has.
class Tree {
 public:
  Tree() = default;
  // The tree's name; empty for the default tree.
  const std::string& name() const { return name_; }
  // Whether this handle names the default tree.
  bool is_default() const { return id_ == 0; }

 private:
  friend class TreeHandles;  // engine-internal: makes and checks handles
  Tree(uint64_t database_tag, uint32_t id, std::string name)
      : database_tag_(database_tag), id_(id), name_(std::move(name)) {}
  uint64_t database_tag_ = 0;  // which open Database issued it; 0 for the default tree
  uint32_t id_ = 0;            // 0 is the default tree
  std::string name_;
};

// A half-open key range [from, to) for Txn::scan and WriteTxn::del_range.
// Owns copies of its bounds; a range without an end has has_end() false.
class KeyRange {
 public:
  // Every key.
  static KeyRange all() { return KeyRange(); }
  // Keys >= `from`.
  static KeyRange starting_at(ByteView from) { return KeyRange(from.str(), {}, false); }
  // Keys >= `from` and < `to`; empty when from >= to.
  static KeyRange between(ByteView from, ByteView to) {
    return KeyRange(from.str(), to.str(), true);
  }
  // Keys that start with `prefix` (every key for an empty prefix).
  static KeyRange prefix(ByteView prefix) {
    std::string end = prefix.str();
    // The first key past the prefix: drop trailing 0xff bytes, then add one
    // to the last byte; none when the prefix is all 0xff (or empty).
    while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
    if (end.empty()) return KeyRange(prefix.str(), {}, false);
    end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
    return KeyRange(prefix.str(), std::move(end), true);
  }

  ByteView from() const { return from_; }
  bool has_end() const { return has_end_; }
  // The first key past the range. REQUIRES: has_end().
  ByteView end() const { return end_; }
  // Whether `key` >= from() and (no end, or key < end()).
  bool contains(ByteView key) const {
    return key.compare(from_) >= 0 && (!has_end_ || key.compare(end_) < 0);
  }
  // Whether keys at or past `key` are all outside (key >= end()).
  bool past_end(ByteView key) const { return has_end_ && key.compare(end_) >= 0; }

 private:
  KeyRange() = default;
  KeyRange(std::string from, std::string end, bool has_end)
      : from_(std::move(from)), end_(std::move(end)), has_end_(has_end) {}
  std::string from_;
  std::string end_;
  bool has_end_ = false;
};

// Largest value in bytes (128 MiB).
inline constexpr uint64_t kMaxValueBytes = 128ull << 20;

// What Database::upgrade did.
struct UpgradeResult {
  // False when the file was version 4 already: nothing was written, and the
  // fields below describe its newest checkpoint.
  bool upgraded = false;
  uint64_t txn_id = 0;  // the last commit of the file, kept
  uint32_t page_size_bytes = 0;
  uint64_t log_first_page = 0;  // the log area: first page (the old page high-water mark)
  uint64_t log_bytes = 0;       // and length in bytes
  uint64_t file_bytes = 0;      // the file's length afterwards
  // Non-empty when the newest version 2 meta was a one-sync commit whose
  // pages did not verify (a crash during it), so the commit before it was
  // kept, as a version 2 open would have: says which and why.
  std::string recovery;
};

// A point in a write txn to roll back to (WriteTxn::savepoint). A plain
// value, cheap to copy; a default-constructed one names no savepoint.
class Savepoint {
 public:
  Savepoint() = default;

 private:
  friend class SavepointHandles;  // engine-internal: makes and reads them
  Savepoint(uint64_t txn_tag, uint64_t serial) : txn_tag_(txn_tag), serial_(serial) {}
  uint64_t txn_tag_ = 0;  // which write txn took it; 0 for none
  uint64_t serial_ = 0;   // its place in that txn, rising with each savepoint()
};

inline Tree Txn::default_tree() const { return Tree{}; }

}  // namespace ordo
