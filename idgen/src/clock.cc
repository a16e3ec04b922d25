#include "ordo/clock.h"

#include <time.h>

namespace ordo {

uint64_t SystemClock::now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  if (ts.tv_sec < 0) return 0;  // Before 1970: the ID layouts have no negative times.
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

Clock& system_clock() {
  // Leaked on purpose: generators may outlive static destruction order.
  static SystemClock* clock = new SystemClock();
  return *clock;
}

}  // namespace ordo
