// Bulk calls without a Python call per row: Txn.put_many (an iterable of
// pairs, converted in chunks with the GIL held, each chunk inserted with it
// released), Txn.put_columns (columns in buffers), Txn.get_many (many keys,
// looked up in chunks with the GIL released). Between chunks the GIL is taken
// back and signals are seen: an interrupt (Ctrl-C) rolls the txn back.
#include "bulk.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.h"
#include "byte_columns.h"
#include "bytes_arg.h"
#include "column_batch.h"
#include "errors.h"
#include "native.h"
#include "ordo/assert.h"
#include "state.h"
#include "txn_parts.h"

namespace ordo::python {
namespace {

// Rows and bytes converted per chunk of put_many and get_many: big enough
// that releasing the GIL costs nothing per row, small enough to bound the
// references a chunk holds and the time until a signal is seen.
constexpr size_t kChunkRows = 4096;
constexpr size_t kChunkBytes = size_t{4} << 20;
// Rows per chunk of a columnar insert (no conversion: only the inserts).
constexpr size_t kColumnChunkRows = 65536;

// A pair of put_many's iterable: its key and value, or TypeError naming the row.
void pair_of(PyObject* item, uint64_t row, std::vector<BytesArg>& keys,
             std::vector<BytesArg>& values) {
  PyObject *k = nullptr, *v = nullptr;
  py::object pair;
  if (PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 2) {
    k = PyTuple_GET_ITEM(item, 0);
    v = PyTuple_GET_ITEM(item, 1);
  } else {
    pair = py::reinterpret_steal<py::object>(PySequence_Tuple(item));
    if (!pair || PyTuple_GET_SIZE(pair.ptr()) != 2) {
      PyErr_Clear();
      throw py::type_error("put_many: row " + std::to_string(row) + " is not a (key, value) pair");
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
}

// The next item of `it` (a new reference), or null at its end; raises what
// the iterator raised (an interrupt rolls the txn back first).
PyObject* next_item(TxnState& s, const py::iterator& it) {
  PyObject* raw = PyIter_Next(it.ptr());
  if (raw == nullptr && PyErr_Occurred() != nullptr) {
    if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) roll_back_interrupted(s);
    throw py::error_already_set();
  }
  return raw;
}

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
      PyObject* raw = next_item(s, it);
      if (raw == nullptr) {
        more = false;
        break;
      }
      py::object item = py::reinterpret_steal<py::object>(raw);
      pair_of(raw, done + keys.size(), keys, values);
      bytes += keys.back().view().size() + values.back().view().size();
    }
    ORDO_ASSERT(keys.size() == values.size());
    size_t i = 0;
    const Status st = without_gil([&] {
      for (; i < keys.size(); ++i) {
        Status r = append ? w.append(t, keys[i].view(), values[i].view())
                          : w.put(t, keys[i].view(), values[i].view());
        if (!r.is_ok()) return r;
      }
      return Status::ok();
    });
    if (!st.is_ok()) throw_status(st.with_context("put_many: row " + std::to_string(done + i)));
    done += keys.size();
    if (more) check_interrupt(s);
  }
  return done;
}

const ColumnNames kKeyNames{"put_columns", "keys", "key_offsets", "key_width"};
const ColumnNames kValueNames{"put_columns", "values", "value_offsets", "value_width"};

uint64_t put_columns(TxnState& s, py::handle keys, py::handle values, py::handle value_offsets,
                     py::handle key_offsets, const py::object& key_width, py::handle tree,
                     bool append) {
  TxnCall call(s);
  WriteTxn& w = call.writer("put_columns");
  Tree t = require_tree(call, tree);
  std::vector<std::unique_ptr<HeldBuffer>> held;
  const ByteColumn k = column_of(keys, key_offsets, key_width, kKeyNames, held);
  const ByteColumn v = column_of(values, value_offsets, py::none(), kValueNames, held);
  return insert_columns(call, w, t, k, v, append, kKeyNames, kValueNames);
}

