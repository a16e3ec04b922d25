#include "escape.h"

#include "ordo/hex.h"

namespace ordo::node {

std::string escape_bytes(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    switch (c) {
      case '\\':
        out += "\\\\";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      default:
        break;
    }
    if (b >= 0x20 && b <= 0x7e) {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(hex_digit(b >> 4));
      out.push_back(hex_digit(b));
    }
  }
  return out;
}

std::string hex_bytes(std::string_view bytes) { return hex_string(bytes); }

}  // namespace ordo::node
