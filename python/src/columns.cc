// Txn.scan_columns: entries read in batches, each batch one buffer of key
// bytes, one of value bytes and their int64 offsets (Arrow's layout), built
// with the GIL released; numpy arrays over those buffers when numpy is
// installed, memoryviews otherwise. No Python object per row.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
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

// One column's storage: bytes (format "B") or int64 offsets (format "q").
struct OwnedColumn {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> offsets;
  bool is_offsets = false;
};

struct Batch {
  OwnedColumn keys, key_offsets, values, value_offsets;
  size_t rows = 0;
  size_t min_key = SIZE_MAX, max_key = 0;
};

// numpy, when importable; None otherwise. Imported at the first scan, not
// at import time (numpy is optional and slow to import). A plain pointer set
// with the GIL held, not a function-local static: a static's guard would be
// held across the import, which releases the GIL, and a second thread
// waiting on that guard with the GIL held would deadlock it.
PyObject* numpy_module = nullptr;

py::object numpy() {
  if (numpy_module == nullptr) {
    PyObject* np = PyImport_ImportModule("numpy");
    if (np == nullptr) {
      PyErr_Clear();
      np = py::none().release().ptr();
    }
    if (numpy_module == nullptr) {
      numpy_module = np;  // kept for the process
    } else {
      Py_DECREF(np);  // another thread imported it meanwhile
    }
  }
  return py::reinterpret_borrow<py::object>(numpy_module);
}

py::object column_object(OwnedColumn column) {
  const bool offsets = column.is_offsets;
  py::object owner = py::cast(std::move(column));
  py::object np = numpy();
  if (!np.is_none()) {
    return np.attr("frombuffer")(owner, py::arg("dtype") = offsets ? "int64" : "uint8");
  }
  return py::memoryview(owner);
}

// A ColumnBatch: the Python-facing columns of one batch.
struct ColumnBatch {
  size_t count = 0;
  py::object key_data, key_offsets, value_data, value_offsets;
  py::object key_width;  // int when every key has one length, else None
};

ColumnBatch make_batch(Batch b) {
  ColumnBatch out;
  out.count = b.rows;
  out.key_width = b.rows > 0 && b.min_key == b.max_key ? py::object(py::int_(b.min_key))
                                                       : py::object(py::none());
  b.key_offsets.is_offsets = b.value_offsets.is_offsets = true;
  out.key_data = column_object(std::move(b.keys));
  out.key_offsets = column_object(std::move(b.key_offsets));
  out.value_data = column_object(std::move(b.values));
  out.value_offsets = column_object(std::move(b.value_offsets));
  return out;
}

int64_t offset_at(const py::object& offsets, size_t i) {
  return offsets[py::int_(i)].cast<int64_t>();
}

py::bytes slice(const py::object& data, const py::object& offsets, size_t count, size_t i) {
  if (i >= count)
    throw py::index_error("entry " + std::to_string(i) + " of " + std::to_string(count));
  const int64_t from = offset_at(offsets, i), to = offset_at(offsets, i + 1);
  py::object part = data[py::slice(from, to, 1)];
  return py::bytes(py::reinterpret_steal<py::object>(PyBytes_FromObject(part.ptr())));
}

struct ColumnScan {
  TxnPtr txn;
  std::optional<Cursor> cursor;
  KeyRange range = KeyRange::all();
  uint64_t batch_bytes = 0;
  bool started = false;
  bool done = false;

  ColumnScan() = default;
  ColumnScan(ColumnScan&&) = default;
  ColumnScan& operator=(ColumnScan&&) = delete;
  ~ColumnScan() {
    if (cursor && txn) retire_cursor(*txn, std::move(*cursor));
  }
};

void append_bytes(OwnedColumn& column, OwnedColumn& offsets, ByteView bytes) {
  column.bytes.insert(column.bytes.end(), reinterpret_cast<const uint8_t*>(bytes.data()),
                      reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size());
  offsets.offsets.push_back(static_cast<int64_t>(column.bytes.size()));
}

// Fills `b` from the cursor: at least one entry, then until batch_bytes.
Status fill(ColumnScan& scan, Batch& b) {
  Cursor& c = *scan.cursor;
  b.key_offsets.offsets.push_back(0);
  b.value_offsets.offsets.push_back(0);
  Status s = scan.started ? c.next() : c.seek(scan.range.from());
  scan.started = true;
  for (;;) {
    if (!s.is_ok()) return s;
    if (!c.valid() || scan.range.past_end(c.key())) {
      scan.done = true;
      return Status::ok();
    }
    const ByteView key = c.key(), value = c.value();
    if (!c.status().is_ok()) return c.status();
    append_bytes(b.keys, b.key_offsets, key);
    append_bytes(b.values, b.value_offsets, value);
    b.min_key = std::min(b.min_key, key.size());
    b.max_key = std::max(b.max_key, key.size());
    ++b.rows;
    ORDO_ASSERT(b.key_offsets.offsets.size() == b.rows + 1 &&
                b.value_offsets.offsets.size() == b.rows + 1);
    if (b.keys.bytes.size() + b.values.bytes.size() + 16 * b.rows >= scan.batch_bytes) {
      return Status::ok();  // the cursor stays on the last entry taken
    }
    s = c.next();
  }
}

