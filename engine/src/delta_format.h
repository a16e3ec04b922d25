// The delta file (docs/FORMAT.md, "Delta files"): the changes that take a
// database from the state of txn A to that of txn B of the same lineage.
//
// Header, 96 bytes (little-endian):
//     0   8 magic "ORDODLT1"
//     8   4 delta format version (1)
//    12   4 flags (0)
//    16   8 base txn id A
//    24   8 target txn id B
//    32   8 fingerprint of the state at A (delta_fingerprint)
//    40   8 fingerprint of the state at B
//    48  16 UUIDv7 high-water mark at B
//    64   8 64-bit ID high-water mark at B
//    72   8 body bytes
//    80   8 XXH3-64 of the body
//    88   8 XXH3-64 of bytes 0..87
// Body: records, each a kind byte and its fields:
//   'T' tree:   u32 name length, name (empty: the default tree), u8 action
//               (0 changed, 1 created: absent at A, 2 dropped: absent at B)
//   'P' put:    u32 key length, key, u32 value length, value, u8 had old
//               value, u64 XXH3-64 of the old value (0 when none)
//   'D' delete: u32 key length, key, u64 XXH3-64 of the old value
// Records of a tree follow its 'T' record, in key order; trees in name
// order, the default tree first. A dropped tree has no key records.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ordo/uuid.h"

namespace ordo::engine {

inline constexpr char kDeltaMagic[8] = {'O', 'R', 'D', 'O', 'D', 'L', 'T', '1'};
inline constexpr uint32_t kDeltaVersion = 1;
inline constexpr uint32_t kDeltaHeaderBytes = 96;

enum class DeltaTreeAction : uint8_t { kChanged = 0, kCreated = 1, kDropped = 2 };

struct DeltaHeader {
  uint64_t base_txn = 0;
  uint64_t target_txn = 0;
  uint64_t base_fingerprint = 0;
  uint64_t target_fingerprint = 0;
  Uuid target_uuid;
  uint64_t target_id64 = 0;
  uint64_t body_bytes = 0;
  uint64_t body_checksum = 0;
};

void encode_delta_header(const DeltaHeader& h, std::byte* out);

// What a state's fingerprint covers: the entry count of the default tree
// and of each named tree (by name, in name order) and the ID high-water
// marks. Two copies of one commit have the same; a database that took other
// commits since almost never does.
struct StateSummary {
  uint64_t default_entries = 0;
  std::vector<std::pair<std::string, uint64_t>> named;  // name order
  Uuid last_uuid;
  uint64_t last_id64 = 0;
};
uint64_t delta_fingerprint(const StateSummary& s);

}  // namespace ordo::engine
