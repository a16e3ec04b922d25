// Txn, ReadTxn and Cursor: the read side of the API.
#include <algorithm>
#include <string>

#include "cursor_impl.h"
#include "ordo/assert.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/page_format.h"
#include "tree_handles.h"
#include "txn_impl.h"
#include "txn_internals.h"

namespace ordo {

Status TxnImpl::check_tree_name(std::string_view name) const {
  ORDO_ASSERT(btree::valid_page_size(snapshot_.page_size));  // a decoded meta's
  if (name.empty()) return Status::invalid_argument("tree name is empty");
  if (name.size() > btree::max_key_bytes(snapshot_.page_size)) {
    return Status::invalid_argument("tree name of " + std::to_string(name.size()) +
                                    " bytes exceeds the maximum of " +
                                    std::to_string(btree::max_key_bytes(snapshot_.page_size)));
  }
  return Status::ok();
}

Result<btree::TreeRoot> TxnImpl::lookup_catalog(std::string_view name) {
  ORDO_ASSERT(live_);  // callers checked the txn (ORDO_REQUIRE_LIVE); write txns are always live
  ORDO_RETURN_IF_ERROR(check_tree_name(name));
  bool found = false;
  ByteView value;
  ORDO_RETURN_IF_ERROR(btree::find(pages(), catalog_root(), name, &found, &value));
  if (!found) return Status::not_found("no tree named '" + std::string(name) + "'");
  if (value.size() != engine::kTreeRootBytes) {
    return Status::corruption("catalog entry for '" + std::string(name) + "' has a bad size",
                              catalog_root().root);
  }
  return engine::decode_tree_root(value.data());
}

Result<btree::TreeRoot> TxnImpl::root_of(const Tree& tree) {
  ORDO_ASSERT(live_);
  if (tree.is_default()) return snapshot_.default_tree;
  ORDO_RETURN_IF_ERROR(db_->check_tree_handle(tree));
  const uint32_t id = TreeHandles::id(tree);
  auto it = read_roots_.find(id);
  if (it != read_roots_.end()) return it->second;
  ORDO_ASSIGN_OR_RETURN(btree::TreeRoot root, lookup_catalog(tree.name()));
  const bool added = read_roots_.emplace(id, root).second;
  ORDO_ASSERT(added);  // looked up above
  return root;
}

TxnImpl::~TxnImpl() { end_cursors(); }

void TxnImpl::end_cursors() {
  if (link_) {
    link_->txn = nullptr;
    link_.reset();
  }
  cursors_.clear();
  ORDO_ASSERT(!link_ && cursors_.empty());
}

void ReadTxnImpl::reset() {
  if (!live_) return;
  end_cursors();
  live_ = false;
  ++generation_;
  db_->unregister_reader(snapshot_.txn_id);
}

void ReadTxnImpl::renew(const engine::Meta& snapshot) {
  // ReadTxn::renew() reset it first, and registered `snapshot` as read.
  ORDO_ASSERT(!live_);
  // A writable handle's committed txn id never decreases (a read-only one
  // reads whatever settled meta the file holds now).
  ORDO_ASSERT(snapshot.txn_id >= snapshot_.txn_id || db_->options().read_only);
  // A tree's root is fixed within one snapshot: a server's txns between two
  // commits look each tree up in the catalog once.
  if (snapshot.txn_id != snapshot_.txn_id) {
    read_roots_.clear();
    snapshot_ = snapshot;
    pages_.set_high_water(snapshot.page_high_water);
  }
  live_ = true;
  ++generation_;
}

std::shared_ptr<TxnLink> TxnImpl::link() {
  if (!link_) link_ = std::make_shared<TxnLink>(TxnLink{this});
  ORDO_ASSERT(link_->txn == this);  // cleared only together with link_ (end_cursors())
  return link_;
}

void TxnImpl::remove_cursor(CursorImpl* cursor) {
  auto it = std::find(cursors_.begin(), cursors_.end(), cursor);
  if (it == cursors_.end()) return;
  *it = cursors_.back();
  cursors_.pop_back();
  ORDO_DCHECK(std::find(cursors_.begin(), cursors_.end(), cursor) == cursors_.end());
}

void TxnImpl::detach_cursors() {
  ORDO_ASSERT(is_write() && live_);  // only writes move pages under cursors
  for (CursorImpl* c : cursors_) c->detach();
}

Txn::Txn(std::unique_ptr<TxnImpl> impl) : impl_(std::move(impl)) {}

namespace {
Status ended() { return TxnInternals::ended(); }
}  // namespace
#define ORDO_REQUIRE_LIVE() \
  if (!impl_ || !impl_->live()) return ended()
// Database::batch's txn stays where batch() lent it: moving from it leaves
// the source as it was and the target ended (the function that tried fails).
Txn::Txn(Txn&& other) noexcept {
  if (other.impl_ && !other.impl_->refuse_end()) impl_ = std::move(other.impl_);
}
Txn& Txn::operator=(Txn&& other) noexcept {
  if (this == &other) return *this;
  if (impl_ && impl_->refuse_end()) return *this;  // nor is it replaced
  impl_.reset();
  if (other.impl_ && !other.impl_->refuse_end()) impl_ = std::move(other.impl_);
  return *this;
}
Txn::~Txn() = default;

bool Txn::live() const { return impl_ && impl_->live(); }

uint64_t Txn::txn_id() const { return impl_ && impl_->live() ? impl_->txn_id() : 0; }

void Txn::abort() {
  // Database::batch's txn ends with its group; the function that asked fails.
  if (impl_ && impl_->refuse_end()) return;
  impl_.reset();
}

Result<Tree> Txn::open_tree(std::string_view name) {
  ORDO_REQUIRE_LIVE();
  ORDO_RETURN_IF_ERROR(impl_->lookup_catalog(name).status());
  ORDO_ASSERT(!name.empty());  // check_tree_name(): never the default tree's handle here
  return impl_->db().tree_handle(name);
}

Result<std::vector<std::string>> Txn::list_trees() {
  ORDO_REQUIRE_LIVE();
  std::vector<std::string> names;
  btree::Cursor c(impl_->pages(), impl_->catalog_root());
  Status s = c.first();
  while (s.is_ok() && c.valid()) {
    names.push_back(c.key().str());
    s = c.next();
  }
  ORDO_RETURN_IF_ERROR(s);
  return names;
}

Result<ByteView> Txn::get(const Tree& tree, ByteView key) {
  ORDO_REQUIRE_LIVE();
  ORDO_ASSIGN_OR_RETURN(btree::TreeRoot root, impl_->root_of(tree));
  bool found = false;
  ByteView value;
  ORDO_RETURN_IF_ERROR(btree::find(impl_->pages(), root, key, &found, &value));
  if (!found) return Status::not_found("key not found");
  return value;
}

Result<Cursor> Txn::cursor(const Tree& tree) {
  ORDO_REQUIRE_LIVE();
  ORDO_ASSIGN_OR_RETURN(btree::TreeRoot root, impl_->root_of(tree));
  return Cursor(std::make_unique<CursorImpl>(*impl_, tree, root));
}

Status Txn::scan(const Tree& tree, const KeyRange& range, const ScanFn& fn) {
  ORDO_REQUIRE_LIVE();
  ORDO_ASSIGN_OR_RETURN(btree::TreeRoot root, impl_->root_of(tree));
  if (!impl_->is_write()) {
    ORDO_ASSERT(impl_->live());  // ORDO_REQUIRE_LIVE
    // A read txn's pages never change under it: a plain tree cursor, checked
    // after each call of `fn` only for the txn having ended, been reset or
    // renewed in it.
    const TxnImpl* const impl = impl_.get();
    const uint64_t generation = impl->generation();
    btree::Cursor c(impl_->pages(), root);
    ORDO_RETURN_IF_ERROR(c.seek(range.from()));
    while (c.valid()) {
      const ByteView key = c.key();
      if (range.past_end(key)) break;
      const ByteView value = c.value();
      if (!c.status().is_ok()) return c.status();
      if (!fn(key, value)) break;
      if (impl_.get() != impl || impl->generation() != generation) return ended();
      ORDO_RETURN_IF_ERROR(c.next());
    }
    return Status::ok();
  }
  // A registered cursor, so that writes `fn` makes keep it right.
  CursorImpl c(*impl_, tree, root);
  ORDO_RETURN_IF_ERROR(c.seek(range.from()));
  while (c.valid() && !range.past_end(c.key())) {
    const ByteView value = c.value();
    ORDO_RETURN_IF_ERROR(c.status());
    if (!fn(c.key(), value)) return Status::ok();
    ORDO_RETURN_IF_ERROR(c.next_after_visit());
  }
  return c.status();
}

Result<TreeStats> Txn::tree_stats(const Tree& tree) {
  ORDO_REQUIRE_LIVE();
  ORDO_ASSIGN_OR_RETURN(btree::TreeRoot root, impl_->root_of(tree));
  btree::TreeShape s;
  ORDO_RETURN_IF_ERROR(btree::collect_stats(impl_->pages(), root, &s));
  TreeStats out;
  out.name = tree.name();
  out.entries = s.entries;
  out.depth = s.depth;
  out.leaf_pages = s.leaf_pages;
  out.branch_pages = s.branch_pages;
  out.leaf_fill = s.leaf_fill();
  out.overflow_pages = s.overflow_pages;
  out.overflow_values = s.overflow_values;
  out.key_bytes = s.key_bytes;
  out.value_bytes = s.value_bytes;
  return out;
}

Result<FreeSpace> Txn::free_space() {
  ORDO_REQUIRE_LIVE();
  FreeSpace out;
  // What a write txn starting from this snapshot could reuse.
  ORDO_ASSIGN_OR_RETURN(const engine::ReuseRule rule,
                        impl_->db().reuse_rule(impl_->snapshot().txn_id));
  btree::Cursor c(impl_->pages(), impl_->free_tree_root());
  Status s = c.first();
  while (s.is_ok() && c.valid()) {
    ORDO_ASSIGN_OR_RETURN(
        const engine::FreeEntry entry,
        engine::decode_free_entry(c.key(), c.value(), impl_->free_tree_root().root));
    out.entries++;
    out.free_pages += entry.page_count();
    ORDO_ASSIGN_OR_RETURN(const bool reusable, rule.reusable(entry));
    if (!reusable) out.pending_pages += entry.page_count();
    s = c.next();
  }
  ORDO_RETURN_IF_ERROR(s);
  ORDO_ASSERT(out.pending_pages <= out.free_pages);
  return out;
}

Cursor::Cursor(std::unique_ptr<CursorImpl> impl) : impl_(std::move(impl)) {}
Cursor::Cursor(Cursor&&) noexcept = default;
Cursor& Cursor::operator=(Cursor&&) noexcept = default;
Cursor::~Cursor() = default;

namespace {
Status moved_from() { return Status::invalid_argument("cursor was moved from"); }
}  // namespace
Status Cursor::first() { return impl_ ? impl_->first() : moved_from(); }
Status Cursor::last() { return impl_ ? impl_->last() : moved_from(); }
Status Cursor::seek(ByteView key) { return impl_ ? impl_->seek(key) : moved_from(); }
Status Cursor::next() { return impl_ ? impl_->next() : moved_from(); }
Status Cursor::prev() { return impl_ ? impl_->prev() : moved_from(); }
bool Cursor::valid() const { return impl_ && impl_->valid(); }
ByteView Cursor::key() const { return impl_ ? impl_->key() : ByteView(); }
ByteView Cursor::value() const { return impl_ ? impl_->value() : ByteView(); }
Status Cursor::status() const { return impl_ ? impl_->status() : moved_from(); }
Status Cursor::put(ByteView key, ByteView value) {
  return impl_ ? impl_->put(key, value) : moved_from();
}
Status Cursor::del() { return impl_ ? impl_->del() : moved_from(); }

ReadTxn::ReadTxn(std::unique_ptr<TxnImpl> impl) : Txn(std::move(impl)) {}

// Only a Txn& assignment could put a write txn here; it is left alone.
void ReadTxn::reset() {
  if (impl_ && !impl_->is_write()) static_cast<ReadTxnImpl&>(*impl_).reset();
}

Status ReadTxn::renew() {
  if (!impl_ || impl_->is_write()) return ended();
  auto& impl = static_cast<ReadTxnImpl&>(*impl_);
  impl.reset();
  ORDO_ASSERT(!impl.live());
  ORDO_RETURN_IF_ERROR(impl.db().check_process());
  ORDO_ASSIGN_OR_RETURN(const engine::Meta snapshot, impl.db().register_reader());
  impl.renew(snapshot);
  return Status::ok();
}
WriteTxn::WriteTxn(std::unique_ptr<TxnImpl> impl) : Txn(std::move(impl)) {}

}  // namespace ordo
