// How the ordo tool shows bytes (keys, values, tree names) and reads them
// back from the command line: one encoder and one decoder per format, shared
// by every command and by the dump format.
//
//   print  printable ASCII (0x20..0x7e) as it is, except '\', and every other
//          byte as '\' and two lowercase hex digits ("a\00b", "back\5cslash");
//          the text format of LMDB's `mdb_dump -p`. Reading also accepts "\\".
//   hex    two lowercase hex digits per byte ("61006200"); reading accepts
//          upper case too.
//   uuid   a 16-byte key as an RFC 9562 UUID ("0190b3c4-...-...", Uuid's
//          text form); a longer one as the UUID of its first 16 bytes, '/',
//          and the rest in print form; a shorter one as "0x" and hex. Reading
//          accepts the same (Uuid::parse: either case).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::tool {

enum class ByteFormat { kPrint, kHex, kUuid };

// "print", "hex" or "uuid"; nullopt otherwise.
std::optional<ByteFormat> byte_format_from_name(std::string_view name);
const char* byte_format_name(ByteFormat format);

std::string to_print(ByteView bytes);
std::string to_hex(ByteView bytes);
std::string to_uuid(ByteView bytes);
std::string format_bytes(ByteView bytes, ByteFormat format);

// Appends the encoding to `out` (no allocation per call in loops).
void append_print(ByteView bytes, std::string& out);
void append_hex(ByteView bytes, std::string& out);

// Decoders: InvalidArgument naming the offending character and its offset.
Result<std::string> from_print(std::string_view text);
Result<std::string> from_hex(std::string_view text);
Result<std::string> from_uuid(std::string_view text);
Result<std::string> parse_bytes(std::string_view text, ByteFormat format);

// Text safe for a terminal and for messages: valid UTF-8 without control
// characters passes unchanged; any other byte becomes "\xNN".
std::string safe_text(std::string_view text);

// Input quoted in a message (a key, a tree name, a line of a file), bounded:
// safe_text of at most `shown` bytes; when `text` is longer, followed by
// "... (N bytes)" with its whole length.
inline constexpr size_t kShownBytes = 64;
std::string clipped_text(std::string_view text, size_t shown = kShownBytes);
// The same for bytes shown in `format` (a key in a message): the first
// `shown` bytes encoded, then "... (N bytes)" when longer.
std::string clipped_bytes(ByteView bytes, ByteFormat format, size_t shown = kShownBytes);

// How a tree is named in messages: "the default tree" or "tree 'NAME'"
// (NAME in print form, clipped).
std::string tree_label(const std::optional<std::string>& name);

}  // namespace ordo::tool
