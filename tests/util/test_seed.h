// The seed of a randomized test, printed so that a failure replays.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace ordo::testing {

// ORDO_TEST_SEED when set, else `fallback`.
inline uint64_t test_seed(uint64_t fallback) {
  const char* env = std::getenv("ORDO_TEST_SEED");
  uint64_t seed = env ? std::strtoull(env, nullptr, 10) : fallback;
  std::printf("seed %llu (set ORDO_TEST_SEED to replay)\n", static_cast<unsigned long long>(seed));
  return seed;
}

}  // namespace ordo::testing
