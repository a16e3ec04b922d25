// The private halves of ReadTxn and WriteTxn.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "db_impl.h"
#include "ordo/assert.h"
#include "ordo/btree/tree.h"
#include "snapshot_pages.h"
#include "txn_log.h"
#include "write_txn_pages.h"
#include "writer_gate.h"

namespace ordo {

class CursorImpl;

// What a cursor holds of its txn: the txn while it lives, null once it
// ended. Cursors may outlive their txn; the txn may move between Txn objects.
struct TxnLink {
  TxnImpl* txn = nullptr;
};

class TxnImpl {
 public:
  TxnImpl(std::shared_ptr<DatabaseImpl> db, const engine::Meta& snapshot)
      : db_(std::move(db)), snapshot_(snapshot) {
    ORDO_ASSERT(db_ != nullptr);
  }
  // Tells the txn's cursors that it ended.
  virtual ~TxnImpl();
  TxnImpl(const TxnImpl&) = delete;
  TxnImpl& operator=(const TxnImpl&) = delete;

  virtual btree::PageReader& pages() = 0;
  virtual bool is_write() const { return false; }
  virtual uint64_t txn_id() const { return snapshot_.txn_id; }
  // The tree's root as this txn sees it; NotFound when it does not exist;
  // InvalidArgument for another database's handle.
  virtual Result<btree::TreeRoot> root_of(const Tree& tree);
  // Which tree of `tree`'s name this txn has: bumped each time a write txn
  // creates one by that name (create_tree, rename_tree to it), so a cursor
  // of a dropped tree does not read another tree of the same name.
  virtual uint32_t incarnation_of(const Tree& tree) const { return 0; }
  virtual const btree::TreeRoot& catalog_root() const { return snapshot_.catalog; }
  virtual const btree::TreeRoot& free_tree_root() { return snapshot_.free_tree; }
  // True when commit()/abort() must not end this txn now, nor a move take it
  // (Database::batch's txn, lent to a caller's function); the attempt is
  // remembered.
  virtual bool refuse_end() { return false; }

  // The catalog entry for `name`; NotFound when absent.
  Result<btree::TreeRoot> lookup_catalog(std::string_view name);
  Status check_tree_name(std::string_view name) const;

  DatabaseImpl& db() { return *db_; }
  const std::shared_ptr<DatabaseImpl>& db_ptr() const { return db_; }
  const engine::Meta& snapshot() const { return snapshot_; }
  // False while a read txn is reset (ReadTxn::reset): it then answers every
  // call as an ended txn does. Write txns are always live.
  bool live() const { return live_; }
  // Counts the ends and renewals of a read txn: a call that hands control to
  // the caller (Txn::scan's function) compares it to see whether the txn
  // still reads the snapshot it started on.
  uint64_t generation() const { return generation_; }

  // Cursors: each registers for the life of the txn, so that writes can
  // tell them to remember their position first (detach_cursors()).
  std::shared_ptr<TxnLink> link();
  void add_cursor(CursorImpl* cursor) {
    ORDO_ASSERT(cursor != nullptr && live_);
    ORDO_DCHECK(std::find(cursors_.begin(), cursors_.end(), cursor) == cursors_.end());
    cursors_.push_back(cursor);
  }
  void remove_cursor(CursorImpl* cursor);

 protected:
  // Before any change to pages: cursors keep their position by key, since
  // the pages under them may change or move.
  void detach_cursors();
  // Tells the cursors made so far that the txn ended; cursors made later
  // link to it afresh.
  void end_cursors();

  std::shared_ptr<DatabaseImpl> db_;
  engine::Meta snapshot_;
  std::unordered_map<uint32_t, btree::TreeRoot> read_roots_;
  bool live_ = true;
  uint64_t generation_ = 0;

 private:
  std::shared_ptr<TxnLink> link_;  // made by the first cursor
  std::vector<CursorImpl*> cursors_;
};

// A read txn. Made live on `snapshot`, which the caller registered
// (DatabaseImpl::register_reader); reset() and renew() let one object serve
// one snapshot after another without being made again.
class ReadTxnImpl : public TxnImpl {
 public:
  ReadTxnImpl(std::shared_ptr<DatabaseImpl> db, const engine::Meta& snapshot)
      : TxnImpl(std::move(db), snapshot),
        pages_(db_->file(), snapshot.page_size, snapshot.page_high_water,
               db_->options().verify_checksums) {}
  ~ReadTxnImpl() override { reset(); }
  btree::PageReader& pages() override { return pages_; }

