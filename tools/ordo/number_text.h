// Reading unsigned numbers from the command line: decimal digits only (no
// sign, no spaces), and the value must fit in the type.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <type_traits>

namespace ordo::tool {

// The value of `text`, or nullopt when it is empty, holds anything but the
// digits 0-9, or does not fit in T.
template <typename T>
std::optional<T> parse_unsigned(std::string_view text) {
  static_assert(std::is_unsigned_v<T>);
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace ordo::tool
