#include "reader_table.h"

namespace ordo::engine {

bool ReaderTable::remove(uint64_t txn_id) {
  auto it = readers_.find(txn_id);
  if (it == readers_.end() || --it->second != 0) return false;
  readers_.erase(it);
  return true;
}

std::vector<uint64_t> ReaderTable::snapshots() const {
  std::vector<uint64_t> out;
  out.reserve(readers_.size());
  for (const auto& [txn, count] : readers_) out.push_back(txn);
  return out;
}

}  // namespace ordo::engine
