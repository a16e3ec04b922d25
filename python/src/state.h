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
#include <unordered_map>
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
  std::shared_ptr<Database> db;  // null once closed
  std::string path;
  uint64_t fork_generation = 0;
  // The txns begun on it, to end at close().
  std::vector<std::weak_ptr<TxnState>> txns;
  // Tree handles by name: a handle stays valid for this Database (database.h, Tree).
  std::unordered_map<std::string, Tree> trees;

  // The open database, for one call; raises ClosedError once closed and
  // InvalidArgumentError in a forked child.
  DbUse open_db();
  // Ends every txn (a txn in a call in another thread ends when that call
  // returns), then closes the handle (the file once no view needs it).
  void close();
  void track(const std::shared_ptr<TxnState>& txn);
};

// One txn (ordo.Txn): a read txn, an owned write txn, or the write txn that
// Database.batch lends to its function.
struct TxnState {
  std::shared_ptr<DbState> db;
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
  bool busy = false;           // in a TxnCall
  bool end_requested = false;  // close() came while busy
  std::string ended_why = "the txn was committed or aborted";
  // Weak references to the memoryviews handed out (buffers), released at end.
  std::vector<py::weakref> views;
  // Owns a reference to the Database for the views' exporters (state.cc).
  py::object keeper;
  size_t views_compact_at = 64;

  TxnState() = default;
  TxnState(const TxnState&) = delete;
  TxnState& operator=(const TxnState&) = delete;
  ~TxnState();

  // Releases the memoryviews handed out; one that has exports of its own
  // (np.frombuffer of it) cannot be released and stays readable, over a
  // mapping kept alive by its exporter.
  void release_views();
  // Ends the txn: views released, then commit (raises on failure: the txn
  // ends anyway) or abort. The GIL is released for the engine's part.
  void end(bool commit, const std::string& why);
  // Ends the txn without raising: abort (a lent txn is only marked ended).
  void abort_quietly(const std::string& why) noexcept;
  // A value or key for Python: bytes, or with `buffers` a memoryview valid
  // until the txn ends or is reset.
  py::object value(ByteView bytes);
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
// its handle, a str or bytes a name (looked up in the txn, handles cached).
// Returns false when no tree of that name exists in the txn.
bool resolve_tree(TxnCall& call, py::handle tree, Tree* out);
// As resolve_tree, raising NotFoundError for a missing tree.
Tree require_tree(TxnCall& call, py::handle tree);

// ordo.Tree: a tree handle, valid for the database that made it.
struct PyTree {
  Tree tree;
};

}  // namespace ordo::python
