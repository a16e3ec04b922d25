// ReaderTable: the snapshots this process's live read txns read, counted per
// snapshot txn id. The page reuse rule keeps every page these snapshots reach.
//
// Thread-safety: none of its own; its owner guards it (DatabaseImpl's state
// mutex), so that taking the committed snapshot and registering it are one
// step.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace ordo::engine {

class ReaderTable {
 public:
  // Registers one more reader of snapshot `txn_id`; true for its first.
  bool add(uint64_t txn_id) { return readers_[txn_id]++ == 0; }
  // Unregisters one reader of `txn_id`; true when it was the last one.
  // False (nothing changes) when `txn_id` has no reader.
  bool remove(uint64_t txn_id);
  // Snapshot txn ids with at least one reader, ascending.
  std::vector<uint64_t> snapshots() const;
  bool empty() const { return readers_.empty(); }

 private:
  std::map<uint64_t, uint32_t> readers_;  // snapshot txn id -> readers
};

}  // namespace ordo::engine
