// ordo.Txn: reads, writes, trees, IDs, commit and abort. A native type
// (native.h): the row calls (get, put, delete, replace, pop, txn[k], k in
// txn, cursor, range, commit, abort, the context manager) are METH_FASTCALL
// methods and slots; the others are pybind11 functions attached to it.

#include <string>
#include <utility>

#include "bindings.h"
#include "bytes_arg.h"
#include "errors.h"
#include "native.h"
#include "objects.h"
#include "reports.h"
#include "state.h"
#include "txn_parts.h"

namespace ordo::python {

PyTypeObject* txn_type = nullptr;

namespace {

TxnState& state_of(PyObject* self) { return *reinterpret_cast<TxnObject*>(self)->state; }

PyObject* or_none(PyObject* o) { return o == nullptr ? Py_None : o; }

// The value under `key` (a new reference), or `missing` when absent (or its
// tree is).
PyObject* get(TxnState& s, PyObject* key, PyObject* missing, PyObject* tree) {
  TxnCall call(s);
  BytesArg k(key, "key");
  Tree t;
  if (!resolve_tree(call, tree, &t)) return new_ref(missing);
  Result<ByteView> r = [&] {
    py::gil_scoped_release nogil;
    return call.txn().get(t, k.view());
  }();
  if (!r.is_ok()) {
    if (r.status().is_not_found()) return new_ref(missing);
    throw_status(r.status());
  }
  return s.value(*r);
}

void put(TxnState& s, PyObject* key, PyObject* value, PyObject* tree, bool append) {
  TxnCall call(s);
  WriteTxn& w = call.writer(append ? "append" : "put");
  BytesArg k(key, "key");
  BytesArg v(value, "value");
  Tree t = require_tree(call, tree);
  Status st;
  {
    py::gil_scoped_release nogil;
    st = append ? w.append(t, k.view(), v.view()) : w.put(t, k.view(), v.view());
  }
  check_status(st);
}

bool del(TxnState& s, PyObject* key, PyObject* tree) {
  TxnCall call(s);
  WriteTxn& w = call.writer("delete");
  BytesArg k(key, "key");
  Tree t;
  if (!resolve_tree(call, tree, &t)) return false;
  Status st;
  {
    py::gil_scoped_release nogil;
    st = w.del(t, k.view());
  }
  if (st.is_not_found()) return false;
  check_status(st);
  return true;
}

// Txn.replace: puts and returns the value the key held (bytes), or None.
PyObject* replace(TxnState& s, PyObject* key, PyObject* value, PyObject* tree) {
  TxnCall call(s);
  WriteTxn& w = call.writer("replace");
  BytesArg k(key, "key");
  BytesArg v(value, "value");
  Tree t = require_tree(call, tree);
  Result<std::optional<std::string>> r = [&] {
    py::gil_scoped_release nogil;
    return w.replace(t, k.view(), v.view());
  }();
  if (!r.is_ok()) throw_status(r.status());
  if (!r->has_value()) return new_ref(Py_None);
  return PyBytes_FromStringAndSize((*r)->data(), static_cast<Py_ssize_t>((*r)->size()));
}

// Txn.pop: removes the key and returns its value (bytes), or `missing`.
PyObject* pop(TxnState& s, PyObject* key, PyObject* missing, PyObject* tree) {
  TxnCall call(s);
  WriteTxn& w = call.writer("pop");
  BytesArg k(key, "key");
  Tree t;
  if (!resolve_tree(call, tree, &t)) return new_ref(missing);
  std::string old;
  Status st;
  {
    py::gil_scoped_release nogil;
    Result<ByteView> r = w.get(t, k.view());
    st = r.status();
    if (r.is_ok()) {
      old = r->str();  // the view ends at the next write
      st = w.del(t, k.view());
    }
  }
  if (st.is_not_found()) return new_ref(missing);
  check_status(st);
  return PyBytes_FromStringAndSize(old.data(), static_cast<Py_ssize_t>(old.size()));
}

uint64_t del_range(TxnState& s, py::handle start, py::handle stop, py::handle tree) {
  TxnCall call(s);
  WriteTxn& w = call.writer("delete_range");
  BytesArg from, to;
  if (!start.is_none()) from = BytesArg(start, "start");
  if (!stop.is_none()) to = BytesArg(stop, "stop");
  Tree t;
  if (!resolve_tree(call, tree, &t)) return 0;
  Result<uint64_t> r = [&] {
    py::gil_scoped_release nogil;
    const KeyRange range = stop.is_none() ? KeyRange::starting_at(from.view())
                                          : KeyRange::between(from.view(), to.view());
    return w.del_range(t, range);
  }();
  if (!r.is_ok()) throw_status(r.status());
  return *r;
}

py::object create_tree(TxnState& s, py::handle name) {
  TxnCall call(s);
  WriteTxn& w = call.writer("create_tree");
  const std::string n = name_arg(name);
  Result<Tree> r = [&] {
    py::gil_scoped_release nogil;
    return w.create_tree(n);
  }();
  if (!r.is_ok()) throw_status(r.status());
  return remember_tree(*s.db, *r, name.ptr());
}

py::object open_tree(TxnState& s, py::handle name) {
  TxnCall call(s);
  const std::string n = name_arg(name);
  Result<Tree> r = [&] {
    py::gil_scoped_release nogil;
    return call.txn().open_tree(n);
  }();
  if (!r.is_ok()) throw_status(r.status().with_context("tree '" + n + "'"));
  return remember_tree(*s.db, *r, name.ptr());
}

void end(TxnState& s, bool commit) {
  if (s.lent) {
    throw_error("InvalidArgumentError", "Database.batch commits or rolls back its txn itself");
  }
  if (!commit && s.txn == nullptr) return;  // abort of an ended txn: nothing to do
  TxnCall call(s);
  s.end(commit && s.write, commit ? "the txn was committed" : "the txn was aborted");
}

// --- the fast methods ---------------------------------------------------------

const Signature kGet("get", {"key", "default", "tree"}, 3, 1);
const Signature kPut("put", {"key", "value", "tree"}, 3, 2);
const Signature kDelete("delete", {"key", "tree"}, 2, 1);
const Signature kReplace("replace", {"key", "value", "tree"}, 3, 2);
const Signature kPop("pop", {"key", "default", "tree"}, 3, 1);
const Signature kCursor("cursor", {"tree"}, 1, 0);
const Signature kExit("__exit__", {"type", "value", "traceback"}, 3, 0);

PyObject* txn_get(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[3] = {};
    kGet.parse(args, nargs, kwnames, a);
    return get(state_of(self), a[0], or_none(a[1]), or_none(a[2]));
  });
}

