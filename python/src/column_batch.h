// ordo.ColumnBatch: entries as columns (Arrow's large_binary layout: one
// buffer of bytes and int64 offsets per column), made by Txn.scan_columns and
// Txn.get_many(columns=True) (columns.cc) and exported to Arrow (arrow.cc).
// The storage is shared: by the numpy arrays (or memoryviews) over it and by
// the Arrow arrays exported from it, which need no GIL to release it.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "ordo/byte_view.h"

namespace ordo::python {

namespace py = pybind11;

// The columns of one batch as they are built (with the GIL released).
struct ColumnData {
  std::vector<uint8_t> keys;
  std::vector<int64_t> key_offsets{0};
  std::vector<uint8_t> values;
  std::vector<int64_t> value_offsets{0};
  // get_many(columns=True): 1 where the key was found, 0 where not (its
  // value empty); empty for scans.
  std::vector<uint8_t> found;
  size_t rows = 0;
  size_t min_key_bytes = SIZE_MAX, max_key_bytes = 0;

  void add(ByteView key, ByteView value);
  // Bytes held so far, with 16 per row for the offsets.
  size_t bytes() const { return keys.size() + values.size() + 16 * rows; }
};

// One column's storage: bytes or int64 offsets.
struct ColumnStorage {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> offsets;
  bool is_offsets = false;
};
using StoragePtr = std::shared_ptr<ColumnStorage>;

struct ColumnBatch {
  size_t count = 0;
  py::object key_data, key_offsets, value_data, value_offsets;
  py::object key_width;  // int when every key has one length, else None
  py::object found;      // get_many(columns=True): the found flags; None for scans
  StoragePtr keys, key_offsets_storage, values, value_offsets_storage;
};

// The column storage of one scan, recycled: once no numpy array or Arrow
// array uses a batch's vectors, they come back here for the next batch, their
// memory allocated and touched already (a streaming scan then costs no page
// faults per batch). Thread-safe: an Arrow consumer may release a batch from
// any thread, without the GIL.
class StoragePool {
 public:
  StoragePool();
  // Moves recycled vectors, emptied, into `data` (its offsets start at 0).
  void prepare(ColumnData& data);
  // Keeps the vector of `storage` for a later batch (a few at most).
  void give(ColumnStorage&& storage) noexcept;

 private:
  static constexpr size_t kMaxKept = 4;
  std::mutex mu_;
  std::vector<std::vector<uint8_t>> bytes_;
  std::vector<std::vector<int64_t>> offsets_;
};

// A ColumnBatch object over `data`'s columns (numpy arrays when numpy
// imports, else memoryviews); their storage goes back to `pool` (if any)
// when the last user of it is gone.
py::object make_column_batch(ColumnData data, const std::shared_ptr<StoragePool>& pool = nullptr);
// numpy, or None when it does not import (imported once, at first use).
py::object numpy();

}  // namespace ordo::python
