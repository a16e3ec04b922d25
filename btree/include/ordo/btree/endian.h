// Explicit little-endian field access for on-disk structures. Pages are never
// memcpy'd from in-memory structs; every field goes through these.
#pragma once

#include <endian.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ordo::btree {

inline uint16_t load_u16(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return le16toh(v);
}
inline uint32_t load_u32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return le32toh(v);
}
inline uint64_t load_u64(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return le64toh(v);
}
inline void store_u16(std::byte* p, uint16_t v) {
  v = htole16(v);
  std::memcpy(p, &v, sizeof v);
}
inline void store_u32(std::byte* p, uint32_t v) {
  v = htole32(v);
  std::memcpy(p, &v, sizeof v);
}
inline void store_u64(std::byte* p, uint64_t v) {
  v = htole64(v);
  std::memcpy(p, &v, sizeof v);
}
// Big-endian, for keys that must sort numerically under memcmp order.
inline void store_be64(std::byte* p, uint64_t v) {
  v = htobe64(v);
  std::memcpy(p, &v, sizeof v);
}
inline uint64_t load_be64(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return be64toh(v);
}
inline void store_be32(std::byte* p, uint32_t v) {
  v = htobe32(v);
  std::memcpy(p, &v, sizeof v);
}
inline uint32_t load_be32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return be32toh(v);
}

}  // namespace ordo::btree
