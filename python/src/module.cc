// The compiled part of the Python package `ordo` (ordo._ordo): pybind11 over
// the C++ API (ordo/database.h). docs/PYTHON.md describes the package.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "errors.h"
#include "reports.h"
#include "state.h"

PYBIND11_MODULE(_ordo, m) {
  m.doc() = "ordo's C++ API for Python; import it as the package `ordo`.";
  m.attr("__version__") = ORDO_VERSION_STRING;
  // Whether this build compiled ORDO_DCHECK's O(n) checks (CMake's ORDO_DCHECKS).
#ifdef NDEBUG
  m.attr("_dchecks") = false;
#else
  m.attr("_dchecks") = true;
#endif
  ordo::python::init_errors();
  ordo::python::init_reports();
  ordo::python::install_fork_handler();
  ordo::python::init_views(m);
  ordo::python::init_database(m);
  ordo::python::init_txn(m);
  ordo::python::init_cursor(m);
  ordo::python::init_txn_count(m);
  ordo::python::init_columns(m);
  ordo::python::init_bulk(m);
  ordo::python::init_arrow(m);
  ordo::python::init_changes(m);
  ordo::python::init_savepoint(m);
}
