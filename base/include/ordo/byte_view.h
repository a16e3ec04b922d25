// ByteView: a non-owning view of bytes, the type of every key and value that
// crosses the ordo API.
//
// A ByteView does not own its bytes. Views returned by ordo (a get, a cursor's
// key()/value()) point into the database mapping or a write txn's page and are
// valid only as long as the function returning them documents (typically until
// the txn ends or the next write in the same txn). Copy with str() to keep.
//
// Keys compare as unsigned bytes (memcmp order); a shorter key that is a
// prefix of a longer one sorts first.
//
// Thread-safety: a value type; safe to copy between threads (the bytes it
// points at follow the owner's rules).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace ordo {

class ByteView {
 public:
  constexpr ByteView() = default;
  ByteView(const void* data, size_t size_bytes)
      : data_(static_cast<const std::byte*>(data)), size_(size_bytes) {}
  ByteView(std::string_view s)  // NOLINT: implicit by design
      : data_(reinterpret_cast<const std::byte*>(s.data())), size_(s.size()) {}
  ByteView(const std::string& s) : ByteView(std::string_view(s)) {}  // NOLINT
  ByteView(const char* s) : ByteView(std::string_view(s)) {}         // NOLINT
  ByteView(std::span<const std::byte> s)                             // NOLINT
      : data_(s.data()), size_(s.size()) {}

  const std::byte* data() const { return data_; }
  const char* char_data() const { return reinterpret_cast<const char*>(data_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::byte operator[](size_t i) const { return data_[i]; }

  std::span<const std::byte> span() const { return {data_, size_}; }
  std::string_view view() const { return {char_data(), size_}; }
  std::string str() const { return std::string(view()); }

  // memcmp order; <0, 0, >0.
  int compare(ByteView other) const {
    const size_t n = size_ < other.size_ ? size_ : other.size_;
    size_t i = 0;
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    // Short keys (IDs, composite IDs) compare 8 bytes at a time inline: a
    // call to memcmp costs more than the comparison itself.
    if (n <= kInlineCompareBytes) {
      for (; i + 8 <= n; i += 8) {
        const uint64_t a = load_be64(data_ + i), b = load_be64(other.data_ + i);
        if (a != b) return a < b ? -1 : 1;
      }
      for (; i < n; ++i) {
        if (data_[i] != other.data_[i]) return data_[i] < other.data_[i] ? -1 : 1;
      }
      i = n;
    }
#endif
    const int c = i == n ? 0 : std::memcmp(data_, other.data_, n);
    if (c != 0) return c;
    return size_ < other.size_ ? -1 : (size_ > other.size_ ? 1 : 0);
  }
  friend bool operator==(ByteView a, ByteView b) { return a.compare(b) == 0; }
  friend std::strong_ordering operator<=>(ByteView a, ByteView b) { return a.compare(b) <=> 0; }

 private:
  static constexpr size_t kInlineCompareBytes = 32;
#if defined(__GNUC__)
  static uint64_t load_be64(const std::byte* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return __builtin_bswap64(v);
  }
#endif
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ordo
