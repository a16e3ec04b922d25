// Hex digits as the text forms of ordo's IDs use them (Uuid::parse and
// Uuid::to_string), shared with the tools that show and read bytes in hex so
// that every reader accepts the same digits and words its errors alike.
//
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace ordo {

// The lowercase hex digit of `value`, 0..15 (only its low 4 bits are used).
inline char hex_digit(unsigned value) { return "0123456789abcdef"[value & 0xf]; }

// Each byte of `bytes` as two lowercase hex digits.
inline std::string hex_string(std::string_view bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(hex_digit(b >> 4));
    out.push_back(hex_digit(b));
  }
  return out;
}

// The value 0..15 of a hex digit, upper or lower case; -1 for any other char.
inline int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// An offending character as error messages show it: printable ASCII quoted
// ("'g'"), any other byte as "byte 0x" and two lowercase hex digits.
inline std::string describe_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  return std::string("byte 0x") + hex_digit(u >> 4) + hex_digit(u);
}

}  // namespace ordo
