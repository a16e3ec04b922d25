#include "rows.h"

#include <algorithm>
#include <memory>

namespace ordo::bench {
namespace {

void put_be64(char* out, uint64_t v) {
  for (int b = 0; b < 8; ++b) out[b] = static_cast<char>(v >> (56 - 8 * b));
}

uint64_t get_be64(const std::byte* in) {
  uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v = (v << 8) | static_cast<uint8_t>(in[b]);
  return v;
}

// splitmix64's finalizer: the second half of a 16-byte key.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::string row_key(uint64_t i, size_t key_bytes) {
  std::string key(key_bytes, '\0');
  put_be64(key.data(), i);
  if (key_bytes >= 16) put_be64(key.data() + 8, mix(i));
  return key;
}

std::array<char, kRowValueBytes> row_value(uint64_t i, uint64_t version) {
  std::array<char, kRowValueBytes> value{};
  put_be64(value.data(), i);
  put_be64(value.data() + 8, version);
  return value;
}

uint64_t row_of_value(ByteView value) {
  return value.size() < 8 ? ~uint64_t{0} : get_be64(value.data());
}

Status load_rows(KvEngine& db, TableId table, uint64_t from, uint64_t to, size_t key_bytes,
                 uint64_t batch) {
  for (uint64_t start = from; start < to; start += batch) {
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvWrite> txn, db.begin_write());
    const uint64_t end = std::min(to, start + batch);
    for (uint64_t i = start; i < end; ++i) {
      const auto value = row_value(i, 0);
      ORDO_RETURN_IF_ERROR(
          txn->put(table, row_key(i, key_bytes), ByteView(value.data(), value.size())));
    }
    ORDO_RETURN_IF_ERROR(txn->commit());
  }
  return Status::ok();
}

}  // namespace ordo::bench
