#include "reuse_rule.h"

#include <algorithm>

#include "ordo/assert.h"

namespace ordo::engine {

ReuseRule ReuseRule::make(uint64_t snapshot_txn, uint64_t checkpoint_txn,
                          std::vector<uint64_t> reader_snapshots, const io::PageFile& file) {
  const uint64_t last = snapshot_txn == 0 ? 0 : snapshot_txn - 1;
  std::sort(reader_snapshots.begin(), reader_snapshots.end());
  return ReuseRule(snapshot_txn, last, checkpoint_txn, std::move(reader_snapshots), file);
}

Result<bool> ReuseRule::other_readers() const {
  if (other_readers_ == OtherReaders::kUnknown) {
    ORDO_ASSIGN_OR_RETURN(const bool some, file_->reader_slot_in(0, snapshot_txn_));
    other_readers_ = some ? OtherReaders::kSome : OtherReaders::kNone;
  }
  return other_readers_ == OtherReaders::kSome;
}

bool ReuseRule::recent(const FreeEntry& entry) const {
  ORDO_ASSERT(entry.written_by <= entry.freed_by);  // decode_free_entry checked it
  if (entry.written_by == entry.freed_by) return false;
  if (entry.freed_by > last_) return true;
  // The checkpoint's state reaches pages written at or before it and freed
  // after it; pages written after it it never reaches (a written_by of 0,
  // unknown, counts as before).
  return entry.freed_by > checkpoint_ && entry.written_by <= checkpoint_;
}

bool ReuseRule::waits_for_checkpoint(const FreeEntry& entry) const {
  ORDO_ASSERT(entry.written_by <= entry.freed_by);  // decode_free_entry checked it
  return entry.written_by != entry.freed_by && entry.freed_by <= last_ &&
         entry.freed_by > checkpoint_ && entry.written_by <= checkpoint_;
}

Result<bool> ReuseRule::reusable(const FreeEntry& entry) const {
  // Pages a txn recorded as reusable and unused (written_by == freed_by) were
  // free in its snapshot and in the meta before, so neither that meta nor any
  // snapshot reaches them: they need not wait a commit.
  if (entry.written_by == entry.freed_by) return true;
  if (recent(entry)) return false;
  // A pinned entry past every snapshot would have been recent().
  ORDO_ASSERT(entry.freed_by <= last_);
  auto it = std::lower_bound(readers_.begin(), readers_.end(), entry.written_by);
  if (it != readers_.end() && *it < entry.freed_by) return false;
  ORDO_ASSIGN_OR_RETURN(const bool other, other_readers());
  if (!other) return true;
  ORDO_ASSIGN_OR_RETURN(bool held, file_->reader_slot_in(entry.written_by, entry.freed_by));
  return !held;
}

}  // namespace ordo::engine
