#include "ordo/id64.h"

#include <algorithm>
#include <cassert>

namespace ordo {
namespace {

uint32_t clamp_node(uint32_t node) {
  assert(node <= Id64::kMaxNode && "Id64Generator: node must be 0..1023");
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
  assert(b.size() == 8 && "Id64::from_big_endian needs exactly 8 bytes");
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) {
    v = (v << 8) | (i < b.size() ? std::to_integer<uint8_t>(b[i]) : 0);
  }
  return Id64{v};
}

Id64Generator::Id64Generator(uint32_t node, Clock& clock)
    : clock_(clock), node_(clamp_node(node)) {}

Id64 Id64Generator::encode(uint64_t rel_ms, uint32_t sequence) const {
  return Id64{(rel_ms << (Id64::kNodeBits + Id64::kSequenceBits)) |
              (uint64_t{node_} << Id64::kSequenceBits) | sequence};
}

Id64 Id64Generator::next() {
  // Read outside the lock: a stale reading only looks like a clock step back.
  const uint64_t unix_ms = clock_.now_ms();
  const uint64_t now =
      unix_ms < kId64EpochMs ? 0 : std::min(unix_ms - kId64EpochMs, Id64::kMaxRelativeMs);
  std::lock_guard<std::mutex> lock(mu_);
  if (!has_state_ || now > rel_ms_) {
    rel_ms_ = now;
    sequence_ = 0;
  } else if (sequence_ < Id64::kMaxSequence) {
    ++sequence_;  // Same ms, or the clock is behind: keep rel_ms_, count on.
  } else if (rel_ms_ < Id64::kMaxRelativeMs) {
    ++rel_ms_;  // Sequence used up: borrow the next ms rather than wrap.
    sequence_ = 0;
  } else {
    assert(false && "Id64Generator: 41-bit time space exhausted");
    return last_;
  }
  has_state_ = true;
  last_ = encode(rel_ms_, sequence_);
  return last_;
}

void Id64Generator::observe(Id64 floor) {
  // Compare on the whole value: a floor from another node orders by node
  // before sequence, so place our state just at or above it.
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
  std::lock_guard<std::mutex> lock(mu_);
  if (!has_state_ || floor_ms > rel_ms_ || (floor_ms == rel_ms_ && floor_seq > sequence_)) {
    rel_ms_ = floor_ms;
    sequence_ = floor_seq;
    has_state_ = true;
  }
  if (floor > last_) last_ = floor;
}

Id64 Id64Generator::last() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

}  // namespace ordo
