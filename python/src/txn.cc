// ordo.Txn: reads, writes, trees, IDs, commit and abort.
#include <string>
#include <utility>

#include "bindings.h"
#include "bytes_arg.h"
#include "errors.h"
#include "reports.h"
#include "state.h"
#include "txn_parts.h"

namespace ordo::python {
namespace {

void check_status(const Status& s) {
  if (!s.is_ok()) throw_status(s);
}

// The value under `key`, or `missing` when absent (or its tree is).
py::object get(TxnState& s, py::handle key, py::object missing, py::handle tree) {
  TxnCall call(s);
  BytesArg k(key, "key");
  Tree t;
  if (!resolve_tree(call, tree, &t)) return missing;
  Result<ByteView> r = [&] {
    py::gil_scoped_release nogil;
    return call.txn().get(t, k.view());
  }();
  if (!r.is_ok()) {
    if (r.status().is_not_found()) return missing;
    throw_status(r.status());
  }
  return s.value(*r);
}

void put(TxnState& s, py::handle key, py::handle value, py::handle tree, bool append) {
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

bool del(TxnState& s, py::handle key, py::handle tree) {
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

PyTree create_tree(TxnState& s, py::handle name) {
  TxnCall call(s);
  WriteTxn& w = call.writer("create_tree");
  const std::string n = name_arg(name);
  Result<Tree> r = [&] {
    py::gil_scoped_release nogil;
    return w.create_tree(n);
  }();
  if (!r.is_ok()) throw_status(r.status());
  s.db->trees.insert_or_assign(n, *r);
  return PyTree{*r};
}

PyTree open_tree(TxnState& s, py::handle name) {
  TxnCall call(s);
  const std::string n = name_arg(name);
  Result<Tree> r = [&] {
    py::gil_scoped_release nogil;
    return call.txn().open_tree(n);
  }();
  if (!r.is_ok()) throw_status(r.status().with_context("tree '" + n + "'"));
  s.db->trees.insert_or_assign(n, *r);
  return PyTree{*r};
}

void end(TxnState& s, bool commit) {
  if (s.lent) {
    throw_error("InvalidArgumentError", "Database.batch commits or rolls back its txn itself");
  }
  if (!commit && s.txn == nullptr) return;  // abort of an ended txn: nothing to do
  TxnCall call(s);
  s.end(commit && s.write, commit ? "the txn was committed" : "the txn was aborted");
}

}  // namespace

void init_txn(py::module_& m) {
  py::class_<TxnState, TxnPtr>(
      m, "Txn",
      R"(A transaction, from Database.read() or Database.write(): a context manager
that commits on normal exit and aborts on an exception (a read txn just ends).
Used by one thread at a time: a call while another thread is in a call on it
raises BusyError. Every call after the txn ended raises TxnEndedError. The
`tree` argument of every method is None (the default tree), an ordo.Tree, or a
tree name (str or bytes).)")
      .def_property_readonly(
          "write", [](const TxnState& s) { return s.write; }, "True for a write txn.")
      .def_property_readonly(
          "buffers", [](const TxnState& s) { return s.buffers; },
          "True when keys and values come as memoryviews.")
      .def_property_readonly(
          "live", [](const TxnState& s) { return s.txn != nullptr && s.txn->live(); },
          "True until the txn is committed or aborted (False while reset).")
      .def_property_readonly(
          "id", [](const TxnState& s) { return s.txn == nullptr ? 0 : s.txn->txn_id(); },
          "The txn id of the snapshot read (a write txn: the id it commits as); 0 once ended.")
      .def("get", &get, py::arg("key"), py::arg("default") = py::none(),
           py::arg("tree") = py::none(),
           "The value stored under key (bytes, or a memoryview with buffers=True), or "
           "`default` when the key or the tree is absent.")
      .def(
          "__getitem__",
          [](TxnState& s, py::handle key) {
            py::object sentinel = py::reinterpret_borrow<py::object>(Py_Ellipsis);
            py::object v = get(s, key, sentinel, py::none());
            if (v.is(sentinel)) {
              PyErr_SetObject(PyExc_KeyError, key.ptr());
              throw py::error_already_set();
            }
            return v;
          },
          "txn[key]: the value in the default tree; KeyError when absent.")
      .def(
          "__contains__",
          [](TxnState& s, py::handle key) {
            py::object sentinel = py::reinterpret_borrow<py::object>(Py_Ellipsis);
            return !get(s, key, sentinel, py::none()).is(sentinel);
          },
          "key in txn: whether the default tree holds key.")
      .def(
          "put",
          [](TxnState& s, py::handle k, py::handle v, py::handle tree) {
            put(s, k, v, tree, false);
          },
          py::arg("key"), py::arg("value"), py::arg("tree") = py::none(),
          "Inserts or overwrites. InvalidArgumentError for an oversized key or value; "
          "NotFoundError for a tree that does not exist.")
      .def(
          "__setitem__",
          [](TxnState& s, py::handle k, py::handle v) { put(s, k, v, py::none(), false); },
          "txn[key] = value: put in the default tree.")
      .def(
          "append",
          [](TxnState& s, py::handle k, py::handle v, py::handle tree) {
            put(s, k, v, tree, true);
          },
          py::arg("key"), py::arg("value"), py::arg("tree") = py::none(),
          "Bulk load: puts key, which must sort after every key in the tree "
          "(InvalidArgumentError otherwise), filling pages bottom-up.")
      .def("delete", &del, py::arg("key"), py::arg("tree") = py::none(),
           "Removes key; returns True when it was there, False when absent.")
      .def(
          "__delitem__",
          [](TxnState& s, py::handle key) {
            if (!del(s, key, py::none())) {
              PyErr_SetObject(PyExc_KeyError, key.ptr());
              throw py::error_already_set();
            }
          },
          "del txn[key]: KeyError when absent.")
      .def("delete_range", &del_range, py::arg("start") = py::none(), py::arg("stop") = py::none(),
           py::arg("tree") = py::none(),
           "Removes every key in [start, stop) (start None: from the first key, stop None: "
           "to the last) and returns how many.")
      .def("create_tree", &create_tree, py::arg("name"),
           "Creates the named tree, or opens it if it exists; returns its ordo.Tree.")
      .def("open_tree", &open_tree, py::arg("name"),
           "The ordo.Tree of the named tree; NotFoundError when it does not exist.")
      .def(
          "drop_tree",
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
          py::arg("name"), "Removes the named tree and all its entries; NotFoundError when absent.")
      .def(
          "rename_tree",
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
          "Renames a tree; NotFoundError when old is absent, InvalidArgumentError when new exists.")
      .def(
          "list_trees",
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
          "The names of the named trees (bytes), in byte order.")
      .def(
          "tree_stats",
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
          "The shape of a tree as a dict (entries, depth, pages, fill), from a walk of it.")
      .def(
          "next_id",
          [](TxnState& s) {
            TxnCall call(s);
            Result<Uuid> r = call.writer("next_id").next_id();
            if (!r.is_ok()) throw_status(r.status());
            return uuid_object(*r);
          },
          "A time-ordered UUIDv7 (uuid.UUID), greater than every ID this database issued; "
          ".bytes is the 16-byte key.")
      .def(
          "next_id64",
          [](TxnState& s) {
            TxnCall call(s);
            Result<Id64> r = call.writer("next_id64").next_id64();
            if (!r.is_ok()) throw_status(r.status());
            return r->value;
          },
          "A time-ordered 64-bit ID (int), same rules as next_id.")
      .def(
          "cursor", [](const TxnPtr& s, py::handle tree) { return make_cursor(s, tree); },
          py::arg("tree") = py::none(), "An ordo.Cursor over a tree, not yet positioned.")
      .def(
          "range",
          [](const TxnPtr& s, py::handle start, py::handle stop, py::handle tree) {
            return make_range(s, start, stop, tree);
          },
          py::arg("start") = py::none(), py::arg("stop") = py::none(), py::arg("tree") = py::none(),
          "An iterator of (key, value) over [start, stop) in key order (None: unbounded).")
      .def(
          "prefix",
          [](const TxnPtr& s, py::handle prefix, py::handle tree) {
            return make_prefix(s, prefix, tree);
          },
          py::arg("prefix"), py::arg("tree") = py::none(),
          "An iterator of (key, value) over the keys that start with prefix.")
      .def(
          "put_many",
          [](TxnState& s, py::handle items, py::handle tree, bool append) {
            return put_many(s, items, tree, append);
          },
          py::arg("items"), py::arg("tree") = py::none(), py::kw_only(), py::arg("append") = false,
          R"(Puts every (key, value) of an iterable and returns how many. The items are
read in chunks with the GIL held and each chunk inserted with it released (no
Python call per row). append=True appends (keys must come in increasing order,
after the tree's last key). On an error the rows before the failing one are in
the txn; the exception names the row.)")
      .def(
          "put_columns",
          [](TxnState& s, py::handle keys, py::handle values, py::handle offsets,
             const py::object& key_width, py::handle tree, bool append) {
            return put_columns(s, keys, values, offsets, key_width, tree, append);
          },
          py::arg("keys"), py::arg("values"), py::arg("value_offsets"), py::kw_only(),
          py::arg("key_width") = py::none(), py::arg("tree") = py::none(),
          py::arg("append") = false,
          R"(Columnar ingest, with the GIL released for the whole insert: row i has key
keys[i] (a 2-D uint8 array of shape (n, width), or any buffer of n * key_width
bytes with key_width given) and value values[value_offsets[i]:value_offsets[i+1]]
(values: any buffer; value_offsets: n + 1 int64, int32 or uint32 offsets,
Arrow-style). Returns n.)")
      .def(
          "scan_columns",
          [](const TxnPtr& s, py::handle start, py::handle stop, py::handle tree,
             uint64_t batch_bytes) { return scan_columns(s, start, stop, tree, batch_bytes); },
          py::arg("start") = py::none(), py::arg("stop") = py::none(), py::kw_only(),
          py::arg("tree") = py::none(), py::arg("batch_bytes") = uint64_t{1} << 20,
          R"(An iterator of ordo.ColumnBatch over [start, stop): each batch holds the keys
and values of up to about batch_bytes of entries, as one buffer per column plus
int64 offsets (numpy arrays when numpy is installed, else memoryviews); no
Python object per row.)")
      .def(
          "commit", [](TxnState& s) { end(s, true); },
          "Commits a write txn (durable when it returns); ends a read txn. The txn ends "
          "whatever the outcome.")
      .def(
          "abort", [](TxnState& s) { end(s, false); },
          "Discards a write txn's changes, or ends a read txn. Nothing on an ended txn.")
      .def(
          "reset",
          [](TxnState& s) {
            TxnCall call(s);
            if (s.read == nullptr) throw_error("InvalidArgumentError", "reset() is for read txns");
            s.release_views();
            py::gil_scoped_release nogil;
            s.read->reset();
          },
          "Read txns: ends the snapshot (memoryviews released) but keeps the txn for renew().")
      .def(
          "renew",
          [](TxnState& s) {
            TxnCall call(s);
            if (s.read == nullptr) throw_error("InvalidArgumentError", "renew() is for read txns");
            s.release_views();
            Status st;
            {
              py::gil_scoped_release nogil;
              st = s.read->renew();
            }
            check_status(st);
          },
          "Read txns: takes a snapshot of the last commit again (after reset(), or to move "
          "to the newest).")
      .def("__enter__", [](const TxnPtr& s) { return s; })
      .def("__exit__",
           [](TxnState& s, const py::object& type, const py::object&, const py::object&) {
             if (s.txn != nullptr && !s.lent) end(s, type.is_none());
             return false;
           })
      .def("__repr__", [](const TxnState& s) {
        return std::string("<ordo.Txn ") + (s.write ? "write" : "read") +
               (s.txn == nullptr ? " ended" : "") + ">";
      });
}

}  // namespace ordo::python
