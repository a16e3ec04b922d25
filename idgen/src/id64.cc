#include "ordo/id64.h"

#include <algorithm>

#include "ordo/assert.h"

namespace ordo {
namespace {

uint32_t clamp_node(uint32_t node) {
  // A caller's mistake; ORDO_DCHECK as the header promises: clamped without assertions.
  ORDO_DCHECK(node <= Id64::kMaxNode && "Id64Generator: node must be 0..1023");
  return std::min(node, Id64::kMaxNode);
}

}  // namespace

std::array<uint8_t, 8> Id64::to_big_endian() const {
  std::array<uint8_t, 8> out;
  uint64_t v = value;
  for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<uint8_t>(v);
  return out;
}

Id64 Id64::from_big_endian(ByteView b) {
  // A caller's mistake; ORDO_DCHECK as the header promises: padded without assertions.
  ORDO_DCHECK(b.size() == 8 && "Id64::from_big_endian needs exactly 8 bytes");
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) {
    v = (v << 8) | (i < b.size() ? std::to_integer<uint8_t>(b[i]) : 0);
  }
  return Id64{v};
}

Id64Generator::Id64Generator(uint32_t node, Clock& clock)
    : clock_(clock), node_(clamp_node(node)), position_(Id64::kMaxRelativeMs, Id64::kMaxSequence) {}

Id64 Id64Generator::encode(uint64_t rel_ms, uint64_t sequence) const {
  return Id64{(rel_ms << (Id64::kNodeBits + Id64::kSequenceBits)) |
              (uint64_t{node_} << Id64::kSequenceBits) | sequence};
}

Id64 Id64Generator::next() {
  // Read outside the lock: a stale reading only looks like a clock step back.
  const uint64_t unix_ms = clock_.now_ms();
  const uint64_t now =
      unix_ms < kId64EpochMs ? 0 : std::min(unix_ms - kId64EpochMs, Id64::kMaxRelativeMs);
  return position_.next(
      now, [] { return uint64_t{0}; },
      [this](uint64_t rel_ms, uint64_t sequence) { return encode(rel_ms, sequence); });
}

void Id64Generator::observe(Id64 floor) {
  // Compare on the whole value: a floor from another node orders by node
  // before sequence, so place our position just at or above it.
  uint64_t floor_ms = (floor.value >> (Id64::kNodeBits + Id64::kSequenceBits));
  uint32_t floor_seq;
  if (floor_ms > Id64::kMaxRelativeMs) {
    floor_ms = Id64::kMaxRelativeMs;  // Sign bit set: beyond the layout; saturate.
    floor_seq = Id64::kMaxSequence;
  } else if (floor.node() > node_) {
    floor_seq = Id64::kMaxSequence;  // Any ID of ours in that ms is below it.
  } else {
    floor_seq = floor.node() == node_ ? floor.sequence() : 0;
  }
  position_.observe(floor_ms, floor_seq, floor);
}

Id64 Id64Generator::last() const { return position_.last(); }

}  // namespace ordo