// get_many's keys as a column when they are one (a 2-D byte array, or an
// array of S<n>): no Python object per key.
bool is_key_column(py::handle keys) {
  if (!PyObject_CheckBuffer(keys.ptr()) || PyBytes_Check(keys.ptr()) ||
      PyByteArray_Check(keys.ptr())) {
    return false;
  }
  Py_buffer b;
  if (PyObject_GetBuffer(keys.ptr(), &b, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    return false;
  }
  const bool column = b.ndim == 2 || (b.ndim == 1 && b.itemsize > 1);
  PyBuffer_Release(&b);
  return column;
}

const ColumnNames kGetNames{"get_many", "keys", "key_offsets", "key_width"};

// The keys of get_many in key order (a permutation of their indices): the
// lookups then walk the tree from left to right, each descent through pages
// the one before it left in the cache. Sorted by eight bytes of each key as a
// number, taken after the prefix all keys share (counters and IDs often begin
// with the same bytes), then by the whole key.
std::vector<uint32_t> key_order(const std::vector<ByteView>& keys) {
  size_t shared = keys.empty() ? 0 : keys[0].size();
  for (size_t i = 1; i < keys.size() && shared > 0; ++i) {
    const ByteView k = keys[i];
    const size_t n = std::min(shared, k.size());
    size_t j = 0;
    while (j < n && k.data()[j] == keys[0].data()[j]) ++j;
    shared = j;
  }
  std::vector<std::pair<uint64_t, uint32_t>> prefixed(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    uint64_t prefix = 0;
    const size_t end = std::min<size_t>(shared + 8, keys[i].size());
    for (size_t j = shared; j < end; ++j) {
      prefix |= uint64_t{static_cast<uint8_t>(keys[i].data()[j])} << (56 - 8 * (j - shared));
    }
    prefixed[i] = {prefix, static_cast<uint32_t>(i)};
  }
  std::sort(prefixed.begin(), prefixed.end(), [&keys](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return keys[a.second].compare(keys[b.second]) < 0;
  });
  std::vector<uint32_t> order(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) order[i] = prefixed[i].second;
  return order;
}

// What one chunk of get_many's lookups found: for views (buffers=True, or
// columns), each key's view by its index; else the values copied back to back
// while their pages are in the cache, each with its key's index.
struct Found {
  std::vector<ByteView> views;                    // by key index; empty data: not found
  std::vector<uint8_t> found;                     // by key index
  std::vector<char> copies;                       // this chunk's values
  std::vector<std::pair<uint32_t, size_t>> ends;  // key index, end in copies
};

// Looks up keys[order[from..to)] with the GIL released.
Status look_up(Txn& txn, const Tree& t, const std::vector<ByteView>& keys,
               const std::vector<uint32_t>& order, size_t from, size_t to, bool views, Found& out) {
  out.copies.clear();
  out.ends.clear();
  return without_gil([&] {
    for (size_t i = from; i < to; ++i) {
      const uint32_t k = order[i];
      Result<ByteView> r = txn.get(t, keys[k]);
      if (!r.is_ok()) {
        if (r.status().is_not_found()) continue;
        return r.status().with_context("get_many: key " + std::to_string(k));
      }
      out.found[k] = 1;
      if (views) {
        out.views[k] = *r;
      } else {
        out.copies.insert(out.copies.end(), r->char_data(), r->char_data() + r->size());
        out.ends.emplace_back(k, out.copies.size());
      }
    }
    return Status::ok();
  });
}

py::object get_many(TxnState& s, py::handle keys_object, py::handle tree, py::handle missing,
                    bool columns) {
  TxnCall call(s);
  // The keys: views into a column held for the call, or into the items of a
  // tuple of them (a copy of the iterable: another thread cannot change it
  // while the GIL is released); items that are not bytes are held as buffers.
  std::vector<ByteView> keys;
  std::vector<std::unique_ptr<HeldBuffer>> held;
  std::vector<BytesArg> args;
  py::object items;
  if (is_key_column(keys_object)) {
    const ByteColumn k = column_of(keys_object, py::none(), py::none(), kGetNames, held);
    keys.reserve(k.rows());
    for (size_t i = 0; i < k.rows(); ++i) keys.push_back(k.row(i));
  } else {
    PyObject* tuple = PySequence_Tuple(keys_object.ptr());
    if (tuple == nullptr) {
      if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) roll_back_interrupted(s);
      throw py::error_already_set();
    }
    items = py::reinterpret_steal<py::object>(tuple);
    const Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    keys.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PyTuple_GET_ITEM(tuple, i);
      if (PyBytes_CheckExact(item)) {
        keys.emplace_back(PyBytes_AS_STRING(item), static_cast<size_t>(PyBytes_GET_SIZE(item)));
        continue;
      }
      try {
        args.emplace_back(item, "key");
      } catch (const py::type_error& e) {
        throw py::type_error("get_many: key " + std::to_string(i) + ": " + e.what());
      }
      keys.push_back(args.back().view());
    }
  }
  if (keys.size() > UINT32_MAX) throw py::value_error("get_many: more than 2^32 keys");
  const size_t n = keys.size();
  const bool views = s.buffers || columns;
  Found found;
  found.found.assign(n, 0);
  if (views) found.views.assign(n, ByteView());
  PyObject* list = columns ? PyList_New(0) : PyList_New(static_cast<Py_ssize_t>(n));
  if (list == nullptr) throw py::error_already_set();
  py::list out = py::reinterpret_steal<py::list>(list);
  Tree t;
  if (resolve_tree(call, tree, &t) && n > 0) {
    const std::vector<uint32_t> order = without_gil([&] { return key_order(keys); });
    for (size_t from = 0; from < n; from += kChunkRows) {
      const size_t to = std::min(n, from + kChunkRows);
      check_status(look_up(call.txn(), t, keys, order, from, to, views, found));
      size_t begin = 0;
      for (const auto& [k, end] : found.ends) {
        PyObject* v = PyBytes_FromStringAndSize(found.copies.data() + begin,
                                                static_cast<Py_ssize_t>(end - begin));
        if (v == nullptr) throw py::error_already_set();
        PyList_SET_ITEM(list, static_cast<Py_ssize_t>(k), v);
        begin = end;
      }
      if (to < n) check_interrupt(s);
    }
  }
  if (columns) {
    ColumnData data;
    without_gil([&] {
      for (size_t i = 0; i < n; ++i) data.add(keys[i], found.views[i]);
      data.found = std::move(found.found);
    });
    return make_column_batch(std::move(data));
  }
  for (size_t i = 0; i < n; ++i) {
    if (found.found[i] != 0 && !s.buffers) continue;  // set from the copies above
    PyObject* v = found.found[i] == 0 ? missing.inc_ref().ptr() : s.value(found.views[i]);
    if (v == nullptr) throw py::error_already_set();
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), v);
  }
  return out;
}

}  // namespace

