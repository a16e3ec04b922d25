// WriteTxn savepoints: a stack of levels, each holding what changed since it
// began (trees' states here, pages in WriteTxnPages), so that a rollback
// costs what changed since the savepoint, not the txn's size.
#include <algorithm>
#include <atomic>

#include "ordo/assert.h"
#include "savepoint_handles.h"
#include "txn_impl.h"

namespace ordo {

namespace {
// Tags the write txns of this process, so a savepoint of another txn is told apart.
std::atomic<uint64_t> g_savepoint_txn_tags{0};
}  // namespace

Result<Savepoint> WriteTxnImpl::savepoint() {
  ORDO_RETURN_IF_ERROR(check_writable());
  if (savepoint_txn_tag_ == 0) savepoint_txn_tag_ = ++g_savepoint_txn_tags;
  const uint64_t serial = next_savepoint_serial_++;
  ORDO_ASSERT(savepoints_.empty() || savepoints_.back().serial < serial);
  // A cached rightmost path writes branch entry counts through bytes kept from
  // an earlier writable(); the new level has no copy of those pages yet, so
  // the next put descends and writable() keeps their state first. The counts
  // it deferred belong before the savepoint: written before the level starts.
  for (auto& [id, st] : trees_) st.rightmost.invalidate(pages_);
  savepoints_.push_back(SavepointLevel{serial, catalog_, tree_count_, log_.mark(), {}});
  pages_.push_level();
  ORDO_ASSERT(pages_.levels() == savepoints_.size());
  return SavepointHandles::make(savepoint_txn_tag_, serial);
}

Result<size_t> WriteTxnImpl::find_savepoint(const Savepoint& sp) const {
  const uint64_t tag = SavepointHandles::txn_tag(sp);
  const uint64_t serial = SavepointHandles::serial(sp);
  if (tag == 0) return Status::invalid_argument("the savepoint names none (default-made)");
  if (tag != savepoint_txn_tag_) {
    return Status::invalid_argument("the savepoint belongs to another write txn");
  }
  // Serials rise from the outermost level in: a binary search.
  auto it =
      std::lower_bound(savepoints_.begin(), savepoints_.end(), serial,
                       [](const SavepointLevel& level, uint64_t s) { return level.serial < s; });
  if (it == savepoints_.end() || it->serial != serial) {
    // One this txn issued and ended, or (from the C API) bytes of no savepoint.
    return Status::invalid_argument(
        "the savepoint is no longer open: it was released, or a rollback to or release of an "
        "earlier savepoint ended it");
  }
  return static_cast<size_t>(it - savepoints_.begin());
}

Status WriteTxnImpl::rollback_to(const Savepoint& sp) {
  ORDO_RETURN_IF_ERROR(check_writable());
  ORDO_ASSIGN_OR_RETURN(const size_t index, find_savepoint(sp));
  // Pages change under cursors: they keep their key and seek it again.
  detach_cursors();
  // Innermost first: an outer level's state of a tree is the older one.
  for (size_t i = savepoints_.size(); i-- > index;) {
    for (auto& [id, state] : savepoints_[i].trees) {
      TreeState& st = trees_[id];  // present: save_tree() saw it there
      st = std::move(state);
      // Its pages are those of the savepoint now; the path is found afresh
      // (it had no deferred counts: the savepoint flushed them).
      ORDO_ASSERT(!st.rightmost.has_deferred());
      st.rightmost.discard();
      st.saved_in = 0;
    }
  }
  SavepointLevel& level = savepoints_[index];
  catalog_ = level.catalog;
  tree_count_ = level.tree_count;
  log_.truncate(level.log);
  level.trees.clear();
  savepoints_.resize(index + 1);
  pages_.rollback_to_level(index);
  ORDO_ASSERT(pages_.levels() == savepoints_.size());
  return Status::ok();
}

Status WriteTxnImpl::release(const Savepoint& sp) {
  ORDO_RETURN_IF_ERROR(check_writable());
  ORDO_ASSIGN_OR_RETURN(const size_t index, find_savepoint(sp));
  while (savepoints_.size() > index) {
    SavepointLevel inner = std::move(savepoints_.back());
    savepoints_.pop_back();
    if (savepoints_.empty()) break;
    SavepointLevel& outer = savepoints_.back();
    for (auto& [id, state] : inner.trees) {
      // The outer level's own state of the tree is the older one: it wins.
      outer.trees.try_emplace(id, std::move(state));
      trees_[id].saved_in = outer.serial;
    }
  }
  pages_.release_level(index);
  ORDO_ASSERT(pages_.levels() == savepoints_.size());
  return Status::ok();
}

void WriteTxnImpl::end_savepoints() {
  if (savepoints_.empty()) return;
  savepoints_.clear();
  pages_.release_level(0);
  // Trees' saved_in name ended savepoints now: serials are never reused.
  ORDO_ASSERT(pages_.levels() == 0);
}

}  // namespace ordo
