// Whether a test runs under a sanitizer, and how much of a long randomized
// test it then runs.
#pragma once

namespace ordo::testing {

// True in an ASan or TSan build (GCC's macros; clang's __has_feature).
constexpr bool under_sanitizer() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

// `full` in a plain build; a quarter of it (at least 1) under a sanitizer,
// which makes each operation several times dearer. The plain build runs the
// whole count on the same seed, so the sanitizer run repeats its first
// quarter with every memory and race check on.
constexpr long sanitizer_share(long full) {
  return under_sanitizer() ? (full / 4 > 0 ? full / 4 : 1) : full;
}

}  // namespace ordo::testing