void roll_back_interrupted(TxnState& s) {
  // A batch function's txn is rolled back by batch() when the exception
  // leaves the function.
  if (s.txn != nullptr && !s.lent)
    s.end(false, "the txn was rolled back: a bulk call was interrupted");
}

void check_interrupt(TxnState& s) {
  if (PyErr_CheckSignals() == 0) return;
  roll_back_interrupted(s);
  throw py::error_already_set();
}

uint64_t insert_columns(TxnCall& call, WriteTxn& w, const Tree& t, const ByteColumn& keys,
                        const ByteColumn& values, bool append, const ColumnNames& key_names,
                        const ColumnNames& value_names) {
  const char* method = key_names.method;
  if (keys.rows() != values.rows()) {
    const std::string n = std::to_string(keys.rows());
    throw py::value_error(std::string(method) + ": " + n + " " + key_names.data + " need " +
                          (values.delimited()
                               ? std::to_string(keys.rows() + 1) + " " + value_names.offsets
                               : n + " " + value_names.data) +
                          ", got " + std::to_string(values.rows() + (values.delimited() ? 1 : 0)));
  }
  // Every offset checked before the first put, so bad offsets change nothing.
  check_status(without_gil([&] {
    Status s = keys.check(key_names);
    return s.is_ok() ? values.check(value_names) : s;
  }));
  const size_t rows = keys.rows();
  for (size_t done = 0; done < rows;) {
    const size_t end = std::min(rows, done + kColumnChunkRows);
    check_status(without_gil([&] {
      for (size_t i = done; i < end; ++i) {
        Status s =
            append ? w.append(t, keys.row(i), values.row(i)) : w.put(t, keys.row(i), values.row(i));
        if (!s.is_ok()) return s.with_context(std::string(method) + ": row " + std::to_string(i));
      }
      return Status::ok();
    }));
    done = end;
    if (done < rows) check_interrupt(call.state());
  }
  return rows;
}

void init_bulk(py::module_& m) {
  py::object cls = m.attr("Txn");
  def_method(cls, "put_many", &put_many, py::arg("items"), py::arg("tree") = py::none(),
             py::kw_only(), py::arg("append") = false,
             R"(Puts every (key, value) of an iterable and returns how many. The items are
read in chunks with the GIL held and each chunk inserted with it released (no
Python call per row). append=True appends (keys must come in increasing order,
after the tree's last key). On an error the rows before the failing one are in
the txn; the exception names the row. An interrupt (KeyboardInterrupt, seen
between chunks) rolls the whole txn back.)");
  def_method(cls, "put_columns", &put_columns, py::arg("keys"), py::arg("values"),
             py::arg("value_offsets") = py::none(), py::kw_only(),
             py::arg("key_offsets") = py::none(), py::arg("key_width") = py::none(),
             py::arg("tree") = py::none(), py::arg("append") = false,
             R"(Columnar ingest, no Python object per row, inserted in chunks with the GIL
released: row i has key keys[i] and value values[value_offsets[i]:value_offsets[i+1]]
(Arrow's binary layout; n + 1 int64, int32 or uint32 offsets). keys: a 2-D uint8
array of shape (n, width), a 1-D array of S<width>, a byte buffer with
key_width (keyword) given, or a byte buffer with key_offsets (keyword). values:
a byte buffer with value_offsets, or with value_offsets None a 2-D uint8 or
S<width> array of fixed-width values. Buffers must hold bytes: an object array
(a pandas column of bytes objects) is a TypeError. Offsets are checked before
the first put: bad ones change nothing. An interrupt rolls the txn back.
Returns n.)");
  def_method(cls, "get_many", &get_many, py::arg("keys"), py::arg("tree") = py::none(),
             py::kw_only(), py::arg("default") = py::none(), py::arg("columns") = false,
             R"(The values of many keys, looked up in chunks with the GIL released: a list
(bytes, or memoryviews with buffers=True; `default` for a missing key), or
with columns=True a ColumnBatch of every key in order (a missing key's value
empty, and `found` false). keys: an iterable of keys, or a 2-D uint8 array
(or an array of S<n>) of fixed-width keys.)");
}

}  // namespace ordo::python