PyObject* txn_put(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[3] = {};
    kPut.parse(args, nargs, kwnames, a);
    put(state_of(self), a[0], a[1], or_none(a[2]), false);
    return new_ref(Py_None);
  });
}

PyObject* txn_delete(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[2] = {};
    kDelete.parse(args, nargs, kwnames, a);
    return new_ref(del(state_of(self), a[0], or_none(a[1])) ? Py_True : Py_False);
  });
}

PyObject* txn_replace(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[3] = {};
    kReplace.parse(args, nargs, kwnames, a);
    return replace(state_of(self), a[0], a[1], or_none(a[2]));
  });
}

PyObject* txn_pop(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[3] = {};
    kPop.parse(args, nargs, kwnames, a);
    return pop(state_of(self), a[0], or_none(a[1]), or_none(a[2]));
  });
}

PyObject* txn_cursor(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[1] = {};
    kCursor.parse(args, nargs, kwnames, a);
    return make_cursor(reinterpret_cast<TxnObject*>(self)->state, or_none(a[0])).release().ptr();
  });
}

PyObject* txn_commit(PyObject* self, PyObject*) {
  return guard([&] {
    end(state_of(self), true);
    return new_ref(Py_None);
  });
}

PyObject* txn_abort(PyObject* self, PyObject*) {
  return guard([&] {
    end(state_of(self), false);
    return new_ref(Py_None);
  });
}

