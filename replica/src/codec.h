// Byte helpers shared by the replica's wire and disk formats: varints and
// fixed-width big-endian integers. Readers never read past their input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ordo::replica::codec {

inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline size_t varint_bytes(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

inline void put_u64_be(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
}

inline void put_u32_be(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
}

// A cursor over input bytes; every get_* returns false (and consumes
// nothing usable) when the input is too short or malformed.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  size_t remaining() const { return in_.size() - pos_; }
  bool done() const { return pos_ == in_.size(); }

  bool get_u8(uint8_t& v) {
    if (remaining() < 1) return false;
    v = static_cast<uint8_t>(in_[pos_++]);
    return true;
  }
  // At most 10 bytes; the tenth may only hold the top bit. Only the shortest
  // form is accepted (no trailing zero byte), so each value has one encoding.
  bool get_varint(uint64_t& v) {
    v = 0;
    for (int i = 0; i < 10; ++i) {
      uint8_t b = 0;
      if (!get_u8(b)) return false;
      if (i == 9 && b > 1) return false;
      if (i > 0 && b == 0) return false;
      v |= uint64_t{b & 0x7fu} << (7 * i);
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool get_u64_be(uint64_t& v) {
    if (remaining() < 8) return false;
    v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(in_[pos_++]);
    return true;
  }
  bool get_u32_be(uint32_t& v) {
    if (remaining() < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(in_[pos_++]);
    return true;
  }
  bool get_bytes(size_t n, std::string& out) {
    if (remaining() < n) return false;
    out.assign(in_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  // A varint length, then that many bytes.
  bool get_prefixed(std::string& out) {
    uint64_t n = 0;
    if (!get_varint(n) || n > remaining()) return false;
    return get_bytes(static_cast<size_t>(n), out);
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

inline uint64_t load_u64_be(std::string_view b) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8 && i < b.size(); ++i) v = (v << 8) | static_cast<uint8_t>(b[i]);
  return v;
}

}  // namespace ordo::replica::codec
