// ReadTxn::changes and ChangeCursor; Database's kept snapshots
// (keep_snapshot, release_snapshot, kept_snapshots, begin_read_at).
#include "ordo/changes.h"

#include <string>
#include <utility>

#include "db_impl.h"
#include "kept_snapshots.h"
#include "ordo/assert.h"
#include "ordo/btree/tree.h"
#include "ordo/btree/tree_diff.h"
#include "ordo/database.h"
#include "tree_handles.h"
#include "txn_impl.h"
#include "txn_internals.h"

namespace ordo {

class ChangeCursorImpl {
 public:
  ChangeCursorImpl(TxnImpl& txn, uint64_t since, const btree::TreeRoot& old_root,
                   const btree::TreeRoot& new_root)
      : db_(txn.db_ptr()),
        link_(txn.link()),
        generation_(txn.generation()),
        since_(since),
        txn_id_(txn.txn_id()),
        diff_(txn.pages(), old_root, new_root) {}
  ~ChangeCursorImpl() {
    ORDO_ASSERT(db_ != nullptr);  // set by the constructor, never moved from
    db_->unregister_reader(since_);
  }

  Result<bool> next() {
    if (link_->txn == nullptr || link_->txn->generation() != generation_ || !link_->txn->live()) {
      valid_ = false;
      return Status::txn_ended("the txn of this change cursor ended");
    }
    ORDO_ASSIGN_OR_RETURN(valid_, diff_.next(&change_));
    return valid_;
  }

