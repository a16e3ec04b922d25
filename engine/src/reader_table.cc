#include "reader_table.h"

#include <algorithm>

#include "ordo/assert.h"

namespace ordo::engine {

std::vector<ReaderTable::Snapshot>::iterator ReaderTable::find(uint64_t txn_id) {
  // The newest snapshot, at the back, is the common case.
  if (!readers_.empty() && readers_.back().txn_id <= txn_id) {
    return readers_.back().txn_id == txn_id ? readers_.end() - 1 : readers_.end();
  }
  const auto it = std::lower_bound(readers_.begin(), readers_.end(), txn_id,
                                   [](const Snapshot& s, uint64_t id) { return s.txn_id < id; });
  ORDO_ASSERT(it == readers_.end() || it->txn_id >= txn_id);
  return it;
}

bool ReaderTable::add(uint64_t txn_id) {
  auto it = find(txn_id);
  if (it != readers_.end() && it->txn_id == txn_id) return it->readers++ == 0;
  readers_.insert(it, Snapshot{txn_id, 1});
  // find() keeps the vector in ascending order (O(n): debug builds only).
  ORDO_DCHECK(
      std::is_sorted(readers_.begin(), readers_.end(),
                     [](const Snapshot& a, const Snapshot& b) { return a.txn_id < b.txn_id; }));
  return true;
}

bool ReaderTable::remove(uint64_t txn_id) {
  auto it = find(txn_id);
  if (it == readers_.end() || it->txn_id != txn_id) return false;
  ORDO_ASSERT(it->readers > 0);  // An entry leaves with its last reader.
  if (--it->readers != 0) return false;
  readers_.erase(it);
  return true;
}

std::vector<uint64_t> ReaderTable::snapshots() const {
  std::vector<uint64_t> out;
  out.reserve(readers_.size());
  for (const Snapshot& s : readers_) {
    // Ascending, one entry per snapshot, none without a reader.
    ORDO_DCHECK(s.readers > 0 && (out.empty() || out.back() < s.txn_id));
    out.push_back(s.txn_id);
  }
  return out;
}

}  // namespace ordo::engine
