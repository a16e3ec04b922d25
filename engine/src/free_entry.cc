#include "free_entry.h"

#include "ordo/assert.h"
#include "ordo/btree/endian.h"

namespace ordo::engine {

btree::PageNo FreeEntry::page(uint64_t i) const {
  ORDO_ASSERT(i < page_count());
  return btree::load_u64(pages.data() + 8 * i);
}

std::string free_key(uint64_t freed_by, uint64_t written_by, uint32_t chunk) {
  std::string k(kFreeKeyBytes, '\0');
  auto* p = reinterpret_cast<std::byte*>(k.data());
  btree::store_be64(p, freed_by);
  btree::store_be64(p + 8, written_by);
  btree::store_be32(p + 16, chunk);
  return k;
}

Result<FreeEntry> decode_free_entry(ByteView key, ByteView value, btree::PageNo at) {
  if (key.size() != kFreeKeyBytes) return Status::corruption("free tree key has a bad size", at);
  if (value.empty() || value.size() % 8 != 0) {
    return Status::corruption("free tree entry has a bad size", at);
  }
  FreeEntry e;
  e.freed_by = btree::load_be64(key.data());
  e.written_by = btree::load_be64(key.data() + 8);
  e.chunk = btree::load_be32(key.data() + 16);
  if (e.written_by > e.freed_by) {
    return Status::corruption("free tree entry says its pages were written after they were freed",
                              at);
  }
  e.pages = value;
  return e;
}

}  // namespace ordo::engine
