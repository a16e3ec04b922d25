// The address range that holds a PageFile's read mapping: reserved once at open, then
// filled with read-only shared file mappings at fixed addresses as the file grows, so
// mapped bytes never move.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ordo/status.h"

namespace ordo::io {

// Reserves `size_bytes` of address space: PROT_NONE, private, anonymous, MAP_NORESERVE
// (no memory or swap is committed). REQUIRES: size_bytes is a multiple of the page size.
// Returns IOError naming map_reserve_bytes when mmap fails.
Result<std::byte*> reserve_address_range(uint64_t size_bytes);

// Maps bytes [offset_bytes, offset_bytes + length_bytes) of `fd` read-only and shared at
// base + offset_bytes, replacing the reservation there (MAP_FIXED).
// REQUIRES: offset and length are multiples of the page size and lie inside the range.
// Returns IOError on failure, after putting the reservation back over that part.
Status map_file_range(std::byte* base, int fd, uint64_t offset_bytes, uint64_t length_bytes);

// Unmaps the whole range (reservation and file mappings). No-op for nullptr.
void release_address_range(std::byte* base, uint64_t size_bytes);

}  // namespace ordo::io
