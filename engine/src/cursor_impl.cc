#include "cursor_impl.h"

#include <utility>

#include "ordo/assert.h"

namespace ordo {

namespace {
Status txn_ended() {
  return Status::txn_ended("the cursor's txn was committed, aborted or destroyed");
}
}  // namespace

CursorImpl::CursorImpl(TxnImpl& txn, Tree tree, const btree::TreeRoot& root)
    : link_(txn.link()),
      tree_(std::move(tree)),
      incarnation_(txn.incarnation_of(tree_)),
      cursor_(txn.pages(), root) {
  ORDO_ASSERT(link_ != nullptr && link_->txn == &txn);
  txn.add_cursor(this);
}

CursorImpl::~CursorImpl() {
  ORDO_ASSERT(link_ != nullptr);  // made by the constructor, never moved from
  if (link_->txn != nullptr) link_->txn->remove_cursor(this);
}

void CursorImpl::detach() {
  // Only a live write txn detaches its cursors, before it changes pages.
  ORDO_ASSERT(link_->txn != nullptr && link_->txn->is_write());
  if (stale_) return;
  stale_ = true;
  saved_valid_ = cursor_.valid();
  if (saved_valid_) saved_key_.assign(cursor_.key().view());
}

void CursorImpl::reposition_at(std::string key) {
  ORDO_ASSERT(link_->txn != nullptr && link_->txn->is_write());  // after one of its writes
  stale_ = true;
  saved_valid_ = true;
  saved_key_ = std::move(key);
}

bool CursorImpl::reenter() {
  TxnImpl* txn = link_->txn;
  ORDO_ASSERT(txn == nullptr || stale_);  // enter() takes the other case itself
  if (txn == nullptr) {
    status_ = txn_ended();
    return false;
  }
  auto root = txn->root_of(tree_);
  if (!root.is_ok()) {
    status_ = root.status();
    return false;
  }
  if (txn->incarnation_of(tree_) != incarnation_) {
    status_ = Status::not_found("the cursor's tree '" + tree_.name() +
                                "' was dropped or renamed; the tree of that name now is another");
    return false;
  }
  ORDO_ASSERT(txn->live());  // an ended txn unlinks its cursors (TxnImpl::end_cursors)
  cursor_ = btree::Cursor(txn->pages(), *root);
  stale_ = false;
  if (saved_valid_) {
    Status s = cursor_.seek(saved_key_);
    if (!s.is_ok()) {
      status_ = s;
      return false;
    }
  }
  // Positioned anew: an error of an earlier entry (its tree gone before a
  // savepoint's rollback brought it back) no longer describes the cursor.
  status_ = Status::ok();
  return true;
}

Result<WriteTxnImpl*> CursorImpl::enter_writer() {
  if (!enter()) return status_;
  ORDO_ASSERT(link_->txn != nullptr && !stale_);
  if (!link_->txn->is_write()) {
    return done(Status::invalid_argument("a cursor of a read txn cannot write"));
  }
  return static_cast<WriteTxnImpl*>(link_->txn);
}

// first/last/seek need no old position: only a current root.
Status CursorImpl::first() {
  saved_valid_ = false;
  return enter() ? done(cursor_.first()) : status_;
}

Status CursorImpl::last() {
  saved_valid_ = false;
  return enter() ? done(cursor_.last()) : status_;
}

Status CursorImpl::seek(ByteView key) {
  saved_valid_ = false;
  return enter() ? done(cursor_.seek(key)) : status_;
}

// One named result and one return, so the Status is built in the caller's
// slot (NRVO): these run once per entry of a scan.
Status CursorImpl::next() {
  Status s = enter() ? cursor_.next() : Status(status_);
  record(s);
  return s;
}

Status CursorImpl::prev() {
  Status s = enter() ? cursor_.prev() : Status(status_);
  record(s);
  return s;
}

Status CursorImpl::next_after_visit() {
  if (!stale_ || !saved_valid_) return next();
  if (!enter()) return status_;
  ORDO_ASSERT(!stale_);  // enter() re-sought the saved key
  // On the visited key when it survived, else already on the entry after it.
  if (cursor_.valid() && cursor_.key() == ByteView(saved_key_)) return done(cursor_.next());
  return done(Status::ok());
}

bool CursorImpl::valid() { return enter() && cursor_.valid(); }

ByteView CursorImpl::key() { return valid() ? cursor_.key() : ByteView(); }

ByteView CursorImpl::value() {
  if (!valid()) return {};
  ByteView v = cursor_.value();
  if (!cursor_.status().is_ok()) status_ = cursor_.status();
  return v;
}

Status CursorImpl::put(ByteView key, ByteView value) {
  auto writer = enter_writer();
  if (!writer.is_ok()) return done(writer.status());
  ORDO_ASSERT(*writer == link_->txn);
  std::string at = key.str();  // `key` may point into a page the put changes
  Status s = (*writer)->put(tree_, key, value);
  if (s.is_ok()) reposition_at(std::move(at));
  return done(s);
}

Status CursorImpl::del() {
  auto writer = enter_writer();
  if (!writer.is_ok()) return done(writer.status());
  if (!cursor_.valid()) return done(Status::invalid_argument("cursor is not on an entry"));
  std::string at = cursor_.key().str();
  ORDO_ASSERT(!stale_);  // The key is read from current pages, before the write.
  Status s = (*writer)->del(tree_, at);
  if (s.is_ok()) reposition_at(std::move(at));  // lands on the entry after it
  return done(s);
}

}  // namespace ordo
