// Free-tree entries (docs/FORMAT.md "Free tree"): the one encoder and decoder
// of their keys and values, shared by the allocator, free_space() and check.
#pragma once

#include <cstdint>
#include <string>

#include "ordo/btree/page_format.h"
#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::engine {

// Key: freeing txn (u64 BE), writing txn (u64 BE), chunk (u32 BE): entries
// sort by freeing txn, oldest first.
inline constexpr size_t kFreeKeyBytes = 20;

// One decoded entry: pages freed by `freed_by` whose contents `written_by`
// wrote, so only snapshots in [written_by, freed_by) can reach them.
struct FreeEntry {
  uint64_t freed_by = 0;
  uint64_t written_by = 0;
  uint32_t chunk = 0;
  ByteView pages;  // page numbers, u64 each, ascending

  uint64_t page_count() const { return pages.size() / 8; }
  btree::PageNo page(uint64_t i) const;
};

std::string free_key(uint64_t freed_by, uint64_t written_by, uint32_t chunk);

// Decodes one leaf entry of the free tree. Corruption (naming `at`, the leaf's
// page number) when the key or value has a bad size, the written-by txn is
// after the freeing txn, or the value is empty.
Result<FreeEntry> decode_free_entry(ByteView key, ByteView value, btree::PageNo at);

}  // namespace ordo::engine
