// The private halves of ReadTxn, WriteTxn and Cursor.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "db_impl.h"
#include "dirty_pages.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/tree.h"
#include "snapshot_pages.h"

namespace ordo {

class TxnImpl {
 public:
  TxnImpl(DatabaseImpl& db, const engine::Meta& snapshot) : db_(db), snapshot_(snapshot) {}
  virtual ~TxnImpl() = default;

  virtual btree::PageReader& pages() = 0;
  virtual uint64_t txn_id() const { return snapshot_.txn_id; }
  // The tree's root as this txn sees it; NotFound when it does not exist.
  virtual Result<btree::TreeRoot> root_of(const Tree& tree);
  virtual const btree::TreeRoot& catalog_root() const { return snapshot_.catalog; }
  virtual const btree::TreeRoot& free_tree_root() { return snapshot_.free_tree; }

  // The catalog entry for `name`; NotFound when absent.
  Result<btree::TreeRoot> lookup_catalog(std::string_view name);
  Status check_tree_name(std::string_view name) const;

  DatabaseImpl& db() { return db_; }
  const engine::Meta& snapshot() const { return snapshot_; }

 protected:
  DatabaseImpl& db_;
  engine::Meta snapshot_;
  std::unordered_map<uint32_t, btree::TreeRoot> read_roots_;
};

class ReadTxnImpl : public TxnImpl {
 public:
  ReadTxnImpl(DatabaseImpl& db, const engine::Meta& snapshot)
      : TxnImpl(db, snapshot),
        pages_(db.file(), snapshot.page_size, snapshot.page_high_water,
               db.options().verify_checksums) {}
  ~ReadTxnImpl() override { db_.unregister_reader(snapshot_.txn_id); }
  btree::PageReader& pages() override { return pages_; }

 private:
  engine::SnapshotPages pages_;
};

class WriteTxnImpl : public TxnImpl {
 public:
  WriteTxnImpl(DatabaseImpl& db, std::unique_lock<std::mutex> lock, const engine::Meta& snapshot,
               engine::ReuseRule rule);

  btree::PageReader& pages() override { return pages_; }
  uint64_t txn_id() const override { return snapshot_.txn_id + 1; }
  Result<btree::TreeRoot> root_of(const Tree& tree) override;
  const btree::TreeRoot& catalog_root() const override { return catalog_; }
  const btree::TreeRoot& free_tree_root() override { return pages_.free_tree(); }

  Result<Tree> create_tree(std::string_view name);
  Status drop_tree(std::string_view name);
  Status rename_tree(std::string_view from, std::string_view to);
  Status put(const Tree& tree, ByteView key, ByteView value);
  Status append(const Tree& tree, ByteView key, ByteView value);
  Status del(const Tree& tree, ByteView key);
  Status commit();
  bool finished() const { return finished_; }
  void finish() { finished_ = true; }

 private:
  struct TreeState {
    bool loaded = false;
    bool dirty = false;
    bool dropped = false;  // dropped or renamed away in this txn
    std::string name;
    btree::TreeRoot root;
    // put()'s cache of the rightmost path; invalidated by every other change.
    btree::RightmostPath rightmost;
  };
  Result<TreeState*> state_of(const Tree& tree);
  // Remembers a failure that may have left pages half-changed: the txn can
  // then only be aborted.
  Status note(Status s);
  Status write_and_publish(engine::Meta& meta);

  std::unique_lock<std::mutex> lock_;
  engine::DirtyPages pages_;
  btree::TreeRoot catalog_;
  uint64_t tree_count_;
  // Trees this txn touched, by Tree::id: per-txn cost follows the trees
  // touched, not the trees in the database.
  std::unordered_map<uint32_t, TreeState> trees_;
  Status failed_;
  bool finished_ = false;
};

class CursorImpl {
 public:
  CursorImpl(btree::PageReader& pages, const btree::TreeRoot& root) : cursor(pages, root) {}
  btree::Cursor cursor;
};

}  // namespace ordo
