// Bulk writes without a Python call per row: Txn.put_many (an iterable of
// pairs, converted in chunks with the GIL held, each chunk inserted with it
// released) and Txn.put_columns (columns in buffers, inserted whole with the
// GIL released).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bindings.h"
#include "bytes_arg.h"
#include "errors.h"
#include "native.h"
#include "ordo/assert.h"
#include "state.h"
#include "txn_parts.h"

namespace ordo::python {
namespace {

// Rows and bytes converted per chunk: big enough that releasing the GIL costs
// nothing per row, small enough to bound the references a chunk holds.
constexpr size_t kChunkRows = 4096;
constexpr size_t kChunkBytes = size_t{4} << 20;

// A Py_buffer held for the call (released with the GIL held).
class HeldBuffer {
 public:
  HeldBuffer(py::handle object, const char* what) {
    if (PyUnicode_Check(object.ptr())) {
      throw py::type_error(std::string(what) + " must be a buffer, not str");
    }
    if (PyObject_GetBuffer(object.ptr(), &b_, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      PyErr_Clear();
      b_.obj = nullptr;
      throw py::type_error(std::string(what) + " must be a C-contiguous buffer, not " +
                           Py_TYPE(object.ptr())->tp_name);
    }
  }
  ~HeldBuffer() {
    if (b_.obj != nullptr) PyBuffer_Release(&b_);
  }
  HeldBuffer(const HeldBuffer&) = delete;
  HeldBuffer& operator=(const HeldBuffer&) = delete;
  const Py_buffer& get() const { return b_; }
  const std::byte* bytes() const { return static_cast<const std::byte*>(b_.buf); }
  size_t len() const { return static_cast<size_t>(b_.len); }

 private:
  Py_buffer b_{};
};

// The format character of a buffer, without its byte-order prefix.
char format_char(const Py_buffer& b) {
  const char* f = b.format == nullptr ? "B" : b.format;
  while (*f == '@' || *f == '=' || *f == '<' || *f == '>' || *f == '!') ++f;
  return f[0] != '\0' && f[1] == '\0' ? f[0] : '?';
}

// Reads offset i of an int64, uint64, int32 or uint32 array.
struct Offsets {
  const std::byte* data = nullptr;
  size_t count = 0;
  int width = 8;
  bool is_signed = true;