py::object next_batch(ColumnScan& scan) {
  if (scan.done) throw py::stop_iteration();
  TxnCall call(*scan.txn);
  Batch b;
  Status s;
  {
    py::gil_scoped_release nogil;
    s = fill(scan, b);
  }
  if (!s.is_ok()) {
    scan.done = true;
    throw_status(s);
  }
  if (b.rows == 0) throw py::stop_iteration();
  return py::cast(make_batch(std::move(b)));
}

}  // namespace

py::object scan_columns(const TxnPtr& txn, py::handle start, py::handle stop, py::handle tree,
                        uint64_t batch_bytes) {
  TxnCall call(*txn);
  Tree t = require_tree(call, tree);
  ColumnScan scan;
  scan.txn = txn;
  scan.batch_bytes = std::max<uint64_t>(batch_bytes, 1);
  BytesArg from, to;
  if (!start.is_none()) from = BytesArg(start, "start");
  if (stop.is_none()) {
    scan.range = KeyRange::starting_at(from.view());
  } else {
    to = BytesArg(stop, "stop");
    scan.range = KeyRange::between(from.view(), to.view());
  }
  Result<Cursor> r = [&] {
    py::gil_scoped_release nogil;
    return call.txn().cursor(t);
  }();
  if (!r.is_ok()) throw_status(r.status());
  scan.cursor.emplace(std::move(*r));
  return py::cast(std::move(scan));
}

void init_columns(py::module_& m) {
  py::class_<OwnedColumn>(m, "_Column", py::buffer_protocol(),
                          "The storage of one column of a ColumnBatch.")
      .def_buffer([](OwnedColumn& c) {
        if (c.is_offsets) {
          return py::buffer_info(c.offsets.data(), sizeof(int64_t), "q", 1,
                                 {static_cast<py::ssize_t>(c.offsets.size())},
                                 {py::ssize_t{sizeof(int64_t)}}, /*readonly=*/true);
        }
        return py::buffer_info(c.bytes.data(), 1, "B", 1,
                               {static_cast<py::ssize_t>(c.bytes.size())}, {py::ssize_t{1}},
                               /*readonly=*/true);
      });

  py::class_<ColumnBatch>(m, "ColumnBatch",
                          R"(One batch of Txn.scan_columns: `count` entries in key order as columns.
key_data / value_data hold the bytes of all keys / values back to back;
key_offsets / value_offsets (int64, count + 1) delimit them: entry i's value
is value_data[value_offsets[i]:value_offsets[i + 1]]. numpy arrays when numpy
is installed, else memoryviews. The batch owns its buffers (copies made while
scanning): they stay valid after the txn ends.)")
      .def_readonly("count", &ColumnBatch::count, "Entries in the batch (at least 1).")
      .def_readonly("key_data", &ColumnBatch::key_data, "The keys' bytes, back to back.")
      .def_readonly("key_offsets", &ColumnBatch::key_offsets, "count + 1 int64 offsets.")
      .def_readonly("value_data", &ColumnBatch::value_data, "The values' bytes, back to back.")
      .def_readonly("value_offsets", &ColumnBatch::value_offsets, "count + 1 int64 offsets.")
      .def_readonly("key_width", &ColumnBatch::key_width,
                    "The keys' length when all have one length, else None.")
      .def_property_readonly(
          "keys",
          [](const ColumnBatch& b) -> py::object {
            if (b.key_width.is_none()) {
              throw_error("InvalidArgumentError",
                          "the keys of this batch differ in length: use key_data and key_offsets");
            }
            const size_t width = b.key_width.cast<size_t>();
            if (!numpy().is_none()) return b.key_data.attr("reshape")(b.count, width);
            return b.key_data.attr("cast")("B", py::make_tuple(b.count, width));
          },
          "The keys as a (count, key_width) uint8 array (or 2-D memoryview) when all have one "
          "length; InvalidArgumentError otherwise. Ready for Txn.put_columns.")
      .def("__len__", [](const ColumnBatch& b) { return b.count; })
      .def(
          "key",
          [](const ColumnBatch& b, size_t i) {
            return slice(b.key_data, b.key_offsets, b.count, i);
          },
          py::arg("i"), "Key i as bytes.")
      .def(
          "value",
          [](const ColumnBatch& b, size_t i) {
            return slice(b.value_data, b.value_offsets, b.count, i);
          },
          py::arg("i"), "Value i as bytes.")
      .def(
          "__iter__",
          [](const ColumnBatch& b) {
            py::list items;
            for (size_t i = 0; i < b.count; ++i) {
              items.append(py::make_tuple(slice(b.key_data, b.key_offsets, b.count, i),
                                          slice(b.value_data, b.value_offsets, b.count, i)));
            }
            return py::iter(items);
          },
          "(key, value) pairs as bytes: one object per row, for tests and small batches.");

  py::class_<ColumnScan>(m, "_ColumnScan", "The iterator of Txn.scan_columns.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &next_batch);

  def_method(
      m.attr("Txn"), "scan_columns",
      [](const TxnPtr& s, py::handle start, py::handle stop, py::handle tree,
         uint64_t batch_bytes) { return scan_columns(s, start, stop, tree, batch_bytes); },
      py::arg("start") = py::none(), py::arg("stop") = py::none(), py::kw_only(),
      py::arg("tree") = py::none(), py::arg("batch_bytes") = uint64_t{1} << 20,
      R"(An iterator of ordo.ColumnBatch over [start, stop): each batch holds the keys
and values of up to about batch_bytes of entries, as one buffer per column plus
int64 offsets (numpy arrays when numpy is installed, else memoryviews); no
Python object per row.)");
}

}  // namespace ordo::python