  // Ends the snapshot: cursors report TxnEnded, the reader registration is
  // dropped, so the writer may reuse the pages it reached. Does nothing
  // when reset already.
  void reset();
  // Makes the reset txn live again on `snapshot`, registered by the caller.
  // Tree roots looked up before are kept when `snapshot` is the one read
  // last (no commit came in between).
  void renew(const engine::Meta& snapshot);

 private:
  engine::SnapshotPages pages_;
};

class WriteTxnImpl : public TxnImpl {
 public:
  WriteTxnImpl(std::shared_ptr<DatabaseImpl> db, engine::WriterLock lock,
               const engine::Meta& snapshot, engine::ReuseRule rule);

  btree::PageReader& pages() override { return pages_; }
  bool is_write() const override { return true; }
  uint64_t txn_id() const override {
    ORDO_ASSERT(snapshot_.txn_id < UINT64_MAX);  // the next id must not wrap to 0
    return snapshot_.txn_id + 1;
  }
  Result<btree::TreeRoot> root_of(const Tree& tree) override;
  uint32_t incarnation_of(const Tree& tree) const override;
  const btree::TreeRoot& catalog_root() const override { return catalog_; }
  const btree::TreeRoot& free_tree_root() override { return pages_.free_tree(); }

  Result<Tree> create_tree(std::string_view name);
  Status drop_tree(std::string_view name);
  Status rename_tree(std::string_view from, std::string_view to);
  Status put(const Tree& tree, ByteView key, ByteView value);
  Status append(const Tree& tree, ByteView key, ByteView value);
  Status del(const Tree& tree, ByteView key);
  // insert, replace and compare_and_set: one descent (btree::update); the
  // log records the put or del it made, nothing when it changed nothing.
  Result<btree::UpdateOutcome> update(const Tree& tree, ByteView key, const btree::Update& update);
  Result<uint64_t> del_range(const Tree& tree, const KeyRange& range);
  Status commit();

  // Savepoints (savepoint.cc; WriteTxn::savepoint documents them).
  Result<Savepoint> savepoint();
  Status rollback_to(const Savepoint& sp);
  Status release(const Savepoint& sp);
  // Ends every savepoint, keeping the changes: before a commit, and when a
  // Database::batch function returns.
  void end_savepoints();

  // Database::batch lends the txn to callers' functions, which must not end
  // it: while lent, commit() and abort() end nothing and are remembered.
  void set_lent(bool lent) {
    ORDO_ASSERT(lent != lent_);  // lent once per group, then taken back
    ORDO_ASSERT(!finished_);
    lent_ = lent;
    end_asked_ = false;
  }
  bool refuse_end() override {
    ORDO_ASSERT(!lent_ || !finished_);  // a lent txn is not ended: commit() is refused
    end_asked_ |= lent_;
    return lent_;
  }
  // Whether a borrower asked to commit or abort since set_lent().
  bool end_asked() const { return end_asked_; }

  // Kept snapshots (kept_snapshots.h), changed by this txn and made part
  // of its commit, which is then a checkpoint commit (never only logged).
  // Keeps the snapshot this txn started from: its txn id.
  Result<uint64_t> keep_base_snapshot();
  // Releases kept snapshot `txn_id`; NotFound when it is not kept.
  Status release_kept(uint64_t txn_id);
  // Commit as txn `txn_id` (> this txn's id) rather than the next id: a
  // database a delta brings to the state of txn B of its source gets B's id
  // (its pages keep this txn's id, an older one, which only widens the
  // snapshots free-tree entries count them in). Commits as a checkpoint.
  void commit_as(uint64_t txn_id) {
    ORDO_ASSERT(txn_id > this->txn_id());
    commit_as_ = txn_id;
  }
  // Ok, or the failure that left the txn fit only to be aborted.
  const Status& failure() const { return failed_; }

