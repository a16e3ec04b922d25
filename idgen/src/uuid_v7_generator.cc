#include "ordo/uuid_v7_generator.h"

#include <algorithm>
#include <cstdint>

#include "ordo/assert.h"
#include "random.h"

namespace ordo {
namespace {

constexpr uint64_t low_mask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

int clamp_counter_bits(int bits) {
  // A caller's mistake; ORDO_DCHECK as the header promises: clamped without assertions.
  ORDO_DCHECK(bits >= UuidV7Generator::kMinCounterBits &&
              bits <= UuidV7Generator::kMaxCounterBits &&
              "UuidV7Generator: counter_bits must be 12..42");
  return std::clamp(bits, UuidV7Generator::kMinCounterBits, UuidV7Generator::kMaxCounterBits);
}

void store_be64(uint8_t* out, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<uint8_t>(v);
}

uint64_t load_be64(const uint8_t* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | in[i];
  return v;
}

// rand_b holds 62 bits below the variant; the counter's low part comes first.
constexpr int kRandBBits = 62;
constexpr int kRandABits = 12;

}  // namespace

UuidV7Generator::UuidV7Generator(Clock& clock) : UuidV7Generator(clock, Options()) {}

UuidV7Generator::UuidV7Generator(Clock& clock, Options options)
    : clock_(clock),
      counter_bits_(clamp_counter_bits(options.counter_bits)),
      position_(kMaxUnixMs, low_mask(counter_bits_)),
      rng_(internal::xoshiro_seed(options.seed)) {}

// The layout of RFC 9562 section 5.7: unix_ts_ms (48 bits), ver (4), rand_a
// (12), var (2), rand_b (62). The counter of section 6.2 Method 1 fills rand_a
// and then the top of rand_b; random bits fill the rest.
Uuid UuidV7Generator::encode(uint64_t ms, uint64_t counter, uint64_t random) const {
  const int low_bits = counter_bits_ - kRandABits;  // counter bits in rand_b
  const int random_bits = kRandBBits - low_bits;
  uint64_t hi = (ms << 16) | (uint64_t{7} << 12) | (counter >> low_bits);
  uint64_t lo = (uint64_t{0b10} << 62) | ((counter & low_mask(low_bits)) << random_bits) |
                (random & low_mask(random_bits));
  Uuid id;
  store_be64(id.bytes.data(), hi);
  store_be64(id.bytes.data() + 8, lo);
  return id;
}

uint64_t UuidV7Generator::decode_counter(const Uuid& id) const {
  const int low_bits = counter_bits_ - kRandABits;
  uint64_t hi = load_be64(id.bytes.data()) & low_mask(kRandABits);
  uint64_t lo = load_be64(id.bytes.data() + 8);
  return (hi << low_bits) | ((lo >> (kRandBBits - low_bits)) & low_mask(low_bits));
}

Uuid UuidV7Generator::next() {
  // Read outside the lock: a stale reading only looks like a clock step back.
  const uint64_t now = std::min(clock_.now_ms(), kMaxUnixMs);
  return position_.next(
      now,
      // Lower half only: at least 2^(bits-1) increments before a borrow.
      [this] { return internal::xoshiro_next(rng_) & (position_.counter_max() >> 1); },
      [this](uint64_t ms, uint64_t counter) {
        return encode(ms, counter, internal::xoshiro_next(rng_));
      });
}

void UuidV7Generator::observe(const Uuid& floor) {
  if (floor.is_nil()) return;  // Every UUIDv7 is above Nil already.
  // A foreign layout can't be placed within its ms; pass the whole ms.
  const uint64_t floor_counter = floor.version() == 7 && floor.variant() == 2
                                     ? decode_counter(floor)
                                     : position_.counter_max();
  position_.observe(floor.unix_ms(), floor_counter, floor);
}

Uuid UuidV7Generator::last() const { return position_.last(); }

}  // namespace ordo