PyObject* txn_enter(PyObject* self, PyObject*) { return new_ref(self); }

PyObject* txn_exit(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[3] = {};
    kExit.parse(args, nargs, kwnames, a);
    TxnState& s = state_of(self);
    if (s.txn != nullptr && !s.lent) end(s, a[0] == nullptr || a[0] == Py_None);
    return new_ref(Py_False);
  });
}

// txn[key], key in txn, txn[key] = value, del txn[key]: the default tree.
PyObject* txn_subscript(PyObject* self, PyObject* key) {
  return guard([&]() -> PyObject* {
    // Values are bytes or memoryviews: the Ellipsis says the key is missing.
    PyObject* v = get(state_of(self), key, Py_Ellipsis, Py_None);
    if (v != Py_Ellipsis) return v;
    Py_DECREF(v);
    PyErr_SetObject(PyExc_KeyError, key);
    return nullptr;
  });
}

int txn_contains(PyObject* self, PyObject* key) {
  return guard_int([&] {
    // A missing key gives back the Ellipsis; a present one its value, dropped.
    PyObject* v = get(state_of(self), key, Py_Ellipsis, Py_None);
    if (v == nullptr) return -1;
    const bool found = v != Py_Ellipsis;
    Py_DECREF(v);
    return found ? 1 : 0;
  });
}

int txn_ass_subscript(PyObject* self, PyObject* key, PyObject* value) {
  return guard_int([&] {
    if (value != nullptr) {
      put(state_of(self), key, value, Py_None, false);
      return 0;
    }
    if (!del(state_of(self), key, Py_None)) {
      PyErr_SetObject(PyExc_KeyError, key);
      return -1;
    }
    return 0;
  });
}

PyObject* txn_repr(PyObject* self) {
  const TxnState& s = state_of(self);
  return PyUnicode_FromFormat("<ordo.Txn %s%s>", s.write ? "write" : "read",
                              s.txn == nullptr ? " ended" : "");
}

PyObject* get_write(PyObject* self, void*) { return PyBool_FromLong(state_of(self).write); }
PyObject* get_buffers(PyObject* self, void*) { return PyBool_FromLong(state_of(self).buffers); }
PyObject* get_live(PyObject* self, void*) {
  const TxnState& s = state_of(self);
  return PyBool_FromLong(s.txn != nullptr && s.txn->live());
}
PyObject* get_id(PyObject* self, void*) {
  const TxnState& s = state_of(self);
  return PyLong_FromUnsignedLongLong(s.txn == nullptr ? 0 : s.txn->txn_id());
}

void txn_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  auto* o = reinterpret_cast<TxnObject*>(self);
  if (o->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  drop_txn_state(std::move(o->state));  // ends the txn when nothing else uses it
  std::destroy_at(&o->state);
  type->tp_free(self);
  Py_DECREF(type);
}

