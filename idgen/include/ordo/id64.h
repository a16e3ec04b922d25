// Id64: a time-ordered 64-bit ID with a node number, for keys that must be
// small or for several writers that mint IDs without coordination (each with
// its own node number).
//
// Layout (bit 63 = most significant):
//   bit  63       0 (so the value is also a non-negative int64_t)
//   bits 62..22   41 bits: milliseconds since the ordo epoch
//                 2020-01-01T00:00:00Z (kId64EpochMs), good until 2089
//   bits 21..12   10 bits: node number, 0..1023
//   bits 11..0    12 bits: sequence within the millisecond, 0..4095
//
// Numeric order is time order; to_big_endian() bytes compare (memcmp) in the
// same order, so they make right-appending B+-tree keys.
#pragma once

#include <array>
#include <compare>
#include <cstdint>

#include "ordo/byte_view.h"
#include "ordo/clock.h"
#include "ordo/monotonic_counter.h"

namespace ordo {

// The ordo epoch in Unix milliseconds: 2020-01-01T00:00:00Z.
inline constexpr uint64_t kId64EpochMs = 1577836800000ULL;

// Thread-safety: a value type; distinct objects may be used from distinct
// threads freely, and const members may be called concurrently.
struct Id64 {
  static constexpr int kTimeBits = 41;
  static constexpr int kNodeBits = 10;
  static constexpr int kSequenceBits = 12;
  static constexpr uint32_t kMaxNode = (1u << kNodeBits) - 1;          // 1023
  static constexpr uint32_t kMaxSequence = (1u << kSequenceBits) - 1;  // 4095
  // The last representable time, in ms since kId64EpochMs.
  static constexpr uint64_t kMaxRelativeMs = (uint64_t{1} << kTimeBits) - 1;

  uint64_t value = 0;

  // The time field in Unix milliseconds (the stored ms plus kId64EpochMs).
  uint64_t unix_ms() const {
    return ((value >> (kNodeBits + kSequenceBits)) & kMaxRelativeMs) + kId64EpochMs;
  }
  // The node number, 0..1023.
  uint32_t node() const { return static_cast<uint32_t>(value >> kSequenceBits) & kMaxNode; }
  // The sequence within the millisecond, 0..4095.
  uint32_t sequence() const { return static_cast<uint32_t>(value) & kMaxSequence; }

  // The 8 bytes, most significant first: memcmp order equals numeric order.
  std::array<uint8_t, 8> to_big_endian() const;
  // The inverse of to_big_endian(). REQUIRES: b.size() == 8 (asserted); in
  // builds without assertions a shorter view is zero-padded on the right and
  // a longer one truncated to 8 bytes.
  static Id64 from_big_endian(ByteView b);

  auto operator<=>(const Id64&) const = default;
  bool operator==(const Id64&) const = default;
};

// Mints strictly increasing Id64 values for one node number.
// Rules (MonotonicCounter, as UuidV7Generator: RFC 9562 section 6.2 Method 1
// applied to a 12-bit counter): the sequence starts at 0 on each new
// millisecond and increments within it; when it would pass 4095 the time
// moves to the next millisecond (last ms + 1) and the sequence restarts at 0,
// never wrapping; if the clock reads earlier than the last millisecond used,
// the last millisecond is kept and the sequence increments. A clock before the ordo epoch reads as
// relative ms 0; after 2089 (kMaxRelativeMs) as kMaxRelativeMs.
class Id64Generator {
 public:
  // `node` is this writer's node number, 0..1023; a larger value is a
  // programming error: asserted, and clamped to 1023 in builds without
  // assertions. `clock` (Unix ms) must outlive the generator.
  explicit Id64Generator(uint32_t node, Clock& clock = system_clock());

  Id64Generator(const Id64Generator&) = delete;
  Id64Generator& operator=(const Id64Generator&) = delete;

  // A new ID, strictly greater than every ID this generator returned before
  // and than every floor given to observe(), whichever thread asked. Never
  // fails. REQUIRES: the 41-bit time space (year 2089) is not used up; if it
  // is, asserts, and without assertions returns last().
  // Thread-safety: safe from any number of threads (a mutex).
  Id64 next();

  // Makes every later next() return an ID strictly greater than `floor`, the
  // persisted high-water mark after a reopen (even one minted by another
  // node). A floor below what was already issued changes nothing.
  // Thread-safety: safe from any thread, concurrently with next().
  void observe(Id64 floor);

  // The high-water mark: the greater of the last ID next() returned and the
  // greatest floor given to observe(); Id64{0} if neither happened.
  // Thread-safety: safe from any thread.
  Id64 last() const;

  // The node number in use (after clamping), 0..1023.
  uint32_t node() const { return node_; }

 private:
  Id64 encode(uint64_t rel_ms, uint64_t sequence) const;

  Clock& clock_;
  const uint32_t node_;
  // Milliseconds since kId64EpochMs, and the sequence.
  MonotonicCounter<Id64> position_;
};

}  // namespace ordo
