#include "byte_format.h"

#include <cstdio>

#include "ordo/hex.h"
#include "ordo/uuid.h"

namespace ordo::tool {
namespace {

bool printable(unsigned char c) { return c >= 0x20 && c < 0x7f && c != '\\'; }

}  // namespace

std::optional<ByteFormat> byte_format_from_name(std::string_view name) {
  if (name == "print") return ByteFormat::kPrint;
  if (name == "hex") return ByteFormat::kHex;
  if (name == "uuid") return ByteFormat::kUuid;
  return std::nullopt;
}

const char* byte_format_name(ByteFormat format) {
  switch (format) {
    case ByteFormat::kPrint:
      return "print";
    case ByteFormat::kHex:
      return "hex";
    case ByteFormat::kUuid:
      return "uuid";
  }
  return "?";
}

void append_print(ByteView bytes, std::string& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  for (size_t i = 0; i < bytes.size(); ++i) {
    const unsigned char c = p[i];
    if (printable(c)) {
      out += static_cast<char>(c);
    } else {
      out += '\\';
      out += hex_digit(c >> 4);
      out += hex_digit(c);
    }
  }
}

void append_hex(ByteView bytes, std::string& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t at = out.size();
  out.resize(at + 2 * bytes.size());
  char* o = out.data() + at;
  for (size_t i = 0; i < bytes.size(); ++i) {
    *o++ = hex_digit(p[i] >> 4);
    *o++ = hex_digit(p[i]);
  }
}

std::string to_print(ByteView bytes) {
  std::string out;
  append_print(bytes, out);
  return out;
}

std::string to_hex(ByteView bytes) {
  std::string out;
  append_hex(bytes, out);
  return out;
}

std::string to_uuid(ByteView bytes) {
  if (bytes.size() < Uuid::kSize) return "0x" + to_hex(bytes);
  std::string out = Uuid::from_bytes(ByteView(bytes.data(), Uuid::kSize)).to_string();
  if (bytes.size() > Uuid::kSize) {
    out += '/';
    append_print(ByteView(bytes.data() + Uuid::kSize, bytes.size() - Uuid::kSize), out);
  }
  return out;
}

std::string format_bytes(ByteView bytes, ByteFormat format) {
  switch (format) {
    case ByteFormat::kPrint:
      return to_print(bytes);
    case ByteFormat::kHex:
      return to_hex(bytes);
    case ByteFormat::kUuid:
      return to_uuid(bytes);
  }
  return {};
}

Result<std::string> from_print(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '\\') {
      out += '\\';
      ++i;
      continue;
    }
    if (i + 2 >= text.size() || hex_digit_value(text[i + 1]) < 0 ||
        hex_digit_value(text[i + 2]) < 0) {
      return Status::invalid_argument("bad escape at offset " + std::to_string(i) +
                                      ": '\\' must be followed by two hex digits or '\\'");
    }
    out += static_cast<char>(hex_digit_value(text[i + 1]) * 16 + hex_digit_value(text[i + 2]));
    i += 2;
  }
  return out;
}

Result<std::string> from_hex(std::string_view text) {
  if (text.size() % 2 != 0) {
    return Status::invalid_argument("odd number of hex digits (" + std::to_string(text.size()) +
                                    ")");
  }
  std::string out(text.size() / 2, '\0');
  for (size_t i = 0; i < text.size(); i += 2) {
    const int hi = hex_digit_value(text[i]);
    const int lo = hex_digit_value(text[i + 1]);
    if (hi < 0 || lo < 0) {
      const size_t bad = hi < 0 ? i : i + 1;
      return Status::invalid_argument("not a hex digit at offset " + std::to_string(bad) + ": " +
                                      describe_char(text[bad]));
    }
    out[i / 2] = static_cast<char>(hi * 16 + lo);
  }
  return out;
}

Result<std::string> from_uuid(std::string_view text) {
  if (text.substr(0, 2) == "0x") return from_hex(text.substr(2));
  Result<Uuid> uuid = Uuid::parse(text.substr(0, Uuid::kStringLength));
  if (!uuid.is_ok()) {
    return Status::invalid_argument(
        uuid.status().message() +
        " (a key in uuid format is xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, optionally followed by"
        " /REST, or 0xHEX)");
  }
  std::string out = uuid->view().str();
  if (text.size() > Uuid::kStringLength) {
    if (text[Uuid::kStringLength] != '/') {
      return Status::invalid_argument("expected '/' after the UUID");
    }
    ORDO_ASSIGN_OR_RETURN(std::string rest, from_print(text.substr(Uuid::kStringLength + 1)));
    out += rest;
  }
  return out;
}

Result<std::string> parse_bytes(std::string_view text, ByteFormat format) {
  switch (format) {
    case ByteFormat::kPrint:
      return from_print(text);
    case ByteFormat::kHex:
      return from_hex(text);
    case ByteFormat::kUuid:
      return from_uuid(text);
  }
  return Status::invalid_argument("unknown format");
}

std::string safe_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  auto escape = [&](unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  };
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) {
        escape(c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // A UTF-8 sequence: lead byte, then its continuation bytes, no overlong
    // forms, no surrogates, at most U+10FFFF; C1 controls are escaped.
    size_t len = 0;
    uint32_t cp = 0;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      cp = c & 0x07;
    }
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) ok = false;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    if (ok) {
      ok = !(len == 3 && cp < 0x800) && !(len == 4 && (cp < 0x10000 || cp > 0x10ffff)) &&
           !(cp >= 0xd800 && cp <= 0xdfff) && !(cp >= 0x80 && cp < 0xa0);
    }
    if (!ok) {
      escape(c);
      ++i;
      continue;
    }
    out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

namespace {

// The shown part of `bytes` and, when some are left out, their count.
template <typename Show>
std::string clip(std::string_view bytes, size_t shown, Show show) {
  if (bytes.size() <= shown) return show(bytes);
  return show(bytes.substr(0, shown)) + "... (" + std::to_string(bytes.size()) + " bytes)";
}

}  // namespace

std::string clipped_text(std::string_view text, size_t shown) {
  return clip(text, shown, [](std::string_view part) { return safe_text(part); });
}

std::string clipped_bytes(ByteView bytes, ByteFormat format, size_t shown) {
  return clip(bytes.view(), shown,
              [format](std::string_view part) { return format_bytes(part, format); });
}

std::string tree_label(const std::optional<std::string>& name) {
  return name ? "tree '" + clipped_bytes(*name, ByteFormat::kPrint) + "'" : "the default tree";
}

}  // namespace ordo::tool
