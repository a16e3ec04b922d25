// One stderr line per interval for a kind of event that can repeat without
// bound (refused connections, retried fetches): the first event of an
// interval is printed, later ones are counted, and the next printed line
// says how many were not. Counters elsewhere keep every event.
// Thread-safety: every member may be called from any thread at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace ordo::sys {

class RateLimitedLog {
 public:
  // At most one line per `interval` (1 s unless told).
  explicit RateLimitedLog(std::chrono::milliseconds interval = std::chrono::seconds(1))
      : interval_(interval) {}

  // Prints "<line>" (and " (N more since the last line)" when events were
  // left out) with a newline to stderr when the interval since the last
  // printed line has passed; otherwise counts the event. Returns whether
  // it printed.
  bool print(const std::string& line);

 private:
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  bool printed_ = false;                          // guarded by mu_
  std::chrono::steady_clock::time_point last_{};  // guarded by mu_
  uint64_t unprinted_ = 0;                        // guarded by mu_
};

}  // namespace ordo::sys