  std::shared_ptr<DatabaseImpl> db_;
  std::shared_ptr<TxnLink> link_;
  uint64_t generation_;
  uint64_t since_;
  uint64_t txn_id_;
  btree::TreeDiff diff_;
  btree::TreeChange change_;
  bool valid_ = false;
};

ChangeCursor::ChangeCursor(std::unique_ptr<ChangeCursorImpl> impl) : impl_(std::move(impl)) {}
ChangeCursor::ChangeCursor(ChangeCursor&&) noexcept = default;
ChangeCursor& ChangeCursor::operator=(ChangeCursor&&) noexcept = default;
ChangeCursor::~ChangeCursor() = default;

Result<bool> ChangeCursor::next() {
  if (!impl_) return Status::txn_ended("change cursor was moved from");
  return impl_->next();
}
ByteView ChangeCursor::key() const {
  return impl_ && impl_->valid_ ? impl_->change_.key : ByteView();
}
std::optional<ByteView> ChangeCursor::old_value() const {
  if (!impl_ || !impl_->valid_ || !impl_->change_.had_old) return std::nullopt;
  return impl_->change_.old_value;
}
std::optional<ByteView> ChangeCursor::new_value() const {
  if (!impl_ || !impl_->valid_ || !impl_->change_.has_new) return std::nullopt;
  return impl_->change_.new_value;
}
uint64_t ChangeCursor::since_txn() const { return impl_ ? impl_->since_ : 0; }
uint64_t ChangeCursor::txn_id() const { return impl_ ? impl_->txn_id_ : 0; }
uint64_t ChangeCursor::pages_read() const { return impl_ ? impl_->diff_.pages_read() : 0; }

namespace {

// The root of `tree` in snapshot `snap`, read through `pages`; an empty
// root when the tree does not exist there (*exists false).
Result<btree::TreeRoot> root_in(btree::PageReader& pages, const engine::Meta& snap,
                                const Tree& tree, bool* exists) {
  *exists = true;
  if (tree.is_default()) return snap.default_tree;
  bool found = false;
  ByteView value;
  ORDO_RETURN_IF_ERROR(btree::find(pages, snap.catalog, tree.name(), &found, &value));
  if (!found) {
    *exists = false;
    return btree::TreeRoot{};
  }
  if (value.size() != engine::kTreeRootBytes) {
    return Status::corruption("catalog entry for '" + tree.name() + "' has a bad size",
                              snap.catalog.root);
  }
  return engine::decode_tree_root(value.data());
}

}  // namespace

Result<ChangeCursor> ReadTxn::changes(const Tree& tree, uint64_t since_txn) {
  if (!impl_ || !impl_->live()) return Status::txn_ended("txn already ended or is reset");
  TxnImpl& txn = *impl_;
  ORDO_RETURN_IF_ERROR(txn.db().check_tree_handle(tree));
  if (since_txn > txn.txn_id()) {
    return Status::invalid_argument("snapshot " + std::to_string(since_txn) +
                                    " is newer than this txn's snapshot " +
                                    std::to_string(txn.txn_id()));
  }
  ORDO_ASSIGN_OR_RETURN(engine::Meta old, txn.db().register_held_reader(since_txn));
  ORDO_ASSERT(old.txn_id == since_txn && old.page_high_water <= txn.snapshot().page_high_water);
  // From here the registration is the cursor's (or undone on an error).
  struct Unregister {
    DatabaseImpl* db;
    uint64_t txn;
    ~Unregister() {
      if (db != nullptr) db->unregister_reader(txn);
    }
  } guard{&txn.db(), since_txn};
  bool old_exists = false;
  bool new_exists = false;
  ORDO_ASSIGN_OR_RETURN(btree::TreeRoot old_root, root_in(txn.pages(), old, tree, &old_exists));
  ORDO_ASSIGN_OR_RETURN(btree::TreeRoot new_root,
                        root_in(txn.pages(), txn.snapshot(), tree, &new_exists));
  if (!old_exists && !new_exists) {
    return Status::not_found("no tree named '" + tree.name() + "' at txn " +
                             std::to_string(since_txn) + " nor at txn " +
                             std::to_string(txn.txn_id()));
  }
  auto impl = std::make_unique<ChangeCursorImpl>(txn, since_txn, old_root, new_root);
  guard.db = nullptr;
  return ChangeCursor(std::move(impl));
}

namespace {

WriteTxnImpl& writer_of(WriteTxn& txn) {
  auto impl = TxnInternals::impl(txn);
  ORDO_ASSERT(impl.is_ok() && (*impl)->is_write());  // a txn begin_write() just made
  return static_cast<WriteTxnImpl&>(**impl);
}

}  // namespace

Result<uint64_t> Database::keep_snapshot() {
  ORDO_ASSIGN_OR_RETURN(WriteTxn txn, begin_write());
  ORDO_ASSIGN_OR_RETURN(uint64_t kept, writer_of(txn).keep_base_snapshot());
  ORDO_RETURN_IF_ERROR(txn.commit());
  return kept;
}

Status Database::release_snapshot(uint64_t txn_id) {
  ORDO_ASSIGN_OR_RETURN(WriteTxn txn, begin_write());
  ORDO_RETURN_IF_ERROR(writer_of(txn).release_kept(txn_id));
  return txn.commit();
}

Result<std::vector<uint64_t>> Database::kept_snapshots() {
  ORDO_RETURN_IF_ERROR(impl_->check_process());
  ORDO_ASSIGN_OR_RETURN(std::vector<engine::Meta> kept, impl_->kept_snapshots());
  std::vector<uint64_t> out;
  for (const engine::Meta& m : kept) out.push_back(m.txn_id);
  return out;
}

Result<ReadTxn> Database::begin_read_at(uint64_t txn_id) {
  ORDO_RETURN_IF_ERROR(impl_->check_process());
  Result<engine::Meta> held = impl_->register_held_reader(txn_id);
  if (held.status().is_not_found()) {
    // The newest commit is readable as any read txn reads it.
    Result<ReadTxn> newest = begin_read();
    if (!newest.is_ok() || newest->txn_id() == txn_id) return newest;
    return held.status();
  }
  ORDO_ASSIGN_OR_RETURN(engine::Meta snapshot, std::move(held));
  ORDO_ASSERT(snapshot.page_size == impl_->page_size());
  return TxnFactory::read(std::make_unique<ReadTxnImpl>(impl_, snapshot));
}

}  // namespace ordo
