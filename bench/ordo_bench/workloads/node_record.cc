#include "node_record.h"

#include <algorithm>
#include <cstring>

namespace ordo::bench {

Uuid random_node_id(std::mt19937_64& rng) {
  Uuid id;
  for (size_t half = 0; half < 2; ++half) {
    const uint64_t bits = rng();
    for (size_t b = 0; b < 8; ++b) id.bytes[half * 8 + b] = static_cast<uint8_t>(bits >> (8 * b));
  }
  id.bytes[6] = static_cast<uint8_t>((id.bytes[6] & 0x0f) | 0x40);  // version 4
  id.bytes[8] = static_cast<uint8_t>((id.bytes[8] & 0x3f) | 0x80);  // variant 0b10
  return id;
}

std::string node_name(uint64_t i) { return "n" + std::to_string(i); }

std::array<char, kNodeValueBytes> node_value(const Uuid& parent, std::string_view name) {
  std::array<char, kNodeValueBytes> value{};  // zero padding
  std::memcpy(value.data(), parent.bytes.data(), Uuid::kSize);
  const size_t n = std::min(name.size(), kNodeValueBytes - Uuid::kSize);
  std::memcpy(value.data() + Uuid::kSize, name.data(), n);
  return value;
}

std::string child_key(const Uuid& parent, std::string_view name) {
  std::string key(reinterpret_cast<const char*>(parent.bytes.data()), Uuid::kSize);
  key.append(name);
  return key;
}

}  // namespace ordo::bench
