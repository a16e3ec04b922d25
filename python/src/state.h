// What the Python objects hold: DbState behind ordo.Database, TxnState behind
// ordo.Txn (shared with its cursors, iterators and scans), and TxnCall, the
// guard of every call on a txn.
//
// Every field is read and written with the GIL held; calls that reach the
// file release the GIL inside a TxnCall, which marks the txn busy so that no
// other thread uses it meanwhile (the engine allows one thread at a time per
// txn; a second thread gets BusyError instead of a data race).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ordo/database.h"

namespace ordo::python {

namespace py = pybind11;

struct TxnState;

// Forks seen by this process: the child's count is one more than its
// parent's (pthread_atfork), so a handle made before a fork knows it is in
// the child. install_fork_handler() is called once by the module's init.
void install_fork_handler();
uint64_t fork_generation();

// One call's use of the open Database: holds a reference, so that close() in
// another thread (which drops DbState's) cannot destroy the object while the
// call is in it with the GIL released. Dropping the last reference closes the
// file (and may checkpoint): done with the GIL released. Hold it with the GIL
// held, as a local of the call.
class DbUse {
 public:
  explicit DbUse(std::shared_ptr<Database> db) : db_(std::move(db)) {}
  DbUse(const DbUse&) = delete;
  DbUse& operator=(const DbUse&) = delete;
  ~DbUse();
  Database* operator->() const { return db_.get(); }
  const std::shared_ptr<Database>& shared() const { return db_; }

 private:
  std::shared_ptr<Database> db_;
};

// One open database (ordo.Database).
struct DbState {
  // Read txns kept for the next read() or get() (LMDB's reset/renew: no
  // reader registration or allocation per txn); any thread takes one, with
  // the GIL held. A writable handle keeps them live, on the last commit,
  // while no commit follows (every commit to its file is its own: it holds
  // the writer lock), and resets them when a write txn begins, so that they
  // keep no pages from reuse. As many TxnStates are kept for the next txns.
  static constexpr size_t kMaxSpares = 4;
  struct SpareRead {
    std::unique_ptr<ReadTxn> txn;
    uint64_t commits = 0;  // Stats::commits read before its snapshot was taken
    bool live = false;     // on its snapshot (else reset)
  };

  std::shared_ptr<Database> db;  // null once closed
  std::string path;
  uint64_t fork_generation = 0;
  bool read_only = false;
  // The txns begun on it and not yet destroyed, to end at close(): a list
  // through TxnState::prev_txn / next_txn.
  TxnState* txns = nullptr;
  // Tree objects (ordo.Tree) by name, under each name object a caller used
  // (str or bytes, exact types) and under the name as bytes: a handle stays
  // valid for this Database (database.h, Tree).
  py::dict trees;
  std::vector<SpareRead> spare_reads;
  std::vector<std::shared_ptr<TxnState>> spare_states;

  DbState() = default;
  DbState(const DbState&) = delete;
  DbState& operator=(const DbState&) = delete;
  ~DbState();

