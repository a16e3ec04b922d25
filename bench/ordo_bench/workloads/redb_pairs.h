// The key-value pairs of the redb workload (redb_workload.h): 24-byte keys
// and 150-byte values of seeded pseudo-random bytes, as redb's
// lmdb_benchmark draws them. Pair i is a function of (seed, i) alone
// (SplitMix64 of the seed and a counter), so any phase or thread can make
// pair i again without replaying the stream before it; keys are uniform over
// their 2^192 values, so they arrive in random key order.
#pragma once

#include <array>
#include <cstdint>

#include "ordo/byte_view.h"

namespace ordo::bench {

inline constexpr size_t kRedbKeyBytes = 24;
inline constexpr size_t kRedbValueBytes = 150;

struct RedbPair {
  std::array<char, kRedbKeyBytes> key;
  std::array<char, kRedbValueBytes> value;

  ByteView key_view() const { return ByteView(key.data(), key.size()); }
  ByteView value_view() const { return ByteView(value.data(), value.size()); }
};

// Fills `out` with pair `i` of the stream seeded with `seed`.
void make_redb_pair(uint64_t seed, uint64_t i, RedbPair& out);

}  // namespace ordo::bench
