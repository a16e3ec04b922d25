#include "cursor_impl.h"

#include <utility>

namespace ordo {

namespace {
Status txn_ended() {
  return Status::txn_ended("the cursor's txn was committed, aborted or destroyed");
}
}  // namespace

CursorImpl::CursorImpl(TxnImpl& txn, Tree tree, const btree::TreeRoot& root)
    : link_(txn.link()), tree_(std::move(tree)), cursor_(txn.pages(), root) {
  txn.add_cursor(this);
}

CursorImpl::~CursorImpl() {
  if (link_->txn != nullptr) link_->txn->remove_cursor(this);
}

void CursorImpl::detach() {
  if (stale_) return;
  stale_ = true;
  saved_valid_ = cursor_.valid();
  if (saved_valid_) saved_key_.assign(cursor_.key().view());
}

void CursorImpl::reposition_at(std::string key) {
  stale_ = true;
  saved_valid_ = true;
  saved_key_ = std::move(key);
}

Result<TxnImpl*> CursorImpl::enter() {
  TxnImpl* txn = link_->txn;
  if (txn == nullptr) return txn_ended();
  if (!stale_) return txn;
  ORDO_ASSIGN_OR_RETURN(const btree::TreeRoot root, txn->root_of(tree_));
  cursor_ = btree::Cursor(txn->pages(), root);
  stale_ = false;
  if (saved_valid_) ORDO_RETURN_IF_ERROR(cursor_.seek(saved_key_));
  return txn;
}

Result<WriteTxnImpl*> CursorImpl::enter_writer() {
  ORDO_ASSIGN_OR_RETURN(TxnImpl * txn, enter());
  if (!txn->is_write()) return Status::invalid_argument("a cursor of a read txn cannot write");
  return static_cast<WriteTxnImpl*>(txn);
}

Status CursorImpl::done(Status s) {
  if (!s.is_ok() || !status_.is_ok()) status_ = s;  // ok over ok: no string copy
  return s;
}

// first/last/seek need no old position: only a current root.
Status CursorImpl::first() {
  saved_valid_ = false;
  Status s = enter().status();
  return done(s.is_ok() ? cursor_.first() : s);
}

Status CursorImpl::last() {
  saved_valid_ = false;
  Status s = enter().status();
  return done(s.is_ok() ? cursor_.last() : s);
}

Status CursorImpl::seek(ByteView key) {
  saved_valid_ = false;
  Status s = enter().status();
  return done(s.is_ok() ? cursor_.seek(key) : s);
}

Status CursorImpl::next() {
  Status s = enter().status();
  return done(s.is_ok() ? cursor_.next() : s);
}

Status CursorImpl::prev() {
  Status s = enter().status();
  return done(s.is_ok() ? cursor_.prev() : s);
}

Status CursorImpl::next_after_visit() {
  if (!stale_ || !saved_valid_) return next();
  Status s = enter().status();
  if (!s.is_ok()) return done(s);
  // On the visited key when it survived, else already on the entry after it.
  if (cursor_.valid() && cursor_.key() == ByteView(saved_key_)) return done(cursor_.next());
  return done(Status::ok());
}

bool CursorImpl::valid() {
  Status s = enter().status();
  if (!s.is_ok()) {
    status_ = s;
    return false;
  }
  return cursor_.valid();
}

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
  Status s = (*writer)->del(tree_, at);
  if (s.is_ok()) reposition_at(std::move(at));  // lands on the entry after it
  return done(s);
}

}  // namespace ordo
