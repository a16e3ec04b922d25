// Uuid: a 128-bit universally unique identifier (RFC 9562), stored as its 16
// bytes in network (big-endian) order, as ordo uses it for keys.
//
// Comparison is byte order (memcmp order), so for UUIDv7 values (RFC 9562
// section 5.7) the order of Uuid values is their time order, and keys made
// from view() append at the right edge of a B+-tree.
//
// Thread-safety: a value type; distinct objects may be used from distinct
// threads freely, and const members may be called concurrently.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo {

struct Uuid {
  // Size of a UUID in bytes.
  static constexpr size_t kSize = 16;
  // Length of the canonical text form "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
  static constexpr size_t kStringLength = 36;

  // The 16 bytes, most significant first (RFC 9562 section 4). All zero is
  // the Nil UUID (RFC 9562 section 5.9).
  std::array<uint8_t, kSize> bytes{};

  // Copies a UUID from exactly 16 bytes (as returned by view()).
  // REQUIRES: b.size() == 16 (asserted). In builds without assertions a
  // shorter view is zero-padded and a longer one truncated to 16 bytes.
  static Uuid from_bytes(ByteView b);

  // Parses the canonical text form of RFC 9562 section 4: 32 hex digits in
  // groups 8-4-4-4-12 separated by '-', 36 characters, upper or lower case
  // (both accepted). No braces, "urn:uuid:" prefix or surrounding spaces.
  // Errors: Status::invalid_argument naming the problem: wrong length, a
  // missing '-' (with its position) or a non-hex digit (with its position).
  static Result<Uuid> parse(std::string_view text);

  // The canonical text form, lowercase, 36 characters (RFC 9562 section 4).
  std::string to_string() const;

  // The 16 bytes as a view into this object; valid while this Uuid lives.
  ByteView view() const { return ByteView(bytes.data(), bytes.size()); }

  // The unix_ts_ms field: the top 48 bits, milliseconds since the Unix epoch
  // (meaningful for version 7, RFC 9562 section 5.7).
  uint64_t unix_ms() const;

  // The version field: the top 4 bits of byte 6 (7 for UUIDv7), 0..15.
  int version() const { return bytes[6] >> 4; }

  // The variant field from the top bits of byte 8 (RFC 9562 section 4.1,
  // table 1): 0 for 0b0xxx (NCS), 2 for 0b10xx (the RFC 9562 variant),
  // 6 for 0b110x (Microsoft), 7 for 0b111x (reserved).
  int variant() const;

  // True for the Nil UUID (all 16 bytes zero).
  bool is_nil() const;

  // Byte order (lexicographic over `bytes`), equal to time order for UUIDv7.
  auto operator<=>(const Uuid&) const = default;
  bool operator==(const Uuid&) const = default;
};

}  // namespace ordo
