// Columns of bytes for the bulk writes (Txn.put_columns, Txn.put_arrow,
// Txn.get_many): row i of a column is data[offsets[i]:offsets[i + 1]] (int32
// or int64 offsets, Arrow's binary layouts), or width bytes at i * width.
// Built from Python buffers (held for the call) or from Arrow arrays; read
// with the GIL released.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::python {

namespace py = pybind11;

// A Py_buffer held for the call (released with the GIL held), with its
// format, of a C-contiguous exporter.
class HeldBuffer {
 public:
  // Raises TypeError naming `method` and `what` for str or an object without
  // a C-contiguous buffer.
  HeldBuffer(py::handle object, const char* method, const char* what);
  ~HeldBuffer();
  HeldBuffer(const HeldBuffer&) = delete;
  HeldBuffer& operator=(const HeldBuffer&) = delete;
  const Py_buffer& get() const { return b_; }
  const std::byte* bytes() const { return static_cast<const std::byte*>(b_.buf); }
  size_t len() const { return static_cast<size_t>(b_.len); }

 private:
  Py_buffer b_{};
};

// Whether a buffer's struct format holds Python objects ('O'): its memory
// is pointers, not the bytes of the values.
bool format_holds_objects(const char* format);

// Raises TypeError, naming `method`, `what` and the object's dtype (or
// format), unless the buffer holds plain bytes: format B, b, c or <n>s (or
// none). An object array (a pandas column of bytes objects) holds pointers.
void require_byte_format(const Py_buffer& b, py::handle object, const char* method,
                         const char* what);

// A column of row offsets: int32, uint32 or int64 (Arrow's), count entries.
struct Offsets {
  const std::byte* data = nullptr;
  size_t count = 0;
  int width = 8;
  bool is_signed = true;

  // Offset i, or -1 for a uint64 beyond int64 (out of range anyway).
  int64_t at(size_t i) const {
    if (width == 8) {
      int64_t v;
      std::memcpy(&v, data + i * 8, 8);
      return is_signed ? v : (v < 0 ? -1 : v);
    }
    if (is_signed) {
      int32_t v;
      std::memcpy(&v, data + i * 4, 4);
      return v;
    }
    uint32_t v;
    std::memcpy(&v, data + i * 4, 4);
    return v;
  }
};

// The offsets in a held buffer (one-dimensional int64, uint64, int32 or
// uint32); raises TypeError or ValueError naming `method` and `what`.
Offsets offsets_of(const HeldBuffer& held, const char* method, const char* what);

// One column: rows of `width` bytes, or delimited by `offsets` (offsets.count
// == rows + 1, the first at `first` within data).
struct ColumnNames;

class ByteColumn {
 public:
  static ByteColumn fixed(const std::byte* data, size_t rows, size_t width);
  static ByteColumn delimited(const std::byte* data, size_t data_bytes, const Offsets& offsets);

  size_t rows() const { return rows_; }
  bool delimited() const { return offsets_.data != nullptr; }
  // Checks every offset (in order, within the data) before any row is read:
  // InvalidArgument naming the first bad offset with `names`.
  Status check(const ColumnNames& names) const;
  // Row i. REQUIRES: check() passed, i < rows().
  ByteView row(size_t i) const {
    if (offsets_.data == nullptr) return ByteView(data_ + i * width_, width_);
    const int64_t from = offsets_.at(i), to = offsets_.at(i + 1);
    return ByteView(data_ + from, static_cast<size_t>(to - from));
  }

 private:
  const std::byte* data_ = nullptr;
  size_t data_bytes_ = 0;
  size_t rows_ = 0;
  size_t width_ = 0;
  Offsets offsets_;  // data null: fixed width
};

// How a column's arguments are named in errors: the method, the data
// ("keys"), its offsets ("key_offsets") and its width ("key_width").
struct ColumnNames {
  const char* method;
  const char* data;
  const char* offsets;
  const char* width;
};

// A column from Python objects: `data` a buffer and `offsets` one of n + 1
// offsets (or None); with no offsets, a 2-D (n, width) byte array, a 1-D
// array of <width>s items, or a flat buffer with `width` given. Holds the
// buffers in `held`. Raises TypeError / ValueError with `names`.
ByteColumn column_of(py::handle data, py::handle offsets, const py::object& width,
                     const ColumnNames& names, std::vector<std::unique_ptr<HeldBuffer>>& held);

}  // namespace ordo::python
