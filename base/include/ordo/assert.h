// ORDO_ASSERT and ORDO_DCHECK: checks of ordo's own invariants.
//
// A failing check is a bug in ordo, never a reaction to input: data read from
// a file or passed by a caller is validated and answered with a Status
// (Corruption, InvalidArgument), not asserted on.
//
// ORDO_ASSERT(cond) is always on: keep it O(1). ORDO_DCHECK(cond) is compiled
// only when NDEBUG is undefined (debug builds): for O(n) checks. On failure
// both print "file:line: ordo assertion failed: cond" to stderr and abort().
// The failure path is a cold, never-inlined function, so a passing check
// costs one predictable branch. Thread-safety: any thread.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace ordo::detail {

[[noreturn, gnu::cold, gnu::noinline]] inline void assert_failed(const char* file, int line,
                                                                 const char* condition) {
  std::fprintf(stderr, "%s:%d: ordo assertion failed: %s\n", file, line, condition);
  std::fflush(stderr);
  std::abort();
}

}  // namespace ordo::detail

#define ORDO_ASSERT(cond)                                                                       \
  do {                                                                                          \
    if (__builtin_expect(!(cond), 0)) ::ordo::detail::assert_failed(__FILE__, __LINE__, #cond); \
  } while (0)

#ifdef NDEBUG
// Type-checks the condition without evaluating it.
#define ORDO_DCHECK(cond)         \
  do {                            \
    if (false) ORDO_ASSERT(cond); \
  } while (0)
#else
#define ORDO_DCHECK(cond) ORDO_ASSERT(cond)
#endif
