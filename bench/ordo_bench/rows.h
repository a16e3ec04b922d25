// The rows of the commit and reads workloads: key i is i as 8 big-endian
// bytes (numeric order is key order), or 16 bytes (those 8, then 8 bytes
// mixed from i); its value is 64 bytes starting with i and a version, both
// big-endian, so a read can check that it got the row it asked for.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "kv_engine.h"

namespace ordo::bench {

inline constexpr size_t kRowValueBytes = 64;

// Key i, `key_bytes` long. REQUIRES: key_bytes is 8 or 16.
std::string row_key(uint64_t i, size_t key_bytes);

// Row i's value at `version`: i, version, then zero padding.
std::array<char, kRowValueBytes> row_value(uint64_t i, uint64_t version);

// The row index a value read back says it belongs to (its first 8 bytes);
// ~0 when the value is too short to hold one.
uint64_t row_of_value(ByteView value);

// Puts rows [from, to) at version 0 into `table` in ascending key order, a
// commit every `batch` rows (and after the last). Any engine error as is.
// REQUIRES: batch > 0.
Status load_rows(KvEngine& db, TableId table, uint64_t from, uint64_t to, size_t key_bytes,
                 uint64_t batch);

}  // namespace ordo::bench
