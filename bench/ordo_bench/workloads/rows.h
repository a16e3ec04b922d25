// The rows of the commit and reads workloads: key i is i as 8 big-endian
// bytes (numeric order is key order), or 16 bytes (those 8, then 8 bytes
// mixed from i); its value is 64 bytes starting with i and a version, both
// big-endian, so a read can check that it got the row it asked for.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kv_engine.h"

namespace ordo::bench {

inline constexpr size_t kRowValueBytes = 64;

// Key i, `key_bytes` long. REQUIRES: key_bytes is 8 or 16.
std::string row_key(uint64_t i, size_t key_bytes);

// v as 8 big-endian bytes at `out`, and back.
void put_be64(char* out, uint64_t v);
uint64_t get_be64(const std::byte* in);

// A value of `Bytes` bytes: i, version (both big-endian), zero padding.
template <size_t Bytes>
std::array<char, Bytes> indexed_value(uint64_t i, uint64_t version) {
  static_assert(Bytes >= 16);
  std::array<char, Bytes> value{};
  put_be64(value.data(), i);
  put_be64(value.data() + 8, version);
  return value;
}

// Row i's value at `version`: i, version, then zero padding.
inline std::array<char, kRowValueBytes> row_value(uint64_t i, uint64_t version) {
  return indexed_value<kRowValueBytes>(i, version);
}

// The index of an indexed_value read back (its first 8 bytes), e.g. the row it belongs to;
// ~0 when the value is too short to hold one.
uint64_t row_of_value(ByteView value);

// v as 8 big-endian bytes at `out`, and back.
void put_be64(char* out, uint64_t v);
uint64_t get_be64(const std::byte* in);

// Puts through one write txn at a time, committing every `batch` puts: the
// preload of a workload. One thread. Destroying it without finish() drops
// the puts since the last commit.
class BatchWriter {
 public:
  // REQUIRES: batch > 0.
  BatchWriter(KvEngine& db, uint64_t batch) : db_(db), batch_(batch) {}

  // The open txn, begun when there is none (for KvWrite::engine_id()).
  Result<KvWrite*> txn();
  // Puts into the open txn; commits it when it holds `batch` puts.
  Status put(TableId table, ByteView key, ByteView value);
  // Commits the open txn, if any.
  Status finish();

 private:
  KvEngine& db_;
  const uint64_t batch_;
  std::unique_ptr<KvWrite> txn_;
  uint64_t puts_ = 0;  // in txn_
};

// Visits every entry of `table` whose key starts with `prefix`, in key
// order, through `read`; returns how many. KvRead::scan cannot stop at a
// key, so this scans 8 entries, then 16, 32, ... from after the last match
// until an entry leaves the prefix (the entries past it are read, not
// visited). Any engine error as is.
Result<uint64_t> scan_prefix(KvRead& read, TableId table, ByteView prefix,
                             const ScanVisitor& visit);

// `count` read snapshots of `db`, made on this thread to be handed one to
// each reading thread. The first engine error as is.
Result<std::vector<std::unique_ptr<KvRead>>> begin_reads(KvEngine& db, unsigned count);

// Puts rows [from, to) at version 0 into `table` in ascending key order, a
// commit every `batch` rows (and after the last). Any engine error as is.
// REQUIRES: batch > 0.
Status load_rows(KvEngine& db, TableId table, uint64_t from, uint64_t to, size_t key_bytes,
                 uint64_t batch);

}  // namespace ordo::bench
