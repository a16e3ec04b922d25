// MonotonicCounter: the time-ordered core shared by UuidV7Generator and
// Id64Generator. It holds a position (millisecond, counter within that
// millisecond) that only rises, and the high-water ID built from it.
//
// Rules, RFC 9562 section 6.2 Method 1 ("Fixed Bit-Length Dedicated
// Counter"): on a new millisecond the counter takes its start value; within a
// millisecond it increments by one. When it would pass counter_max, the
// millisecond moves to the next one (last ms + 1) and the counter starts
// again: it never wraps. If the clock reads earlier than the last millisecond
// used, the last millisecond is kept and the counter increments, so IDs never
// go backwards. The generators decide the ID layout, the millisecond range and
// the counter's start; this class decides only the order.
#pragma once

#include <cstdint>
#include <mutex>

#include "ordo/assert.h"

namespace ordo {
namespace detail {

// Called by MonotonicCounter::next() when the position space is used up: an
// assertion failure in a library built with assertions (NDEBUG undefined), a
// no-op otherwise. Out of line, so that this header's behaviour does not
// depend on the NDEBUG of the code that includes it.
void monotonic_counter_exhausted();

}  // namespace detail

// `Id`: a copyable value type whose default value is below every ID the
// generator mints, with operator> in ID order.
// Thread-safety: every member may be called from any number of threads at
// once (a mutex).
template <class Id>
class MonotonicCounter {
 public:
  // `max_ms`: the last millisecond the layout can hold (in the generator's own
  // time base); `counter_max`: the largest counter value.
  MonotonicCounter(uint64_t max_ms, uint64_t counter_max)
      : max_ms_(max_ms), counter_max_(counter_max) {}

  MonotonicCounter(const MonotonicCounter&) = delete;
  MonotonicCounter& operator=(const MonotonicCounter&) = delete;

  // The next ID: `now_ms` is the clock's reading (at most max_ms; it may be
  // stale or behind). `start()` returns a new millisecond's first counter
  // value (at most counter_max); `encode(ms, counter)` builds the ID. Both are
  // called with the mutex held, so they may use state the mutex guards.
  // REQUIRES: the position space is not used up (max_ms with a full counter);
  // if it is, asserts (in a library built with assertions), and otherwise
  // returns last().
  template <class Start, class Encode>
  Id next(uint64_t now_ms, Start&& start, Encode&& encode) {
    std::lock_guard<std::mutex> lock(mu_);
    ORDO_ASSERT(now_ms <= max_ms_);
    const bool had_position = has_position_;
    if (!has_position_ || now_ms > ms_) {
      ms_ = now_ms;
      counter_ = start();
    } else if (counter_ < counter_max_) {
      ++counter_;  // Same ms, or the clock is behind: keep ms_, count on.
    } else if (ms_ < max_ms_) {
      ++ms_;  // Counter used up: borrow the next ms rather than wrap.
      counter_ = start();
    } else {
      detail::monotonic_counter_exhausted();
      return last_;
    }
    ORDO_ASSERT(ms_ <= max_ms_ && counter_ <= counter_max_);
    has_position_ = true;
    Id id = encode(ms_, counter_);
    // IDs only rise: above every ID issued and every floor observed.
    ORDO_ASSERT(!had_position || id > last_);
    last_ = id;
    return last_;
  }

  // Makes every later next() return an ID above `floor`, whose position is
  // (`ms`, `counter`): the generator places a floor of a foreign layout at or
  // above the IDs of its own it must exceed. A floor below the current
  // position changes nothing; last() becomes `floor` if it is greater.
  void observe(uint64_t ms, uint64_t counter, const Id& floor) {
    ORDO_ASSERT(ms <= max_ms_ && counter <= counter_max_);
    std::lock_guard<std::mutex> lock(mu_);
    if (!has_position_ || ms > ms_ || (ms == ms_ && counter > counter_)) {
      ms_ = ms;
      counter_ = counter;
      has_position_ = true;
    }
    if (floor > last_) last_ = floor;
  }

  // The high-water mark: the greater of the last ID next() returned and the
  // greatest floor given to observe(); Id{} if neither happened.
  Id last() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

  // The largest counter value, as given to the constructor.
  uint64_t counter_max() const { return counter_max_; }

 private:
  const uint64_t max_ms_;
  const uint64_t counter_max_;

  mutable std::mutex mu_;
  // Guarded by mu_.
  bool has_position_ = false;  // ms_/counter_ hold an issued ID or a floor.
  uint64_t ms_ = 0;
  uint64_t counter_ = 0;
  Id last_{};
};

}  // namespace ordo
