// The native Python objects of ordo.Database, ordo.Tree and ordo.Txn
// (native.h says why they are native), and the pybind11 casters that let
// pybind11 functions take and return them: DbState& / DbPtr, TxnState& /
// TxnPtr, PyTree. Include this header (bindings.h does) in every file that
// converts one of these between C++ and Python.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "state.h"

namespace ordo::python {

namespace py = pybind11;

using DbPtr = std::shared_ptr<DbState>;
using TxnPtr = std::shared_ptr<TxnState>;

// The types, made by init_database (Database, Tree) and init_txn (Txn), kept
// for the process by the module.
extern PyTypeObject* database_type;
extern PyTypeObject* tree_type;
extern PyTypeObject* txn_type;

struct DbObject {
  PyObject_HEAD DbPtr state;
  PyObject* weakrefs;
};

struct TreeObject {
  PyObject_HEAD Tree tree;
};

struct TxnObject {
  PyObject_HEAD TxnPtr state;
  PyObject* weakrefs;
};

// The state behind an object of the type, or null for an object of another
// type (no Python error set).
inline DbObject* as_database(PyObject* o) {
  return Py_TYPE(o) == database_type ? reinterpret_cast<DbObject*>(o) : nullptr;
}
inline TreeObject* as_tree(PyObject* o) {
  return Py_TYPE(o) == tree_type ? reinterpret_cast<TreeObject*>(o) : nullptr;
}
inline TxnObject* as_txn(PyObject* o) {
  return Py_TYPE(o) == txn_type ? reinterpret_cast<TxnObject*>(o) : nullptr;
}

// New objects holding `state` / `tree`.
py::object new_database_object(DbPtr state);
py::object new_tree_object(const Tree& tree);
py::object new_txn_object(TxnPtr state);

}  // namespace ordo::python

namespace pybind11::detail {

// pybind11 arguments and results of the native types: a caster of the
// shared_ptr an object holds (taken as an argument, or made into a new
// object as a result), and one of a reference to the state it points to.
template <typename Object, Object* (*As)(PyObject*), object (*New)(decltype(Object::state))>
class native_holder_caster {
 public:
  using Holder = decltype(Object::state);
  bool load(handle src, bool) {
    Object* o = As(src.ptr());
    if (o != nullptr) value = o->state;
    return o != nullptr;
  }
  static handle cast(const Holder& src, return_value_policy, handle) { return New(src).release(); }
  template <typename>
  using cast_op_type = Holder&;
  operator Holder&() { return value; }  // NOLINT(google-explicit-constructor)

 protected:
  Holder value;
};

template <typename Object, Object* (*As)(PyObject*)>
class native_state_caster {
 public:
  using State = typename decltype(Object::state)::element_type;
  bool load(handle src, bool) {
    Object* o = As(src.ptr());
    state_ = o == nullptr ? nullptr : o->state.get();
    return state_ != nullptr;
  }
  template <typename>
  using cast_op_type = State&;
  operator State&() { return *state_; }  // NOLINT(google-explicit-constructor)

 private:
  State* state_ = nullptr;
};

template <>
class type_caster<ordo::python::DbPtr>
    : public native_holder_caster<ordo::python::DbObject, ordo::python::as_database,
                                  ordo::python::new_database_object> {
 public:
  static constexpr auto name = const_name("ordo.Database");
};

template <>
class type_caster<ordo::python::DbState>
    : public native_state_caster<ordo::python::DbObject, ordo::python::as_database> {
 public:
  static constexpr auto name = const_name("ordo.Database");
};

template <>
class type_caster<ordo::python::TxnPtr>
    : public native_holder_caster<ordo::python::TxnObject, ordo::python::as_txn,
                                  ordo::python::new_txn_object> {
 public:
  static constexpr auto name = const_name("ordo.Txn");
};

template <>
class type_caster<ordo::python::TxnState>
    : public native_state_caster<ordo::python::TxnObject, ordo::python::as_txn> {
 public:
  static constexpr auto name = const_name("ordo.Txn");
};

template <>
class type_caster<ordo::python::PyTree> {
 public:
  PYBIND11_TYPE_CASTER(ordo::python::PyTree, const_name("ordo.Tree"));
  bool load(handle src, bool) {
    ordo::python::TreeObject* o = ordo::python::as_tree(src.ptr());
    if (o != nullptr) value.tree = o->tree;
    return o != nullptr;
  }
  static handle cast(const ordo::python::PyTree& src, return_value_policy, handle) {
    return ordo::python::new_tree_object(src.tree).release();
  }
};

}  // namespace pybind11::detail