  // The open database, for one call; raises ClosedError once closed and
  // InvalidArgumentError in a forked child.
  DbUse open_db();
  // Ends every txn (a txn in a call in another thread ends when that call
  // returns), then closes the handle (the file once no view needs it).
  void close();
  // A read txn on the last commit: a spare one (renewed when a commit came
  // since its snapshot), or a new one; `*commits` is Stats::commits as read
  // before its snapshot. REQUIRES: db open. Raises as begin_read() fails.
  std::unique_ptr<ReadTxn> take_read(uint64_t* commits);
  // Keeps `txn` (from take_read, with its `commits`) for take_read: live
  // while no commit came since, else reset; destroys it when enough are kept
  // or the database is closed.
  void give_read(std::unique_ptr<ReadTxn> txn, uint64_t commits) noexcept;
  // Called before a write txn of this handle begins: resets the live spare
  // read txns, whose snapshot would keep the pages the writer frees from reuse.
  void reset_spare_reads() noexcept;
  // Destroys the spare read txns (with the GIL released).
  void drop_spare_reads() noexcept;
};

// The state of a new txn of `db` (a spare one or a new one), listed in
// db->txns, its txn not yet set.
std::shared_ptr<TxnState> new_txn_state(const std::shared_ptr<DbState>& db);
// Drops the reference of a txn object that is gone: a state only it
// referenced is ended (aborted) and kept for new_txn_state when it can be.
void drop_txn_state(std::shared_ptr<TxnState>&& state) noexcept;

// One txn (ordo.Txn): a read txn, an owned write txn, or the write txn that
// Database.batch lends to its function.
struct TxnState : std::enable_shared_from_this<TxnState> {
  std::shared_ptr<DbState> db;
  TxnState* prev_txn = nullptr;  // the list of db->txns
  TxnState* next_txn = nullptr;
  // The Database the txn was begun on, while the txn lives: what its views'
  // keeper holds (db->db is null once closed, even during a call).
  std::shared_ptr<Database> database;
  std::unique_ptr<ReadTxn> read;
  std::unique_ptr<WriteTxn> write_owned;
  WriteTxn* writer = nullptr;  // owned or lent; null for a read txn
  Txn* txn = nullptr;          // null once ended
  bool write = false;          // a write txn (also once ended)
  bool buffers = false;        // values (and keys) as memoryviews: read txns only
  bool lent = false;           // Database.batch's txn: ended by batch(), not by the caller
  bool spare = false;          // a read txn of the last commit: kept for reuse when it ends
  uint64_t read_commits = 0;   // a spare read txn's take_read() count
  bool busy = false;           // in a TxnCall
  bool end_requested = false;  // close() came while busy
  static constexpr const char* kNotEnded = "the txn was committed or aborted";
  const char* ended_why = kNotEnded;  // why calls raise TxnEndedError once txn is null
  // Counts the snapshot's ends (reset, renew, end): what read iterators
  // compare before using entries they read ahead.
  uint64_t snapshot_serial = 0;
  // The memoryviews handed out (buffers), each with a reference held here,
  // released at the snapshot's end. Views only this list references are
  // dropped as it grows (sweep_views), so a long scan keeps few.
  std::vector<PyObject*> views;
  size_t views_sweep_at = 64;
  // The memoryview every value view is made from: its exporter holds a
  // reference to the Database, so the mapping stays while any view of it
  // (or an export of one) exists.
  PyObject* view_base = nullptr;
  // Cursors dropped while another thread was in a call on the txn, ended
  // when that call returns (ending one unregisters it from the txn).
  std::vector<Cursor> retired_cursors;

  TxnState() = default;
  TxnState(const TxnState&) = delete;
  TxnState& operator=(const TxnState&) = delete;
  ~TxnState();

  // Releases the memoryviews handed out; one that has exports of its own
  // (np.frombuffer of it) cannot be released and stays readable, over a
  // mapping kept alive by its exporter.
  void release_views();
  // Ends the txn: views released, then commit (raises on failure: the txn
  // ends anyway) or abort; a spare read txn goes back to its database. The
  // GIL is released for the engine's part of a commit or abort.
  void end(bool commit, const char* why);
  // Ends the txn without raising: abort (a lent txn is only marked ended).
  void abort_quietly(const char* why) noexcept;
  // A value or key for Python (a new reference): bytes, or with `buffers` a
  // memoryview valid until the txn ends or is reset.
  PyObject* value(ByteView bytes);
  // Lists the txn in db->txns / takes it off.
  void link();
  void unlink() noexcept;

 private:
  PyObject* new_view(ByteView bytes);
  void sweep_views() noexcept;
};

// The guard of a call on a txn: checks that the txn is usable (not ended,
// not busy in another thread, not in a forked child) and marks it busy for
// the call's lifetime. Construct and destroy with the GIL held; release the
// GIL inside it.
class TxnCall {
 public:
  explicit TxnCall(TxnState& state);
  ~TxnCall();
  TxnCall(const TxnCall&) = delete;
  TxnCall& operator=(const TxnCall&) = delete;

  Txn& txn() { return *state_.txn; }
  // The write txn; raises InvalidArgumentError on a read txn, naming `what`.
  WriteTxn& writer(const char* what);
  TxnState& state() { return state_; }

 private:
  TxnState& state_;
};

// The tree a `tree=` argument names: None is the default tree, an ordo.Tree
// its handle, a str or bytes a name (looked up in `txn`, handles kept in
// DbState::trees). Returns false when no tree of that name exists in `txn`.
bool resolve_tree(DbState& db, Txn& txn, PyObject* tree, Tree* out);
bool resolve_tree(TxnCall& call, py::handle tree, Tree* out);
// As resolve_tree, raising NotFoundError for a missing tree.
Tree require_tree(TxnCall& call, py::handle tree);
// Keeps the object of `tree` under its name (and under `name`, a str or
// bytes the caller used, when not null); returns that object.
py::object remember_tree(DbState& db, const Tree& tree, PyObject* name);

// ordo.Tree: a tree handle, valid for the database that made it.
struct PyTree {
  Tree tree;
};

}  // namespace ordo::python
