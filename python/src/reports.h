// The engine's reports as Python dicts, with the field names of
// ordo/diagnostics.h and ordo/copy.h (docs/PYTHON.md).
#pragma once

#include <pybind11/pybind11.h>

#include "ordo/database.h"

namespace ordo::python {

namespace py = pybind11;

py::dict info_dict(const DatabaseInfo& info);
py::dict stats_dict(const Stats& stats);
py::dict check_dict(const CheckReport& report);
py::dict copy_dict(const CopyResult& result);
py::dict tree_stats_dict(const TreeStats& stats);
// Imports what the reports need (uuid). Called once by the module's init.
void init_reports();
// uuid.UUID of a Uuid (next_id, the ID high-water mark).
py::object uuid_object(const Uuid& id);

}  // namespace ordo::python
