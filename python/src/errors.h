// Engine statuses as Python exceptions: the classes are those of ordo/_errors.py
// (ordo.Error and one subclass per Status code); each raised instance carries
// the engine's message, its code name and, for Corruption, the page number.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "ordo/status.h"

namespace ordo::python {

namespace py = pybind11;

// Imports ordo._errors and keeps its classes. Called once by the module's init.
void init_errors();

// Raises the exception class of `status`'s code (REQUIRES: !status.is_ok()).
[[noreturn]] void throw_status(const Status& status);
// Raises as throw_status when `status` is not OK.
inline void check_status(const Status& status) {
  if (!status.is_ok()) throw_status(status);
}
// Raises ordo.<class_name> (a class of ordo/_errors.py) with `message`.
[[noreturn]] void throw_error(const char* class_name, const std::string& message);
// The exception class of ordo/_errors.py named `class_name`.
py::object error_class(const char* class_name);

}  // namespace ordo::python