PyMethodDef txn_methods[] = {
    {"get", fastcall(txn_get), kFastCall,
     "get(key, default=None, tree=None)\n--\n\nThe value stored under key (bytes, or a "
     "memoryview with buffers=True), or `default` when the key or the tree is absent."},
    {"put", fastcall(txn_put), kFastCall,
     "put(key, value, tree=None)\n--\n\nInserts or overwrites. InvalidArgumentError for an "
     "oversized key or value; NotFoundError for a tree that does not exist."},
    {"delete", fastcall(txn_delete), kFastCall,
     "delete(key, tree=None)\n--\n\nRemoves key; returns True when it was there, False when "
     "absent."},
    {"replace", fastcall(txn_replace), kFastCall,
     "replace(key, value, tree=None)\n--\n\nWrite txns: puts value under key and returns the "
     "value the key held before (bytes), or None when it was absent."},
    {"pop", fastcall(txn_pop), kFastCall,
     "pop(key, default=None, tree=None)\n--\n\nWrite txns: removes key and returns its value "
     "(bytes), or `default` when the key or the tree is absent."},
    {"cursor", fastcall(txn_cursor), kFastCall,
     "cursor(tree=None)\n--\n\nAn ordo.Cursor over a tree, not yet positioned (a context "
     "manager that closes it)."},
    {"range", fastcall(txn_range), kFastCall,
     "range(start=None, stop=None, tree=None, *, reverse=False, keys=True, values=True)\n--\n\n"
     "An iterator over [start, stop) in key order (None: unbounded), last key first with "
     "reverse=True: (key, value) pairs, or keys alone (values=False), or values alone "
     "(keys=False)."},
    {"prefix", fastcall(txn_prefix), kFastCall,
     "prefix(prefix, tree=None, *, reverse=False, keys=True, values=True)\n--\n\nAs range(), "
     "over the keys that start with prefix."},
    {"commit", txn_commit, METH_NOARGS,
     "Commits a write txn (durable when it returns); ends a read txn. The txn ends whatever the "
     "outcome."},
    {"abort", txn_abort, METH_NOARGS,
     "Discards a write txn's changes, or ends a read txn. Nothing on an ended txn."},
    {"__enter__", txn_enter, METH_NOARGS, nullptr},
    {"__exit__", fastcall(txn_exit), kFastCall,
     "Commits a write txn on normal exit, aborts it on an exception; ends a read txn."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef txn_getset[] = {
    {"write", get_write, nullptr, "True for a write txn.", nullptr},
    {"buffers", get_buffers, nullptr, "True when keys and values come as memoryviews.", nullptr},
    {"live", get_live, nullptr, "True until the txn is committed or aborted (False while reset).",
     nullptr},
    {"id", get_id, nullptr,
     "The txn id of the snapshot read (a write txn: the id it commits as); 0 once ended.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyMemberDef txn_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(TxnObject, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

}  // namespace

py::object new_txn_object(TxnPtr state) {
  return new_native<TxnObject, &TxnObject::state>(txn_type, std::move(state));
}

void init_txn(py::module_& m) {
  static PyType_Slot slots[] = {
      {Py_tp_doc, const_cast<char*>(
                      R"(A transaction, from Database.read() or Database.write(): a context manager
that commits on normal exit and aborts on an exception (a read txn just ends).
Used by one thread at a time: a call while another thread is in a call on it
raises BusyError. Every call after the txn ended raises TxnEndedError. The
`tree` argument of every method is None (the default tree), an ordo.Tree, or a
tree name (str or bytes).)")},
      {Py_tp_dealloc, reinterpret_cast<void*>(txn_dealloc)},
      {Py_tp_repr, reinterpret_cast<void*>(txn_repr)},
      {Py_tp_methods, txn_methods},
      {Py_tp_getset, txn_getset},
      {Py_tp_members, txn_members},
      {Py_mp_subscript, reinterpret_cast<void*>(txn_subscript)},
      {Py_mp_ass_subscript, reinterpret_cast<void*>(txn_ass_subscript)},
      {Py_sq_contains, reinterpret_cast<void*>(txn_contains)},
      {0, nullptr},
  };
  static PyType_Spec spec = {"ordo._ordo.Txn", sizeof(TxnObject), 0, Py_TPFLAGS_DEFAULT, slots};
  txn_type = make_type(m, &spec);
  py::handle cls(reinterpret_cast<PyObject*>(txn_type));

  def_method(
      cls, "append",
      [](TxnState& s, py::handle k, py::handle v, py::handle tree) {
        put(s, k.ptr(), v.ptr(), tree.ptr(), true);
      },
      py::arg("key"), py::arg("value"), py::arg("tree") = py::none(),
      "Bulk load: puts key, which must sort after every key in the tree "
      "(InvalidArgumentError otherwise), filling pages bottom-up.");
  def_method(cls, "delete_range", &del_range, py::arg("start") = py::none(),
             py::arg("stop") = py::none(), py::arg("tree") = py::none(),
             "Removes every key in [start, stop) (start None: from the first key, stop None: "
             "to the last) and returns how many.");
  def_method(cls, "create_tree", &create_tree, py::arg("name"),
             "Creates the named tree, or opens it if it exists; returns its ordo.Tree.");
  def_method(cls, "open_tree", &open_tree, py::arg("name"),
             "The ordo.Tree of the named tree; NotFoundError when it does not exist.");
  def_method(
      cls, "drop_tree",
      [](TxnState& s, py::handle name) {
        TxnCall call(s);
        WriteTxn& w = call.writer("drop_tree");
        const std::string n = name_arg(name);
        Status st;
        {
          py::gil_scoped_release nogil;
          st = w.drop_tree(n);
        }
        check_status(st.with_context("tree '" + n + "'"));
      },
      py::arg("name"), "Removes the named tree and all its entries; NotFoundError when absent.");
  def_method(
      cls, "rename_tree",
      [](TxnState& s, py::handle from, py::handle to) {
        TxnCall call(s);
        WriteTxn& w = call.writer("rename_tree");
        const std::string a = name_arg(from), b = name_arg(to);
        Status st;
        {
          py::gil_scoped_release nogil;
          st = w.rename_tree(a, b);
        }
        check_status(st);
      },
      py::arg("old"), py::arg("new"),
      "Renames a tree; NotFoundError when old is absent, InvalidArgumentError when new exists.");
  def_method(
      cls, "list_trees",
      [](TxnState& s) {
        TxnCall call(s);
        Result<std::vector<std::string>> r = [&] {
          py::gil_scoped_release nogil;
          return call.txn().list_trees();
        }();
        if (!r.is_ok()) throw_status(r.status());
        py::list names;
        for (const std::string& n : *r) names.append(py::bytes(n));
        return names;
      },
      "The names of the named trees (bytes), in byte order.");
  def_method(
      cls, "tree_stats",
      [](TxnState& s, py::handle tree) {
        TxnCall call(s);
        Tree t = require_tree(call, tree);
        Result<TreeStats> r = [&] {
          py::gil_scoped_release nogil;
          return call.txn().tree_stats(t);
        }();
        if (!r.is_ok()) throw_status(r.status());
        return tree_stats_dict(*r);
      },
      py::arg("tree") = py::none(),
      "The shape of a tree as a dict (entries, depth, pages, fill), from a walk of it.");
  def_method(
      cls, "next_id",
      [](TxnState& s) {
        TxnCall call(s);
        Result<Uuid> r = call.writer("next_id").next_id();
        if (!r.is_ok()) throw_status(r.status());
        return uuid_object(*r);
      },
      "A time-ordered UUIDv7 (uuid.UUID), greater than every ID this database issued; "
      ".bytes is the 16-byte key.");
  def_method(
      cls, "next_id64",
      [](TxnState& s) {
        TxnCall call(s);
        Result<Id64> r = call.writer("next_id64").next_id64();
        if (!r.is_ok()) throw_status(r.status());
        return r->value;
      },
      "A time-ordered 64-bit ID (int), same rules as next_id.");
  def_method(
      cls, "reset",
      [](TxnState& s) {
        TxnCall call(s);
        if (s.read == nullptr) throw_error("InvalidArgumentError", "reset() is for read txns");
        s.release_views();
        ++s.snapshot_serial;
        s.read->reset();  // a lock of the reader table
      },
      "Read txns: ends the snapshot (memoryviews released) but keeps the txn for renew().");
  def_method(
      cls, "renew",
      [](TxnState& s) {
        TxnCall call(s);
        if (s.read == nullptr) throw_error("InvalidArgumentError", "renew() is for read txns");
        s.release_views();
        ++s.snapshot_serial;
        Status st;
        {
          py::gil_scoped_release nogil;
          st = s.read->renew();
        }
        check_status(st);
      },
      "Read txns: takes a snapshot of the last commit again (after reset(), or to move "
      "to the newest).");
}

}  // namespace ordo::python
