#include "rows.h"

#include <algorithm>
#include <memory>

namespace ordo::bench {
namespace {

// splitmix64's finalizer: the second half of a 16-byte key.
uint64_t row_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

void put_be64(char* out, uint64_t v) {
  for (int b = 0; b < 8; ++b) out[b] = static_cast<char>(v >> (56 - 8 * b));
}

uint64_t get_be64(const std::byte* in) {
  uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v = (v << 8) | static_cast<uint8_t>(in[b]);
  return v;
}

Result<KvWrite*> BatchWriter::txn() {
  if (txn_ == nullptr) {
    ORDO_ASSIGN_OR_RETURN(txn_, db_.begin_write());
    puts_ = 0;
  }
  return txn_.get();
}

Status BatchWriter::put(TableId table, ByteView key, ByteView value) {
  ORDO_ASSIGN_OR_RETURN(KvWrite* const txn, this->txn());
  ORDO_RETURN_IF_ERROR(txn->put(table, key, value));
  return ++puts_ >= batch_ ? finish() : Status::ok();
}

Status BatchWriter::finish() {
  if (txn_ == nullptr) return Status::ok();
  std::unique_ptr<KvWrite> txn = std::move(txn_);
  return txn->commit();
}

Result<uint64_t> scan_prefix(KvRead& read, TableId table, ByteView prefix,
                             const ScanVisitor& visit) {
  const std::string_view want = prefix.view();
  std::string from(want);
  uint64_t visited = 0;
  bool left = false;  // an entry past the prefix was seen
  for (uint64_t limit = 8; !left; limit *= 2) {
    uint64_t matched = 0;
    ORDO_ASSIGN_OR_RETURN(
        const uint64_t seen,
        read.scan(table, ByteView(from), limit, [&](ByteView key, ByteView value) {
          if (left || !key.view().starts_with(want)) {
            left = true;
            return;
          }
          visit(key, value);
          from.assign(key.view());
          ++matched;
        }));
    visited += matched;
    if (seen < limit) break;  // the end of the table
    from.push_back('\0');     // the next key after the last match
  }
  return visited;
}

std::string row_key(uint64_t i, size_t key_bytes) {
  std::string key(key_bytes, '\0');
  put_be64(key.data(), i);
  if (key_bytes >= 16) put_be64(key.data() + 8, row_mix(i));
  return key;
}

uint64_t row_of_value(ByteView value) {
  return value.size() < 8 ? ~uint64_t{0} : get_be64(value.data());
}

Status load_rows(KvEngine& db, TableId table, uint64_t from, uint64_t to, size_t key_bytes,
                 uint64_t batch) {
  BatchWriter writer(db, batch);
  for (uint64_t i = from; i < to; ++i) {
    const auto value = row_value(i, 0);
    ORDO_RETURN_IF_ERROR(
        writer.put(table, row_key(i, key_bytes), ByteView(value.data(), value.size())));
  }
  return writer.finish();
}

Result<std::vector<std::unique_ptr<KvRead>>> begin_reads(KvEngine& db, unsigned count) {
  std::vector<std::unique_ptr<KvRead>> reads;
  for (unsigned t = 0; t < count; ++t) {
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<KvRead> read, db.begin_read());
    reads.push_back(std::move(read));
  }
  return reads;
}

}  // namespace ordo::bench