 private:
  struct TreeState {
    bool loaded = false;
    bool dirty = false;
    bool dropped = false;      // dropped or renamed away in this txn
    uint32_t incarnation = 0;  // TxnImpl::incarnation_of()
    std::string name;
    btree::TreeRoot root;
    // put()'s cache of the rightmost path; invalidated by every other change.
    btree::RightmostPath rightmost;
    // The serial of the savepoint whose level holds this tree's state as it
    // began; 0 when none may (save_tree()).
    uint64_t saved_in = 0;
  };
  // A savepoint: what rollback_to() restores beside the pages (WriteTxnPages
  // keeps those).
  struct SavepointLevel {
    uint64_t serial;
    btree::TreeRoot catalog;
    uint64_t tree_count;
    engine::TxnLog::Mark log;
    // The states, at the savepoint, of the trees changed since (by id).
    std::unordered_map<uint32_t, TreeState> trees;
  };
  // Before tree `id`'s state changes: keeps it in the innermost savepoint
  // unless that one has it already.
  void save_tree(uint32_t id, TreeState& st) {
    if (savepoints_.empty() || st.saved_in == savepoints_.back().serial) [[likely]]
      return;
    // savepoint() flushed every path and no put since reached this tree.
    ORDO_ASSERT(!st.rightmost.has_deferred());
    SavepointLevel& level = savepoints_.back();
    level.trees.try_emplace(id, st);
    st.saved_in = level.serial;
  }
  // The index in savepoints_ of `sp`; InvalidArgument naming why it is not
  // one of this txn's open savepoints.
  Result<size_t> find_savepoint(const Savepoint& sp) const;
  // The state of a tree the txn writes: checks the txn may still write
  // (InvalidArgument after a failed call or commit) and the handle, then
  // tells cursors that a write follows.
  Result<TreeState*> writable_state(const Tree& tree);
  Result<TreeState*> state_of(const Tree& tree);
  // Ok while the txn may still change pages.
  Status check_writable() const;
  // Remembers a failure that may have left pages half-changed: the txn can
  // then only be aborted.
  Status note(Status s);
  Status write_and_publish(engine::Meta& meta);
  // The two ways a commit goes to the file (docs/FORMAT.md, "Commit protocol").
  Status write_logged(engine::Meta& meta, std::span<const io::WriteSpan> spans);
  Status write_checkpoint(engine::Meta& meta, std::span<const io::WriteSpan> spans);
  // The error of a failed commit that left the handle poisoned.
  Status poisoned_commit(const engine::Meta& meta, const Status& s);

  engine::WriterLock lock_;
  engine::WriteTxnPages pages_;
  // The txn's operations, for its log record.
  engine::TxnLog log_;
  // Pages it freed that the last checkpoint's state reaches (set at commit).
  uint64_t held_pages_ = 0;
  btree::TreeRoot catalog_;
  uint64_t tree_count_;
  // Trees this txn touched, by tree id: per-txn cost follows the trees
  // touched, not the trees in the database.
  std::unordered_map<uint32_t, TreeState> trees_;  // never erased: pointers stay valid
  // The two trees state_of() found last: a txn's puts mostly go to one tree,
  // or alternate between two (a record and its index).
  uint32_t recent_ids_[2] = {UINT32_MAX, UINT32_MAX};
  TreeState* recent_[2] = {nullptr, nullptr};
  TreeState& tree_state(uint32_t id);
  std::vector<SavepointLevel> savepoints_;  // innermost last; serials rise
  uint64_t savepoint_txn_tag_ = 0;          // set by the first savepoint()
  uint64_t next_savepoint_serial_ = 1;
  Status failed_;
  bool finished_ = false;
  bool lent_ = false;
  bool end_asked_ = false;
  // The kept snapshots tree once this txn changed it.
  btree::TreeRoot kept_;
  bool kept_dirty_ = false;
  uint64_t commit_as_ = 0;  // commit_as(); 0: the next txn id
};

// Makes the public txn objects, whose constructors are private.
class TxnFactory {
 public:
  static ReadTxn read(std::unique_ptr<TxnImpl> impl) { return ReadTxn(std::move(impl)); }
  static WriteTxn write(std::unique_ptr<TxnImpl> impl) { return WriteTxn(std::move(impl)); }
  // Database::begin_write and friends: the write txn of `db`, once the writer
  // gate is acquired as `wait` says.
  static Result<WriteTxn> begin_write(const std::shared_ptr<DatabaseImpl>& db,
                                      engine::WriterGate::Wait wait);
};

}  // namespace ordo
