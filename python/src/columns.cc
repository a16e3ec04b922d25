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
#include "column_batch.h"
#include "errors.h"
#include "native.h"
#include "ordo/assert.h"
#include "state.h"
#include "txn_parts.h"

namespace ordo::python {

void ColumnData::add(ByteView key, ByteView value) {
  const auto* k = reinterpret_cast<const uint8_t*>(key.data());
  const auto* v = reinterpret_cast<const uint8_t*>(value.data());
  keys.insert(keys.end(), k, k + key.size());
  key_offsets.push_back(static_cast<int64_t>(keys.size()));
  values.insert(values.end(), v, v + value.size());
  value_offsets.push_back(static_cast<int64_t>(values.size()));
  min_key_bytes = std::min(min_key_bytes, key.size());
  max_key_bytes = std::max(max_key_bytes, key.size());
  ++rows;
  ORDO_ASSERT(key_offsets.size() == rows + 1 && value_offsets.size() == rows + 1);
}

namespace {

// numpy, when importable; None otherwise. Imported at the first use, not at
// import time (numpy is optional and slow to import). A plain pointer set
// with the GIL held, not a function-local static: a static's guard would be
// held across the import, which releases the GIL, and a second thread
// waiting on that guard with the GIL held would deadlock it.
PyObject* numpy_module = nullptr;

// The Python object over one column's storage (its buffer's owner), as a
// numpy array of `dtype` or a memoryview.
py::object column_object(const StoragePtr& storage, const char* dtype) {
  py::object owner = py::cast(storage);
  py::object np = numpy();
  if (!np.is_none()) return np.attr("frombuffer")(owner, py::arg("dtype") = dtype);
  return py::memoryview(owner);
}

// A storage of `bytes` or `offsets`, given back to `pool` (when not null) at its end.
StoragePtr storage(std::vector<uint8_t>&& bytes, std::vector<int64_t>&& offsets, bool is_offsets,
                   const std::shared_ptr<StoragePool>& pool) {
  auto* s = new ColumnStorage{std::move(bytes), std::move(offsets), is_offsets};
  if (pool == nullptr) return StoragePtr(s);
  return StoragePtr(s, [pool](ColumnStorage* gone) {
    pool->give(std::move(*gone));
    delete gone;
  });
}

}  // namespace

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

StoragePool::StoragePool() {
  bytes_.reserve(kMaxKept);
  offsets_.reserve(kMaxKept);
}

void StoragePool::prepare(ColumnData& data) {
  std::lock_guard<std::mutex> g(mu_);
  for (std::vector<uint8_t>* v : {&data.keys, &data.values}) {
    if (bytes_.empty()) break;
    *v = std::move(bytes_.back());
    bytes_.pop_back();
    v->clear();
  }
  for (std::vector<int64_t>* v : {&data.key_offsets, &data.value_offsets}) {
    if (offsets_.empty()) break;
    *v = std::move(offsets_.back());
    offsets_.pop_back();
    v->assign(1, 0);
  }
}

void StoragePool::give(ColumnStorage&& storage) noexcept {
  std::lock_guard<std::mutex> g(mu_);
  ORDO_ASSERT(bytes_.capacity() >= kMaxKept && offsets_.capacity() >= kMaxKept);  // no allocation
  if (storage.is_offsets) {
    if (offsets_.size() < kMaxKept) offsets_.push_back(std::move(storage.offsets));
  } else if (bytes_.size() < kMaxKept) {
    bytes_.push_back(std::move(storage.bytes));
  }
}

py::object make_column_batch(ColumnData data, const std::shared_ptr<StoragePool>& pool) {
  ColumnBatch out;
  out.count = data.rows;
  out.key_width = data.rows > 0 && data.min_key_bytes == data.max_key_bytes
                      ? py::object(py::int_(data.min_key_bytes))
                      : py::object(py::none());
  out.keys = storage(std::move(data.keys), {}, false, pool);
  out.key_offsets_storage = storage({}, std::move(data.key_offsets), true, pool);
  out.values = storage(std::move(data.values), {}, false, pool);
  out.value_offsets_storage = storage({}, std::move(data.value_offsets), true, pool);
  out.key_data = column_object(out.keys, "uint8");
  out.key_offsets = column_object(out.key_offsets_storage, "int64");
  out.value_data = column_object(out.values, "uint8");
  out.value_offsets = column_object(out.value_offsets_storage, "int64");
  out.found = data.found.empty()
                  ? py::object(py::none())
                  : column_object(storage(std::move(data.found), {}, false, nullptr), "bool");
  return py::cast(std::move(out));
}

namespace {

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

// A list of `count` bytes objects, the rows of a bytes column.
py::list split(const ColumnStorage& bytes, const ColumnStorage& offsets, size_t count) {
  ORDO_ASSERT(offsets.offsets.size() == count + 1);
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(count));
  if (list == nullptr) throw py::error_already_set();
  py::list out = py::reinterpret_steal<py::list>(list);
  const auto* data = reinterpret_cast<const char*>(bytes.bytes.data());
  for (size_t i = 0; i < count; ++i) {
    const int64_t from = offsets.offsets[i], to = offsets.offsets[i + 1];
    PyObject* row = PyBytes_FromStringAndSize(data + from, static_cast<Py_ssize_t>(to - from));
    if (row == nullptr) throw py::error_already_set();
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), row);
  }
  return out;
}

struct ColumnScan {
  TxnPtr txn;
  std::shared_ptr<StoragePool> pool = std::make_shared<StoragePool>();
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

// Fills `b` from the cursor: at least one entry, then until batch_bytes.
Status fill(ColumnScan& scan, ColumnData& b) {
  Cursor& c = *scan.cursor;
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
    b.add(key, value);
    if (b.bytes() >= scan.batch_bytes) {
      return Status::ok();  // the cursor stays on the last entry taken
    }
    s = c.next();
  }
}

py::object next_batch(ColumnScan& scan) {
  if (scan.done) throw py::stop_iteration();
  TxnCall call(*scan.txn);
  ColumnData b;
  scan.pool->prepare(b);
  Status s = without_gil([&] { return fill(scan, b); });
  if (!s.is_ok()) {
    scan.done = true;
    throw_status(s);
  }
  if (b.rows == 0) throw py::stop_iteration();
  return make_column_batch(std::move(b), scan.pool);
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
  py::class_<ColumnStorage, std::shared_ptr<ColumnStorage>>(
      m, "_Column", py::buffer_protocol(), "The storage of one column of a ColumnBatch.")
      .def_buffer([](ColumnStorage& c) {
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
      .def_readonly("found", &ColumnBatch::found,
                    "Txn.get_many(columns=True): for each key, whether it was found (a bool "
                    "array; a missing key's value is empty); None for scans.")
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
          "key_list",
          [](const ColumnBatch& b) { return split(*b.keys, *b.key_offsets_storage, b.count); },
          "The keys as a list of bytes (one object per row).")
      .def(
          "value_list",
          [](const ColumnBatch& b) { return split(*b.values, *b.value_offsets_storage, b.count); },
          "The values as a list of bytes (one object per row).")
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
