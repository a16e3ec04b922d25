#include "native.h"

#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>

#include "ordo/assert.h"

namespace ordo::python {

void set_python_error() noexcept {
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "ordo: unknown C++ exception");
  }
}

Signature::Signature(const char* method, std::initializer_list<const char*> names, int positional,
                     int required)
    : method_(method), positional_(positional), required_(required) {
  ORDO_ASSERT(names.size() <= kMaxParams);  // a fixed table: raise kMaxParams for more
  for (const char* n : names) names_[count_++] = n;
  ORDO_ASSERT(0 <= required_ && required_ <= positional_ && positional_ <= count_);
}

int Signature::index_of(PyObject* name) const {
  for (int i = 0; i < count_; ++i) {
    if (interned_[i] == nullptr) interned_[i] = PyUnicode_InternFromString(names_[i]);
    if (interned_[i] == name) return i;
  }
  // Keyword names are interned when they come from source code; others are
  // compared by value.
  for (int i = 0; i < count_; ++i) {
    if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, names_[i]) == 0) return i;
  }
  return -1;
}

void Signature::parse(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                      PyObject** out) const {
  if (nargs > positional_) {
    throw py::type_error(std::string(method_) + "() takes at most " + std::to_string(positional_) +
                         " positional argument(s) (" + std::to_string(nargs) + " given)");
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) out[i] = args[i];
  if (kwnames != nullptr) {
    const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t j = 0; j < n; ++j) {
      PyObject* name = PyTuple_GET_ITEM(kwnames, j);
      const int i = index_of(name);
      if (i < 0) {
        throw py::type_error(std::string(method_) + "() got an unexpected keyword argument '" +
                             py::str(name).cast<std::string>() + "'");
      }
      if (out[i] != nullptr) {
        throw py::type_error(std::string(method_) + "() got multiple values for argument '" +
                             names_[i] + "'");
      }
      out[i] = args[nargs + j];
    }
  }
  for (int i = 0; i < required_; ++i) {
    if (out[i] == nullptr) {
      throw py::type_error(std::string(method_) + "() missing required argument '" + names_[i] +
                           "'");
    }
  }
}

bool bool_arg(PyObject* arg, bool absent) {
  if (arg == nullptr) return absent;
  const int truth = PyObject_IsTrue(arg);
  if (truth < 0) throw py::error_already_set();
  return truth != 0;
}

PyTypeObject* make_type(py::module_& m, PyType_Spec* spec) {
  PyObject* type = PyType_FromSpec(spec);
  if (type == nullptr) throw py::error_already_set();
  const char* dot = std::strrchr(spec->name, '.');
  m.attr(dot == nullptr ? spec->name : dot + 1) = py::reinterpret_steal<py::object>(type);
  return reinterpret_cast<PyTypeObject*>(type);  // the module keeps the reference
}

}  // namespace ordo::python
