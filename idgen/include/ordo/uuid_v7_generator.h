// UuidV7Generator: mints time-ordered 128-bit IDs, RFC 9562 section 5.7
// (UUID version 7), monotonic per RFC 9562 section 6.2 Method 1 ("Fixed
// Bit-Length Dedicated Counter").
//
// Layout (bit 0 = most significant bit of byte 0):
//   bits   0..47   unix_ts_ms: milliseconds since the Unix epoch
//   bits  48..51   version = 0b0111 (7)
//   bits  52..63   rand_a: the top 12 bits of the counter
//   bits  64..65   variant = 0b10
//   bits  66..127  rand_b: the remaining counter_bits - 12 counter bits, then
//                  random bits (xoshiro256** seeded per generator)
//
// Counter rules (MonotonicCounter): on a new millisecond the counter starts
// at a random value in the lower half of its range, leaving headroom (RFC 9562
// section 6.2); within a millisecond it increments by one. When it would
// overflow, the timestamp moves to the next millisecond (last ms + 1) and the
// counter restarts: it never wraps. If the clock reads earlier than the last
// millisecond used, the generator keeps the last millisecond and increments
// the counter, so IDs never go backwards.
#pragma once

#include <array>
#include <cstdint>

#include "ordo/clock.h"
#include "ordo/monotonic_counter.h"
#include "ordo/uuid.h"

namespace ordo {

class UuidV7Generator {
 public:
  struct Options {
    // Width of the monotonic counter in bits, 12..42 (kMinCounterBits..
    // kMaxCounterBits). More bits: more IDs per millisecond (2^(bits-1) at
    // least) and fewer random bits (74 - bits of them).
    int counter_bits = 42;
    // Seed of the random bits and counter starts; 0 = seed from
    // std::random_device. A fixed seed plus a ManualClock gives a
    // reproducible sequence.
    uint64_t seed = 0;
  };

  static constexpr int kMinCounterBits = 12;
  static constexpr int kMaxCounterBits = 42;
  // The last representable millisecond (48 bits: year 10889).
  static constexpr uint64_t kMaxUnixMs = (uint64_t{1} << 48) - 1;

  // Mints IDs from `clock` (Unix ms), which must outlive the generator.
  // counter_bits outside 12..42 is a programming error: asserted, and clamped
  // into range in builds without assertions. Clock times above kMaxUnixMs are
  // read as kMaxUnixMs.
  explicit UuidV7Generator(Clock& clock = system_clock());
  UuidV7Generator(Clock& clock, Options options);

  UuidV7Generator(const UuidV7Generator&) = delete;
  UuidV7Generator& operator=(const UuidV7Generator&) = delete;

  // A new UUIDv7, strictly greater as bytes than every ID this generator
  // returned before and than every floor given to observe(), whichever thread
  // asked. Never fails. REQUIRES: the 48-bit timestamp space is not used up
  // (the last ms of year 10889 with a full counter, reachable only through
  // observe()); if it is, asserts, and without assertions returns last().
  // Thread-safety: safe from any number of threads (a mutex).
  Uuid next();

  // Makes every later next() return an ID strictly greater than `floor`; used
  // to restore the persisted high-water mark after a reopen, so IDs keep
  // rising even if the clock was set back. A floor that is not a version 7,
  // variant 0b10 UUID makes next() move past its millisecond. A floor below
  // what was already issued changes nothing. Thread-safety: safe from any
  // thread, concurrently with next().
  void observe(const Uuid& floor);

  // The high-water mark: the greater of the last ID next() returned and the
  // greatest floor given to observe(); the Nil UUID if neither happened. This
  // is the value to persist. Thread-safety: safe from any thread.
  Uuid last() const;

  // The counter width in use (after clamping), in bits.
  int counter_bits() const { return counter_bits_; }

 private:
  Uuid encode(uint64_t ms, uint64_t counter, uint64_t random) const;
  uint64_t decode_counter(const Uuid& id) const;

  Clock& clock_;
  const int counter_bits_;
  MonotonicCounter<Uuid> position_;
  // Used only inside position_.next(), so guarded by its mutex.
  std::array<uint64_t, 4> rng_;
};

}  // namespace ordo
