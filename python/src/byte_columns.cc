#include "byte_columns.h"

#include <string>
#include <utility>

#include "ordo/assert.h"

namespace ordo::python {
namespace {

std::string format_of(const Py_buffer& b) { return b.format == nullptr ? "B" : b.format; }

// The format character of a one-item format, without its byte-order
// prefix; '?' for anything longer.
char format_char(const Py_buffer& b) {
  const char* f = b.format == nullptr ? "B" : b.format;
  while (*f == '@' || *f == '=' || *f == '<' || *f == '>' || *f == '!') ++f;
  return f[0] != '\0' && f[1] == '\0' ? f[0] : '?';
}

// Whether the format is that of raw bytes: B, b, c, or s with a count.
bool is_byte_format(const Py_buffer& b) {
  if (b.format == nullptr) return true;
  const char* f = b.format;
  while (*f == '@' || *f == '=' || *f == '<' || *f == '>' || *f == '!') ++f;
  if ((f[0] == 'B' || f[0] == 'b' || f[0] == 'c') && f[1] == '\0') return true;
  while (*f >= '0' && *f <= '9') ++f;
  return f[0] == 's' && f[1] == '\0';
}

// How an object's item type reads in an error: numpy's dtype, else the format.
std::string type_name(const Py_buffer& b, py::handle object) {
  py::object dtype = py::getattr(object, "dtype", py::none());
  if (!dtype.is_none()) return "dtype " + py::str(dtype).cast<std::string>();
  return "format '" + format_of(b) + "'";
}

}  // namespace

HeldBuffer::HeldBuffer(py::handle object, const char* method, const char* what) {
  if (PyUnicode_Check(object.ptr())) {
    throw py::type_error(std::string(method) + ": " + what + " must be a buffer, not str");
  }
  if (PyObject_GetBuffer(object.ptr(), &b_, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
    PyErr_Clear();
    b_.obj = nullptr;
    throw py::type_error(std::string(method) + ": " + what +
                         " must be a C-contiguous buffer, not " + Py_TYPE(object.ptr())->tp_name);
  }
}

HeldBuffer::~HeldBuffer() {
  if (b_.obj != nullptr) PyBuffer_Release(&b_);
}

bool format_holds_objects(const char* format) {
  if (format == nullptr) return false;
  for (const char* f = format; *f != '\0'; ++f) {
    if (*f == ':') {  // a field name of a structure: skipped
      for (++f; *f != '\0' && *f != ':'; ++f) {
      }
      if (*f == '\0') break;
    } else if (*f == 'O') {
      return true;
    }
  }
  return false;
}

void require_byte_format(const Py_buffer& b, py::handle object, const char* method,
                         const char* what) {
  if (is_byte_format(b)) return;
  std::string message = std::string(method) + ": " + what + " has " + type_name(b, object);
  if (format_holds_objects(b.format)) {
    message +=
        ": its memory holds pointers to Python objects, not their bytes (a column of bytes "
        "objects goes in through Txn.from_pandas, or b''.join(column) with offsets)";
  } else {
    message += ": it must hold bytes (uint8, int8 or S<n>; view other arrays as uint8)";
  }
  throw py::type_error(message);
}

Offsets offsets_of(const HeldBuffer& held, const char* method, const char* what) {
  const Py_buffer& b = held.get();
  const char f = format_char(b);
  Offsets o;
  o.data = held.bytes();
  if (b.ndim != 1) {
    throw py::value_error(std::string(method) + ": " + what + " must be one-dimensional");
  }
  if ((f == 'q' || f == 'l') && b.itemsize == 8) {
    o.width = 8;
  } else if ((f == 'Q' || f == 'L') && b.itemsize == 8) {
    o.width = 8;
    o.is_signed = false;
  } else if ((f == 'i' || f == 'l') && b.itemsize == 4) {
    o.width = 4;
  } else if ((f == 'I' || f == 'L') && b.itemsize == 4) {
    o.width = 4;
    o.is_signed = false;
  } else {
    throw py::type_error(std::string(method) + ": " + what +
                         " must hold int64, int32 or uint32 (format '" + format_of(b) + "')");
  }
  o.count = static_cast<size_t>(b.shape[0]);
  return o;
}

ByteColumn ByteColumn::fixed(const std::byte* data, size_t rows, size_t width) {
  ByteColumn c;
  c.data_ = data;
  c.rows_ = rows;
  c.width_ = width;
  c.data_bytes_ = rows * width;
  return c;
}

ByteColumn ByteColumn::delimited(const std::byte* data, size_t data_bytes, const Offsets& offsets) {
  ORDO_ASSERT(offsets.count >= 1 && offsets.data != nullptr);  // rows + 1 of them
  ByteColumn c;
  c.data_ = data;
  c.data_bytes_ = data_bytes;
  c.rows_ = offsets.count - 1;
  c.offsets_ = offsets;
  return c;
}

Status ByteColumn::check(const ColumnNames& names) const {
  if (offsets_.data == nullptr) return Status::ok();
  const int64_t limit = static_cast<int64_t>(data_bytes_);
  int64_t before = 0;
  for (size_t j = 0; j <= rows_; ++j) {
    const int64_t at = offsets_.at(j);
    if (at < before || at > limit) {
      return Status::invalid_argument(std::string(names.method) + ": " + names.offsets + "[" +
                                      std::to_string(j) + "] = " + std::to_string(at) +
                                      " is out of order or past the " + names.data + "' " +
                                      std::to_string(limit) + " bytes");
    }
    before = at;
  }
  return Status::ok();
}

ByteColumn column_of(py::handle data, py::handle offsets, const py::object& width,
                     const ColumnNames& names, std::vector<std::unique_ptr<HeldBuffer>>& held) {
  const std::string method = names.method;
  held.push_back(std::make_unique<HeldBuffer>(data, names.method, names.data));
  const HeldBuffer& d = *held.back();
  const Py_buffer& b = d.get();
  require_byte_format(b, data, names.method, names.data);
  if (!offsets.is_none()) {
    if (!width.is_none()) {
      throw py::value_error(method + ": give " + names.offsets + " or " + names.width +
                            ", not both");
    }
    held.push_back(std::make_unique<HeldBuffer>(offsets, names.method, names.offsets));
    Offsets o = offsets_of(*held.back(), names.method, names.offsets);
    if (o.count == 0) throw py::value_error(method + ": " + names.offsets + " is empty");
    return ByteColumn::delimited(d.bytes(), d.len(), o);
  }
  size_t w = 0, rows = 0;
  if (b.ndim == 2 && b.itemsize == 1) {
    rows = static_cast<size_t>(b.shape[0]);
    w = static_cast<size_t>(b.shape[1]);
  } else if (b.ndim == 1 && b.itemsize > 1) {
    rows = static_cast<size_t>(b.shape[0]);
    w = static_cast<size_t>(b.itemsize);
  } else if (b.ndim <= 1 && b.itemsize == 1) {
    if (width.is_none()) {
      throw py::value_error(method + ": " + names.width + " (or " + names.offsets +
                            ") is needed for a one-dimensional byte buffer of " + names.data);
    }
    w = width.cast<size_t>();
    if (w == 0 || d.len() % w != 0) {
      throw py::value_error(method + ": " + names.data + " hold " + std::to_string(d.len()) +
                            " bytes, not a multiple of " + names.width + " " + std::to_string(w));
    }
    rows = d.len() / w;
  } else {
    throw py::value_error(method + ": " + names.data +
                          " must be a 2-D uint8 array, an array of S<n> or a byte buffer");
  }
  if (!width.is_none() && width.cast<size_t>() != w) {
    throw py::value_error(method + ": " + names.width + " " + std::to_string(width.cast<size_t>()) +
                          " differs from the " + names.data + "' width " + std::to_string(w));
  }
  return ByteColumn::fixed(d.bytes(), rows, w);
}

}  // namespace ordo::python
