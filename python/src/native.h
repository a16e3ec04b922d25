// Native CPython types for the objects on the row path (Database, Tree, Txn,
// Cursor and its iterators). Their hot methods are METH_FASTCALL C functions
// that parse their arguments with a Signature (no generic dispatch, and no
// keyword matching when arguments come by position); their other methods are
// pybind11 functions attached to the type with def_method, which keep
// pybind11's conversions (objects.h gives pybind11 the casters).
#pragma once

#include <pybind11/pybind11.h>
// After Python.h (which pybind11 includes): PyMemberDef, T_PYSSIZET, READONLY.
#include <structmember.h>

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace ordo::python {

namespace py = pybind11;

// Sets the Python error that the exception in flight stands for: the error a
// py::error_already_set holds, pybind11's builtin exceptions (TypeError,
// ValueError, ...), MemoryError for std::bad_alloc, RuntimeError otherwise.
// REQUIRES: called inside a catch block, with the GIL held.
void set_python_error() noexcept;

// `o` with its reference count raised: a new reference to return (Py_NewRef
// from Python 3.10 on).
inline PyObject* new_ref(PyObject* o) {
  Py_INCREF(o);
  return o;
}

// Runs `f`, which returns a new reference (or null with a Python error set)
// or throws; an exception becomes its Python error and the result null. The
// body of every fast method and slot.
template <typename F>
PyObject* guard(F&& f) noexcept {
  try {
    return std::forward<F>(f)();
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

// As guard, for slots that return an int (0 or 1, -1 with an error set).
template <typename F>
int guard_int(F&& f) noexcept {
  try {
    return std::forward<F>(f)();
  } catch (...) {
    set_python_error();
    return -1;
  }
}

// The parameters of one fast method, by name in order: the first
// `positional` may come by position, the rest only by keyword; the first
// `required` must be given. parse() fills out[i] with a borrowed reference
// to parameter i, or leaves the null it was given for one not passed.
// Positional arguments cost a copy each; keywords a comparison of their
// names (interned strings first by pointer).
class Signature {
 public:
  static constexpr int kMaxParams = 8;
  Signature(const char* method, std::initializer_list<const char*> names, int positional,
            int required);
  Signature(const Signature&) = delete;
  Signature& operator=(const Signature&) = delete;

  // Raises TypeError for too many positional arguments, an unknown or
  // repeated keyword, or a missing required argument, naming the method.
  void parse(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject** out) const;
  const char* method() const { return method_; }

 private:
  int index_of(PyObject* name) const;
  const char* method_;
  const char* names_[kMaxParams] = {};
  mutable PyObject* interned_[kMaxParams] = {};  // made at first use, kept for the process
  int count_ = 0;
  int positional_ = 0;
  int required_ = 0;
};

// The flags and the PyMethodDef entry of a fast method with keywords.
inline constexpr int kFastCall = METH_FASTCALL | METH_KEYWORDS;
template <typename F>
PyCFunction fastcall(F f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}

// Runs `f` with the GIL released and returns what it returns.
template <typename F>
auto without_gil(F&& f) {
  py::gil_scoped_release nogil;
  return std::forward<F>(f)();
}

// A new object of the native type `type` whose C++ member `Member` (the
// object's one member that is not plain C) is built from `args`; the other
// members are zero, as tp_alloc leaves them.
template <typename Object, auto Member, typename... Args>
py::object new_native(PyTypeObject* type, Args&&... args) {
  PyObject* o = type->tp_alloc(type, 0);
  if (o == nullptr) throw py::error_already_set();
  using Held = std::remove_reference_t<decltype(std::declval<Object&>().*Member)>;
  new (&(reinterpret_cast<Object*>(o)->*Member)) Held(std::forward<Args>(args)...);
  return py::reinterpret_steal<py::object>(o);
}

// The tp_dealloc of such a type: weak references cleared, `Member` destroyed.
template <typename Object, auto Member>
void dealloc_native(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  if (type->tp_weaklistoffset != 0) PyObject_ClearWeakRefs(self);
  std::destroy_at(&(reinterpret_cast<Object*>(self)->*Member));
  type->tp_free(self);
  Py_DECREF(type);  // a heap type's instances hold a reference to it
}

// The value of a bool argument: null (not given) is `absent`; otherwise its
// truth value, as Python's `if` sees it.
bool bool_arg(PyObject* arg, bool absent);

// A new heap type from `spec`, added to module `m` under its short name.
// Instances are made only by the module's own functions (no tp_new).
PyTypeObject* make_type(py::module_& m, PyType_Spec* spec);

// Attaches `f` to the native type `type` as the method `name`, as
// py::class_::def does: pybind11 converts the arguments (`extra` as
// py::class_::def takes them: py::arg, py::kw_only, a docstring); the first
// parameter receives the instance, by a caster of objects.h.
template <typename Func, typename... Extra>
void def_method(py::handle type, const char* name, Func&& f, const Extra&... extra) {
  py::cpp_function method(std::forward<Func>(f), py::name(name), py::is_method(type),
                          py::sibling(py::getattr(type, name, py::none())), extra...);
  py::setattr(type, name, method);
}

// Attaches a read-only property computed by `getter(self)`.
template <typename Getter>
void def_property(py::handle type, const char* name, Getter&& getter, const char* doc) {
  py::cpp_function fget(std::forward<Getter>(getter), py::is_method(type));
  py::object property = py::module_::import("builtins").attr("property");
  py::setattr(type, name, property(fget, py::none(), py::none(), doc));
}

}  // namespace ordo::python
