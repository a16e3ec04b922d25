// How ordo-node's client prints keys and values: one entry per line, so
// bytes that would break a line or a column are escaped.
#pragma once

#include <string>
#include <string_view>

namespace ordo::node {

// C-style escaping: printable ASCII (0x20..0x7e) other than the backslash
// stays as it is; \ -> \\, tab -> \t, newline -> \n, carriage return ->
// \r, every other byte (control bytes, 0x7f, bytes >= 0x80 such as UTF-8)
// -> \xHH (two lower-case hex digits). The result is printable ASCII.
std::string escape_bytes(std::string_view bytes);

// Two lower-case hex digits per byte.
std::string hex_bytes(std::string_view bytes);

}  // namespace ordo::node