  int64_t at(size_t i) const {
    if (width == 8) {
      int64_t v;
      std::memcpy(&v, data + i * 8, 8);
      return is_signed ? v : (v < 0 ? -1 : v);  // a uint64 past int64 is out of range
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

Offsets offsets_of(const HeldBuffer& held) {
  const Py_buffer& b = held.get();
  const char f = format_char(b);
  Offsets o;
  o.data = held.bytes();
  if (b.ndim != 1) throw py::value_error("put_columns: value_offsets must be one-dimensional");
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
    throw py::type_error(std::string("put_columns: value_offsets must hold int64, int32 or uint32 "
                                     "(format '") +
                         (b.format == nullptr ? "B" : b.format) + "')");
  }
  o.count = static_cast<size_t>(b.shape[0]);
  return o;
}

}  // namespace

uint64_t put_many(TxnState& s, py::handle items, py::handle tree, bool append) {
  TxnCall call(s);
  WriteTxn& w = call.writer("put_many");
  Tree t = require_tree(call, tree);
  py::iterator it = py::iter(items);
  std::vector<BytesArg> keys, values;
  keys.reserve(kChunkRows);
  values.reserve(kChunkRows);
  uint64_t done = 0;
  for (bool more = true; more;) {
    keys.clear();
    values.clear();
    size_t bytes = 0;
    while (keys.size() < kChunkRows && bytes < kChunkBytes) {
      PyObject* raw = PyIter_Next(it.ptr());
      if (raw == nullptr) {
        if (PyErr_Occurred() != nullptr) throw py::error_already_set();
        more = false;
        break;
      }
      py::object item = py::reinterpret_steal<py::object>(raw);
      const uint64_t row = done + keys.size();
      PyObject *k = nullptr, *v = nullptr;
      py::object pair;
      if (PyTuple_Check(raw) && PyTuple_GET_SIZE(raw) == 2) {
        k = PyTuple_GET_ITEM(raw, 0);
        v = PyTuple_GET_ITEM(raw, 1);
      } else {
        pair = py::reinterpret_steal<py::object>(PySequence_Tuple(raw));
        if (!pair || PyTuple_GET_SIZE(pair.ptr()) != 2) {
          PyErr_Clear();
          throw py::type_error("put_many: row " + std::to_string(row) +
                               " is not a (key, value) pair");
        }
        k = PyTuple_GET_ITEM(pair.ptr(), 0);
        v = PyTuple_GET_ITEM(pair.ptr(), 1);
      }
      try {
        keys.emplace_back(k, "key");
        values.emplace_back(v, "value");
      } catch (const py::type_error& e) {
        throw py::type_error("put_many: row " + std::to_string(row) + ": " + e.what());
      }
      bytes += keys.back().view().size() + values.back().view().size();
    }
    ORDO_ASSERT(keys.size() == values.size());
    Status st;
    size_t i = 0;
    {
      py::gil_scoped_release nogil;
      for (; i < keys.size(); ++i) {
        st = append ? w.append(t, keys[i].view(), values[i].view())
                    : w.put(t, keys[i].view(), values[i].view());
        if (!st.is_ok()) break;
      }
    }
    if (!st.is_ok()) throw_status(st.with_context("put_many: row " + std::to_string(done + i)));
    done += keys.size();
  }
  return done;
}

uint64_t put_columns(TxnState& s, py::handle keys, py::handle values, py::handle value_offsets,
                     const py::object& key_width, py::handle tree, bool append) {
  TxnCall call(s);
  WriteTxn& w = call.writer("put_columns");
  Tree t = require_tree(call, tree);
  HeldBuffer k(keys, "keys"), v(values, "values"), o(value_offsets, "value_offsets");

  // Keys: (n, width) bytes, or n items of `width` bytes, or n * key_width bytes.
  const Py_buffer& kb = k.get();
  size_t width = 0, rows = 0;
  if (kb.ndim == 2 && kb.itemsize == 1) {
    rows = static_cast<size_t>(kb.shape[0]);
    width = static_cast<size_t>(kb.shape[1]);
  } else if (kb.ndim == 1 && kb.itemsize > 1) {
    rows = static_cast<size_t>(kb.shape[0]);
    width = static_cast<size_t>(kb.itemsize);
  } else if (kb.ndim <= 1 && kb.itemsize == 1) {
    if (key_width.is_none()) {
      throw py::value_error("put_columns: key_width is needed for a one-dimensional byte buffer");
    }
    width = key_width.cast<size_t>();
    if (width == 0 || k.len() % width != 0) {
      throw py::value_error("put_columns: keys hold " + std::to_string(k.len()) +
                            " bytes, not a multiple of key_width " + std::to_string(width));
    }
    rows = k.len() / width;
  } else {
    throw py::value_error("put_columns: keys must be a 2-D uint8 array or a byte buffer");
  }
  if (!key_width.is_none() && key_width.cast<size_t>() != width) {
    throw py::value_error("put_columns: key_width " + std::to_string(key_width.cast<size_t>()) +
                          " differs from the keys' width " + std::to_string(width));
  }
  const Offsets offsets = offsets_of(o);
  if (offsets.count != rows + 1) {
    throw py::value_error("put_columns: " + std::to_string(rows) + " keys need " +
                          std::to_string(rows + 1) + " value_offsets, got " +
                          std::to_string(offsets.count));
  }
  const std::byte* key_data = k.bytes();
  const std::byte* value_data = v.bytes();
  const int64_t value_bytes = static_cast<int64_t>(v.len());
  Status st;
  size_t i = 0;
  {
    py::gil_scoped_release nogil;
    // Every offset checked before the first put, so bad offsets change nothing.
    for (size_t j = 0; j <= rows && st.is_ok(); ++j) {
      const int64_t at = offsets.at(j);
      const int64_t before = j == 0 ? 0 : offsets.at(j - 1);
      if (at < before || at > value_bytes) {
        st = Status::invalid_argument(
            "put_columns: value_offsets[" + std::to_string(j) + "] = " + std::to_string(at) +
            " is out of order or past the values' " + std::to_string(value_bytes) + " bytes");
      }
    }
    for (; st.is_ok() && i < rows; ++i) {
      const int64_t from = offsets.at(i), to = offsets.at(i + 1);
      ORDO_ASSERT(0 <= from && from <= to && to <= value_bytes);  // checked above
      const ByteView key(key_data + i * width, width);
      const ByteView value(value_data + from, static_cast<size_t>(to - from));
      st = append ? w.append(t, key, value) : w.put(t, key, value);
      if (!st.is_ok()) st = st.with_context("put_columns: row " + std::to_string(i));
    }
  }
  if (!st.is_ok()) throw_status(st);
  return rows;
}

void init_bulk(py::module_& m) {
  py::object cls = m.attr("Txn");
  def_method(
      cls, "put_many",
      [](TxnState& s, py::handle items, py::handle tree, bool append) {
        return put_many(s, items, tree, append);
      },
      py::arg("items"), py::arg("tree") = py::none(), py::kw_only(), py::arg("append") = false,
      R"(Puts every (key, value) of an iterable and returns how many. The items are
read in chunks with the GIL held and each chunk inserted with it released (no
Python call per row). append=True appends (keys must come in increasing order,
after the tree's last key). On an error the rows before the failing one are in
the txn; the exception names the row.)");
  def_method(
      cls, "put_columns",
      [](TxnState& s, py::handle keys, py::handle values, py::handle offsets,
         const py::object& key_width, py::handle tree,
         bool append) { return put_columns(s, keys, values, offsets, key_width, tree, append); },
      py::arg("keys"), py::arg("values"), py::arg("value_offsets"), py::kw_only(),
      py::arg("key_width") = py::none(), py::arg("tree") = py::none(), py::arg("append") = false,
      R"(Columnar ingest, with the GIL released for the whole insert: row i has key
keys[i] (a 2-D uint8 array of shape (n, width), or any buffer of n * key_width
bytes with key_width given) and value values[value_offsets[i]:value_offsets[i+1]]
(values: any buffer; value_offsets: n + 1 int64, int32 or uint32 offsets,
Arrow-style). Returns n.)");
}

}  // namespace ordo::python
