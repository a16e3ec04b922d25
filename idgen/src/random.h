// Private to ordo_idgen: the pseudo-random source of UUIDv7 random bits.
// splitmix64 expands a 64-bit seed, xoshiro256** produces the stream
// (https://prng.di.unimi.it/). The state lives in each generator, never in a
// global rand(), so a fixed seed makes a test's IDs reproducible.
#pragma once

#include <array>
#include <cstdint>
#include <random>

namespace ordo::internal {

using XoshiroState = std::array<uint64_t, 4>;

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// seed 0 draws the seed from std::random_device.
inline XoshiroState xoshiro_seed(uint64_t seed) {
  if (seed == 0) {
    std::random_device rd;
    seed = (uint64_t{rd()} << 32) ^ rd();
  }
  // Four splitmix64 outputs are never all zero, the one state xoshiro forbids.
  XoshiroState s;
  for (auto& word : s) word = splitmix64(seed);
  return s;
}

inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// xoshiro256**: not thread-safe; the caller serializes access to `s`.
inline uint64_t xoshiro_next(XoshiroState& s) {
  const uint64_t result = rotl(s[1] * 5, 7) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

}  // namespace ordo::internal
