// Txn methods defined beside the classes they make: cursors and range
// iterators (cursor.cc), column scans (columns.cc).
// Each takes the txn's state with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>

#include "objects.h"
#include "state.h"

namespace ordo::python {

namespace py = pybind11;

// Txn.cursor(tree)
py::object make_cursor(const TxnPtr& txn, py::handle tree);
// Txn.range(start=None, stop=None, tree=None, *, reverse, keys, values) and
// Txn.prefix(prefix, tree=None, *, reverse, keys, values): iterators of
// (key, value), keys or values; METH_FASTCALL methods of ordo.Txn.
PyObject* txn_range(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
PyObject* txn_prefix(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
// Ends `cursor` (unregistering it from its txn), or keeps it in
// txn.retired_cursors until the call another thread is in on the txn ends.
void retire_cursor(TxnState& txn, Cursor&& cursor);

// Txn.scan_columns(start, stop, tree, batch_bytes): an iterator of ColumnBatch.
py::object scan_columns(const TxnPtr& txn, py::handle start, py::handle stop, py::handle tree,
                        uint64_t batch_bytes);

// Txn.at(index, tree): a cursor on the entry at `index` (IndexError past the
// last one).
py::object make_cursor_at(const TxnPtr& txn, uint64_t index, py::handle tree);

}  // namespace ordo::python
