#include "redb_pairs.h"

#include <algorithm>
#include <cstring>

namespace ordo::bench {
namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
// 8-byte words per pair: 3 of key, 19 of value (152 bytes, 150 used).
constexpr uint64_t kWordsPerPair = 32;

// SplitMix64's output function of the counter x.
uint64_t pair_mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <size_t N>
void fill(uint64_t base, std::array<char, N>& out) {
  for (size_t at = 0, w = 0; at < N; at += 8, ++w) {
    const uint64_t word = pair_mix(base + w * kGolden);
    std::memcpy(out.data() + at, &word, std::min<size_t>(8, N - at));
  }
}

}  // namespace

void make_redb_pair(uint64_t seed, uint64_t i, RedbPair& out) {
  const uint64_t base = seed * kGolden + i * kWordsPerPair * kGolden;
  fill(base, out.key);
  fill(base + 3 * kGolden, out.value);
}

}  // namespace ordo::bench
