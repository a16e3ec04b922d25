// Kept snapshots: commits a database holds on to until released, so that
// their pages are never reused (docs/FORMAT.md, "Kept snapshots"). They live
// in a small B+-tree whose root is in the meta (Meta::kept): key the kept
// txn id (8 bytes, big-endian), value a 192-byte record of that commit's
// roots and ID high-water marks:
//     0   8 txn id
//     8   8 page high-water mark
//    16  32 default tree root   (TreeRoot encoding, meta.h)
//    48  32 catalog tree root
//    80  32 free tree root
//   112   8 named tree count
//   120   8 free page count
//   128  16 UUIDv7 high-water mark
//   144   8 64-bit ID high-water mark
//   152  32 kept snapshots tree root at that commit (its pages are held as
//           the others are; a copy of the snapshot needs it to leak none)
//   184   8 zero
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meta.h"
#include "ordo/btree/page_access.h"
#include "ordo/btree/tree.h"
#include "ordo/status.h"

namespace ordo::engine {

inline constexpr uint32_t kKeptRecordBytes = 192;
inline constexpr uint32_t kKeptKeyBytes = 8;

// The key of kept snapshot `txn_id`.
std::string kept_key(uint64_t txn_id);
// The record of `snapshot`.
std::string encode_kept(const Meta& snapshot);
// The meta of a kept snapshot read from its record: `current` (the state it
// is read in: page size, log area) with the record's txn id, roots, counts
// and ID marks. Corruption naming `page` for a malformed record or key.
Result<Meta> decode_kept(ByteView key, ByteView record, const Meta& current, btree::PageNo page);

// Every kept snapshot of `state`, ascending txn id. Corruption on a damaged
// page or record.
Result<std::vector<Meta>> read_kept(btree::PageReader& pages, const Meta& state);
// Only their txn ids (ascending).
Result<std::vector<uint64_t>> read_kept_txns(btree::PageReader& pages, const Meta& state);

}  // namespace ordo::engine
