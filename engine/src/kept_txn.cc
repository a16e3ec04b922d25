// WriteTxnImpl's changes to the kept snapshots (kept_snapshots.h).
#include "kept_snapshots.h"
#include "ordo/assert.h"
#include "ordo/btree/tree.h"
#include "txn_impl.h"

namespace ordo {

Result<uint64_t> WriteTxnImpl::keep_base_snapshot() {
  ORDO_RETURN_IF_ERROR(check_writable());
  if (snapshot_.txn_id == 0) {
    return Status::invalid_argument("no commit to keep yet: the database is new");
  }
  if (!kept_dirty_) kept_ = snapshot_.kept;
  const std::string key = engine::kept_key(snapshot_.txn_id);
  const std::string record = engine::encode_kept(snapshot_);
  Status s = btree::put(pages_, kept_, key, record);
  if (!s.is_ok()) return note(s);
  kept_dirty_ = true;
  ORDO_ASSERT(kept_.root != btree::kNullPage);  // holds the entry just put
  return snapshot_.txn_id;
}

Status WriteTxnImpl::release_kept(uint64_t txn_id) {
  ORDO_RETURN_IF_ERROR(check_writable());
  btree::TreeRoot kept = kept_dirty_ ? kept_ : snapshot_.kept;
  bool found = false;
  Status s = btree::remove(pages_, kept, engine::kept_key(txn_id), &found);
  if (!s.is_ok()) return note(s);
  if (!found) {
    return Status::not_found("snapshot " + std::to_string(txn_id) + " is not kept");
  }
  ORDO_ASSERT(kept.entries + 1 == (kept_dirty_ ? kept_ : snapshot_.kept).entries);
  kept_ = kept;
  kept_dirty_ = true;
  return Status::ok();
}

}  // namespace ordo
