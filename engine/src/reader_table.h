// ReaderTable: the snapshots this process's live read txns read, counted per
// snapshot txn id. The page reuse rule keeps every page these snapshots reach.
//
// A sorted vector of (txn id, readers): live readers span few snapshots, and
// nearly all of them read the newest, at the back, so add() and remove() are
// a comparison or two and allocate nothing once the vector has grown.
//
// Thread-safety: none of its own; its owner guards it (DatabaseImpl's state
// mutex), so that taking the committed snapshot and registering it are one
// step.
#pragma once

#include <cstdint>
#include <vector>

namespace ordo::engine {

class ReaderTable {
 public:
  // Registers one more reader of snapshot `txn_id`; true for its first.
  bool add(uint64_t txn_id);
  // Unregisters one reader of `txn_id`; true when it was the last one.
  // False (nothing changes) when `txn_id` has no reader.
  bool remove(uint64_t txn_id);
  // Snapshot txn ids with at least one reader, ascending.
  std::vector<uint64_t> snapshots() const;
  bool empty() const { return readers_.empty(); }

 private:
  struct Snapshot {
    uint64_t txn_id;
    uint32_t readers;
  };
  // The entry of `txn_id`, or where it would go (ascending txn ids).
  std::vector<Snapshot>::iterator find(uint64_t txn_id);

  std::vector<Snapshot> readers_;  // ascending txn id, readers > 0
};

}  // namespace ordo::engine
