// Txn::count, rank and at: the btree's counting descents (btree/src/tree_count.cc)
// over the txn's view of a tree.
#include <memory>
#include <string>

#include "cursor_impl.h"
#include "ordo/assert.h"
#include "ordo/btree/tree.h"
#include "ordo/database.h"
#include "txn_impl.h"
#include "txn_internals.h"

namespace ordo {

#define ORDO_COUNT_REQUIRE_LIVE() \
  if (!impl_ || !impl_->live()) return TxnInternals::ended()

Result<uint64_t> Txn::count(const Tree& tree, const KeyRange& range) {
  ORDO_COUNT_REQUIRE_LIVE();
  ORDO_ASSIGN_OR_RETURN(const btree::TreeRoot root, impl_->root_of(tree));
  const ByteView end = range.end();
  return btree::count_range(impl_->pages(), root, range.from(), range.has_end() ? &end : nullptr);
}

Result<uint64_t> Txn::rank(const Tree& tree, ByteView key) {
  ORDO_COUNT_REQUIRE_LIVE();
  ORDO_ASSIGN_OR_RETURN(const btree::TreeRoot root, impl_->root_of(tree));
  return btree::rank(impl_->pages(), root, key);
}

Result<Cursor> Txn::at(const Tree& tree, uint64_t i) {
  ORDO_COUNT_REQUIRE_LIVE();
  ORDO_ASSIGN_OR_RETURN(const btree::TreeRoot root, impl_->root_of(tree));
  ORDO_ASSIGN_OR_RETURN(const ByteView found, btree::key_at(impl_->pages(), root, i));
  // A copy: the cursor's seek may read (and in a write txn, later writes may
  // move) the page the view points into.
  const std::string key = found.str();
  Cursor c(std::make_unique<CursorImpl>(*impl_, tree, root));
  ORDO_RETURN_IF_ERROR(c.seek(key));
  // key_at() read that key from this view of the tree.
  ORDO_ASSERT(c.valid() && c.key().compare(ByteView(key)) == 0);
  return c;
}

#undef ORDO_COUNT_REQUIRE_LIVE

}  // namespace ordo
