// DatabaseImpl: older snapshots whose pages are still held, for changes()
// and reads of kept snapshots (kept_snapshots.h).
#include "db_impl.h"
#include "kept_snapshots.h"
#include "snapshot_pages.h"

namespace ordo {

Result<std::vector<engine::Meta>> DatabaseImpl::kept_snapshots() {
  ORDO_RETURN_IF_ERROR(refresh_committed());
  const engine::Meta state = committed();
  ORDO_ASSERT(state.page_size == page_size_);  // published at open
  // Always checked: the tree is small, and its records decide which pages a
  // read, a diff or a copy at a kept snapshot takes as that snapshot's.
  engine::SnapshotPages pages(*file_, state.page_size, state.page_high_water, /*verify=*/true);
  return engine::read_kept(pages, state);
}

Result<engine::Meta> DatabaseImpl::register_held_reader(uint64_t txn_id) {
  {
    base::MutexLock g(state_mu_);
    auto it = reader_metas_.find(txn_id);
    if (it != reader_metas_.end()) {
      // A live read txn holds it; one more reader keeps it held after that
      // txn ends.
      const bool first = readers_.add(txn_id);
      ORDO_ASSERT(!first);  // reader_metas_ holds exactly the snapshots readers_ counts
      return it->second;
    }
  }
  ORDO_ASSIGN_OR_RETURN(std::vector<engine::Meta> kept, kept_snapshots());
  const engine::Meta* found = nullptr;
  for (const engine::Meta& m : kept) {
    if (m.txn_id == txn_id) found = &m;
  }
  const auto not_held = [&] {
    return Status::not_found("snapshot " + std::to_string(txn_id) +
                             " is not held: its pages may have been reused; only a snapshot "
                             "that a live read txn of this handle reads or a kept snapshot "
                             "(Database::keep_snapshot) can be compared");
  };
  if (found == nullptr) return not_held();
  {
    base::MutexLock g(state_mu_);
    if (readers_.add(txn_id)) {
      if (options_.read_only) {
        Status s = file_->lock_reader_slot(txn_id);
        if (!s.is_ok()) {
          readers_.remove(txn_id);
          return s;
        }
      }
      reader_metas_[txn_id] = *found;
    }
  }
  // Registered: no write txn that starts from now on reuses its pages. One
  // that started earlier saw it kept unless a release committed meanwhile:
  // make sure the newest commit still keeps it.
  auto again = kept_snapshots();
  bool still = false;
  if (again.is_ok()) {
    for (const engine::Meta& m : *again) still |= m.txn_id == txn_id;
  }
  if (!again.is_ok() || !still) {
    unregister_reader(txn_id);
    if (!again.is_ok()) return again.status();
    return not_held();
  }
  ORDO_ASSERT(found->txn_id == txn_id);
  return *found;
}

}  // namespace ordo
