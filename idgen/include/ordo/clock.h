// Clock: the time source of the ID generators, replaceable so that a program
// can freeze time, step it back or jump it forward (ManualClock).
//
// All times are milliseconds since the Unix epoch (1970-01-01T00:00:00Z, UTC,
// leap seconds not counted), as unsigned 64-bit integers.
#pragma once

#include <atomic>
#include <cstdint>

namespace ordo {

// A source of wall-clock time in Unix milliseconds.
// Thread-safety: implementations must allow now_ms() from any number of
// threads at once (the generators call it from every thread that mints IDs).
class Clock {
 public:
  virtual ~Clock() = default;
  // Current time in milliseconds since the Unix epoch. May go backwards (NTP
  // steps, manual changes); the generators tolerate that.
  virtual uint64_t now_ms() = 0;
};

// The operating system's wall clock: clock_gettime(CLOCK_REALTIME), truncated
// to whole milliseconds. A time before 1970 reads as 0.
// Thread-safety: stateless; safe from any thread.
class SystemClock final : public Clock {
 public:
  uint64_t now_ms() override;
};

// The process-wide SystemClock. Never destroyed (safe to use during static
// destruction); the default clock of UuidV7Generator and Id64Generator.
// Thread-safety: safe from any thread.
Clock& system_clock();

// A clock that only moves when told to: the time of IDs set by the program
// (replays, simulations, reproducible imports), or stepped back on purpose.
// Thread-safety: all members are atomic and may be called from any thread.
class ManualClock final : public Clock {
 public:
  // Starts at `start_ms` (Unix milliseconds).
  explicit ManualClock(uint64_t start_ms) : ms_(start_ms) {}
  // Sets the time to `ms` (Unix milliseconds); may move backwards.
  void set_ms(uint64_t ms) { ms_.store(ms, std::memory_order_relaxed); }
  // Moves the time forward by `delta_ms` milliseconds.
  void advance_ms(uint64_t delta_ms) { ms_.fetch_add(delta_ms, std::memory_order_relaxed); }
  // The time last set, in Unix milliseconds.
  uint64_t now_ms() override { return ms_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> ms_;
};

}  // namespace ordo
