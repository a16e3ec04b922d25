// The parts of the _ordo module, each registering its classes and functions
// (module.cc calls them in this order).
#pragma once

#include <pybind11/pybind11.h>

#include "objects.h"
#include "ordo/options.h"

namespace ordo::python {

namespace py = pybind11;

void init_views(py::module_& m);     // state.cc: the exporter of memoryviews
void init_database(py::module_& m);  // database.cc: open(), Database, Tree
void init_txn(py::module_& m);       // txn.cc: Txn
void init_cursor(py::module_& m);    // cursor.cc: Cursor, range iterators
void init_columns(py::module_& m);   // columns.cc: ColumnBatch, Txn.scan_columns (after init_txn)
void init_bulk(py::module_& m);  // bulk.cc: Txn.put_many, put_columns, get_many (after init_txn)
// arrow.cc: the Arrow PyCapsule interface, Txn.put_arrow (after init_columns, init_bulk)
void init_arrow(py::module_& m);
void init_savepoint(py::module_& m);  // savepoint.cc: Savepoint, Txn.savepoint (after init_txn)
void init_changes(py::module_& m);    // changes.cc: changes between snapshots (after Txn, Database)
// txn_count.cc: Txn.count, rank and at, added to the class init_txn() made.
void init_txn_count(py::module_& m);

// ordo.open's keyword options as Options (options.cc). TypeError names an
// unknown option or a value of the wrong type; ValueError an unknown enum name.
Options options_from_kwargs(const py::kwargs& kwargs);

}  // namespace ordo::python
