// Fixtures of ordo-micro: keys, filled leaf and branch pages, and the
// in-memory page store to build whole trees without a file.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ordo/btree/testing/memory_pages.h"

namespace ordo::micro {

// Node keys as ordo stores them: 16 bytes, big-endian; key(i) < key(i + 1).
inline constexpr size_t kKeyBytes = 16;
using Key = std::array<std::byte, kKeyBytes>;
Key key(uint64_t i);

// The value of every fixture entry: 64 bytes, the size of a nodes record.
inline constexpr size_t kValueBytes = 64;
std::span<const std::byte> value_bytes();

// A page of `page_size` bytes formatted as a leaf holding key(0), key(1), ...
// with 64-byte values until the next one would not fit. `*entries` gets the count.
std::vector<std::byte> full_leaf(uint32_t page_size, uint32_t* entries);

// The same as a branch: key(0) (stored empty, as entry 0 of a branch is) ...
// with child page numbers 2, 3, ...
std::vector<std::byte> full_branch(uint32_t page_size, uint32_t* entries);

// The in-memory page store (btree/testing), never committed: every page
// stays dirty, so the tree edits pages in place.
using MemoryPages = btree::testing::MemoryPages;

}  // namespace ordo::micro
