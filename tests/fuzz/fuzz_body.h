// The fuzzed operation: treat `data` as a database file, open it read-only,
// check it and read everything. Must never crash, hang or allocate without
// bound, whatever the bytes; errors are fine.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ordo::fuzz {

// Inputs larger than this are ignored (keeps runs fast and memory bounded).
inline constexpr size_t kMaxInputBytes = 1 << 20;

void open_check_and_scan(const uint8_t* data, size_t size);

}  // namespace ordo::fuzz
