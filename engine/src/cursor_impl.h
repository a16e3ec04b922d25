// CursorImpl: the private half of Cursor. A btree::Cursor over the txn's
// pages, plus what it needs to survive the txn's writes and its end.
//
// A write changes or moves the pages a btree::Cursor points into, so before
// every write the txn calls detach(): the cursor copies the key it is on and
// marks itself stale. The next call on a stale cursor re-reads the tree's
// root and seeks that key again: the cursor is then on the same entry, or on
// the entry after it when the key was deleted. A cursor of a read txn never
// goes stale.
#pragma once

#include <memory>
#include <string>

#include "ordo/btree/cursor.h"
#include "ordo/database.h"
#include "txn_impl.h"

namespace ordo {

class CursorImpl {
 public:
  // Registers with `txn`. REQUIRES: `root` is `tree`'s root in `txn`.
  CursorImpl(TxnImpl& txn, Tree tree, const btree::TreeRoot& root);
  ~CursorImpl();
  CursorImpl(const CursorImpl&) = delete;
  CursorImpl& operator=(const CursorImpl&) = delete;

  Status first();
  Status last();
  Status seek(ByteView key);
  Status next();
  Status prev();
  bool valid();
  ByteView key();
  ByteView value();
  const Status& status() const { return status_; }
  Status put(ByteView key, ByteView value);
  Status del();
  // For a scan: moves to the first entry after the key the cursor was on,
  // even when writes since then deleted that key.
  Status next_after_visit();

  // Called by the txn before each write.
  void detach();

 private:
  // True when the cursor may read: its txn lives and it is on current pages
  // (re-reading the root and re-seeking first when a write made it stale).
  // False with the error in status_ otherwise.
  bool enter() {
    if (link_->txn != nullptr && !stale_) [[likely]]
      return true;
    return reenter();
  }
  bool reenter();
  // The write txn of a cursor that may write; the error is also in status_.
  Result<WriteTxnImpl*> enter_writer();
  // Repositions on `key` (or after it) at the next call.
  void reposition_at(std::string key);
  // Records the outcome of a call in status(); returns it by value with no
  // copy (NRVO) on the per-entry path.
  void record(const Status& s) {
    if (!s.is_ok() || !status_.is_ok()) status_ = s;  // ok over ok: no copy
  }
  Status done(Status s) {
    record(s);
    return s;
  }

  std::shared_ptr<TxnLink> link_;
  Tree tree_;
  uint32_t incarnation_;  // TxnImpl::incarnation_of(tree_) when made
  btree::Cursor cursor_;
  bool stale_ = false;
  bool saved_valid_ = false;  // stale: whether the cursor was on an entry
  std::string saved_key_;     // stale and saved_valid_: the key it was on
  Status status_;
};

}  // namespace ordo
