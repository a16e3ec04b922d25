// Txn methods defined beside the classes they make: cursors and range
// iterators (cursor.cc), bulk writes (bulk.cc), column scans (columns.cc).
// Each takes the txn's state with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>

#include "state.h"

namespace ordo::python {

namespace py = pybind11;

using TxnPtr = std::shared_ptr<TxnState>;

// Txn.cursor(tree)
py::object make_cursor(const TxnPtr& txn, py::handle tree);
// Txn.range(start, stop, tree) and Txn.prefix(prefix, tree): iterators of
// (key, value); `stop` None: to the end.
py::object make_range(const TxnPtr& txn, py::handle start, py::handle stop, py::handle tree);
py::object make_prefix(const TxnPtr& txn, py::handle prefix, py::handle tree);

// Txn.put_many(items, tree, append)
uint64_t put_many(TxnState& txn, py::handle items, py::handle tree, bool append);
// Txn.put_columns(keys, values, value_offsets, key_width, tree, append)
uint64_t put_columns(TxnState& txn, py::handle keys, py::handle values, py::handle value_offsets,
                     const py::object& key_width, py::handle tree, bool append);
// Txn.scan_columns(start, stop, tree, batch_bytes): an iterator of ColumnBatch.
py::object scan_columns(const TxnPtr& txn, py::handle start, py::handle stop, py::handle tree,
                        uint64_t batch_bytes);

// Txn.at(index, tree): a cursor on the entry at `index` (IndexError past the
// last one).
py::object make_cursor_at(const TxnPtr& txn, uint64_t index, py::handle tree);

}  // namespace ordo::python
