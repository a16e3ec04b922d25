#include "ordo/monotonic_counter.h"

#include "ordo/assert.h"

namespace ordo::detail {

void monotonic_counter_exhausted() {
  // Debug builds only: without assertions next() returns last(), as its
  // header says.
  ORDO_DCHECK(false && "MonotonicCounter: millisecond space exhausted");
}

}  // namespace ordo::detail
