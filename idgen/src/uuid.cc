#include "ordo/uuid.h"

#include <algorithm>
#include <cstring>

#include "ordo/assert.h"
#include "ordo/hex.h"

namespace ordo {
namespace {

// Positions of the '-' separators in the canonical 8-4-4-4-12 form.
constexpr size_t kDashPositions[] = {8, 13, 18, 23};

bool is_dash_position(size_t i) {
  return std::find(std::begin(kDashPositions), std::end(kDashPositions), i) !=
         std::end(kDashPositions);
}

}  // namespace

Uuid Uuid::from_bytes(ByteView b) {
  // A caller's mistake; ORDO_DCHECK as the header promises: padded without assertions.
  ORDO_DCHECK(b.size() == kSize && "Uuid::from_bytes needs exactly 16 bytes");
  Uuid u;
  std::memcpy(u.bytes.data(), b.data(), std::min(b.size(), kSize));
  return u;
}

Result<Uuid> Uuid::parse(std::string_view text) {
  if (text.size() != kStringLength) {
    return Status::invalid_argument("uuid: expected 36 characters (8-4-4-4-12 hex), got " +
                                    std::to_string(text.size()));
  }
  Uuid u;
  size_t nibble = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (is_dash_position(i)) {
      if (c != '-') {
        return Status::invalid_argument("uuid: expected '-' at position " + std::to_string(i) +
                                        ", found " + describe_char(c));
      }
      continue;
    }
    int v = hex_digit_value(c);
    if (v < 0) {
      return Status::invalid_argument("uuid: non-hex character " + describe_char(c) +
                                      " at position " + std::to_string(i));
    }
    u.bytes[nibble / 2] |= static_cast<uint8_t>(nibble % 2 == 0 ? v << 4 : v);
    ++nibble;
  }
  return u;
}

std::string Uuid::to_string() const {
  std::string out;
  out.reserve(kStringLength);
  for (size_t i = 0; i < kSize; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += hex_digit(bytes[i] >> 4);
    out += hex_digit(bytes[i]);
  }
  return out;
}

uint64_t Uuid::unix_ms() const {
  uint64_t ms = 0;
  for (size_t i = 0; i < 6; ++i) ms = (ms << 8) | bytes[i];
  return ms;
}

int Uuid::variant() const {
  uint8_t b = bytes[8];
  if ((b & 0x80) == 0) return 0;
  if ((b & 0x40) == 0) return 2;
  if ((b & 0x20) == 0) return 6;
  return 7;
}

bool Uuid::is_nil() const {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

}  // namespace ordo
