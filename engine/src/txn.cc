// Txn, ReadTxn and Cursor: the read side of the API.
#include <algorithm>
#include <string>

#include "ordo/btree/endian.h"
#include "ordo/btree/page_format.h"
#include "txn_impl.h"

namespace ordo {

Status TxnImpl::check_tree_name(std::string_view name) const {
  if (name.empty()) return Status::invalid_argument("tree name is empty");
  if (name.size() > btree::max_key_bytes(snapshot_.page_size)) {
    return Status::invalid_argument("tree name of " + std::to_string(name.size()) +
                                    " bytes exceeds the maximum of " +
                                    std::to_string(btree::max_key_bytes(snapshot_.page_size)));
  }
  return Status::ok();
}

Result<btree::TreeRoot> TxnImpl::lookup_catalog(std::string_view name) {
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
  if (tree.id == 0) return snapshot_.default_tree;
  auto it = read_roots_.find(tree.id);
  if (it != read_roots_.end()) return it->second;
  ORDO_ASSIGN_OR_RETURN(btree::TreeRoot root, lookup_catalog(tree.name));
  read_roots_.emplace(tree.id, root);
  return root;
}

Txn::Txn(std::unique_ptr<TxnImpl> impl, DatabaseImpl* db) : impl_(std::move(impl)), db_(db) {}

namespace {
Status ended() { return Status::invalid_argument("txn already committed or aborted"); }
}  // namespace
#define ORDO_REQUIRE_LIVE() \
  if (!impl_) return ended()
Txn::Txn(Txn&&) noexcept = default;
Txn& Txn::operator=(Txn&&) noexcept = default;
Txn::~Txn() = default;

uint64_t Txn::txn_id() const { return impl_ ? impl_->txn_id() : 0; }

Result<Tree> Txn::open_tree(std::string_view name) {
  ORDO_REQUIRE_LIVE();
  ORDO_RETURN_IF_ERROR(impl_->lookup_catalog(name).status());
  return Tree{impl_->db().tree_id(name), std::string(name)};
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
  return Cursor(std::make_unique<CursorImpl>(impl_->pages(), root));
}

Result<TreeStats> Txn::tree_stats(const Tree& tree) {
  ORDO_REQUIRE_LIVE();
  ORDO_ASSIGN_OR_RETURN(btree::TreeRoot root, impl_->root_of(tree));
  btree::TreeStats s;
  ORDO_RETURN_IF_ERROR(btree::collect_stats(impl_->pages(), root, &s));
  TreeStats out;
  out.name = tree.name;
  out.entries = s.entries;
  out.depth = s.depth;
  out.leaf_pages = s.leaf_pages;
  out.branch_pages = s.branch_pages;
  out.leaf_fill = s.leaf_fill();
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
    ORDO_ASSIGN_OR_RETURN(const engine::FreeEntry entry,
                          engine::decode_free_entry(c.key(), c.value(),
                                                    impl_->free_tree_root().root));
    out.entries++;
    out.free_pages += entry.page_count();
    ORDO_ASSIGN_OR_RETURN(const bool reusable, rule.reusable(entry));
    if (!reusable) out.pending_pages += entry.page_count();
    s = c.next();
  }
  ORDO_RETURN_IF_ERROR(s);
  return out;
}

Cursor::Cursor(std::unique_ptr<CursorImpl> impl) : impl_(std::move(impl)) {}
Cursor::Cursor(Cursor&&) noexcept = default;
Cursor& Cursor::operator=(Cursor&&) noexcept = default;
Cursor::~Cursor() = default;
Status Cursor::first() { return impl_->cursor.first(); }
Status Cursor::last() { return impl_->cursor.last(); }
Status Cursor::seek(ByteView key) { return impl_->cursor.seek(key); }
Status Cursor::next() { return impl_->cursor.next(); }
Status Cursor::prev() { return impl_->cursor.prev(); }
bool Cursor::valid() const { return impl_->cursor.valid(); }
ByteView Cursor::key() const { return impl_->cursor.key(); }
ByteView Cursor::value() const { return impl_->cursor.value(); }
Status Cursor::status() const { return impl_->cursor.status(); }

}  // namespace ordo

namespace ordo {
ReadTxn::ReadTxn(std::unique_ptr<TxnImpl> impl, DatabaseImpl* db) : Txn(std::move(impl), db) {}
WriteTxn::WriteTxn(std::unique_ptr<TxnImpl> impl, DatabaseImpl* db) : Txn(std::move(impl), db) {}
}  // namespace ordo
