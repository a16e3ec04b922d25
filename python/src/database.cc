// ordo.open, ordo.Database and ordo.Tree: native types (native.h); read(),
// begin(), write() and get() are METH_FASTCALL methods, the others pybind11
// functions attached to the type.
#include <pybind11/stl.h>

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "bindings.h"
#include "bytes_arg.h"
#include "errors.h"
#include "native.h"
#include "objects.h"
#include "reports.h"
#include "state.h"

namespace ordo::python {

PyTypeObject* database_type = nullptr;
PyTypeObject* tree_type = nullptr;

namespace {

DbPtr open_database(py::handle path, const py::kwargs& kwargs) {
  Options options = options_from_kwargs(kwargs);
  auto state = std::make_shared<DbState>();
  state->path = path_arg(path);
  state->fork_generation = fork_generation();
  state->read_only = options.read_only;
  Result<std::unique_ptr<Database>> db =
      without_gil([&] { return Database::open(state->path, options); });
  if (!db.is_ok()) throw_status(db.status().with_context(state->path));
  state->db = std::shared_ptr<Database>(std::move(*db));
  return state;
}

// `at`: a held snapshot's txn id (Database::begin_read_at), or none for the
// last commit (a spare read txn renewed when there is one).
TxnPtr begin_read(const DbPtr& d, bool buffers, std::optional<uint64_t> at = std::nullopt) {
  std::unique_ptr<ReadTxn> read;
  uint64_t commits = 0;
  if (at) {
    DbUse db = d->open_db();
    Result<ReadTxn> r = without_gil([&] { return db->begin_read_at(*at); });
    if (!r.is_ok()) throw_status(r.status());
    read = std::make_unique<ReadTxn>(std::move(*r));
  } else {
    d->open_db();  // raises when closed or in a forked child
    read = d->take_read(&commits);
  }
  if (!d->db) throw_error("ClosedError", "the database was closed");  // by another thread meanwhile
  TxnPtr t = new_txn_state(d);
  t->database = d->db;
  t->read = std::move(read);
  t->txn = t->read.get();
  t->buffers = buffers;
  t->spare = !at;
  t->read_commits = commits;
  return t;
}

TxnPtr begin_write(const DbPtr& d, const py::object& timeout) {
  DbUse db = d->open_db();
  std::optional<std::chrono::milliseconds> wait;
  if (!timeout.is_none()) {
    const double seconds = timeout.cast<double>();
    if (!(seconds >= 0)) throw py::value_error("write(): timeout must be >= 0 seconds or None");
    wait = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  }
  Result<WriteTxn> w = [&] {
    py::gil_scoped_release nogil;  // waits while another thread's write txn is open
    if (!wait) return db->begin_write();
    if (wait->count() == 0) return db->try_begin_write();
    return db->begin_write(*wait);
  }();
  if (!w.is_ok()) throw_status(w.status());
  if (!d->db) throw_error("ClosedError", "the database was closed");  // by another thread meanwhile
  d->reset_spare_reads();
  TxnPtr t = new_txn_state(d);
  t->database = db.shared();
  t->write_owned = std::make_unique<WriteTxn>(std::move(*w));
  t->writer = t->write_owned.get();
  t->txn = t->writer;
  t->write = true;
  return t;
}

py::object batch(const DbPtr& d, const py::object& fn) {
  DbUse db = d->open_db();
  if (!PyCallable_Check(fn.ptr())) throw py::type_error("batch(): fn must be callable");
  std::exception_ptr raised;
  py::object result = py::none();
  // Runs on the leading caller's thread, which may be another Python
  // thread's batch() call; it may run more than once (database.h, batch).
  BatchFn member = [&](WriteTxn& writer) -> Status {
    py::gil_scoped_acquire gil;
    d->reset_spare_reads();  // the spares read a snapshot before this group's commit
    TxnPtr t = new_txn_state(d);
    t->database = db.shared();
    t->writer = &writer;
    t->txn = &writer;
    t->write = true;
    t->lent = true;
    try {
      py::object r = fn(t);
      t->abort_quietly("the batch function returned");
      result = std::move(r);
      raised = nullptr;
      return Status::ok();
    } catch (...) {
      t->abort_quietly("the batch function returned");
      raised = std::current_exception();
      return Status::invalid_argument("the batch function raised");
    }
  };
  d->reset_spare_reads();
  Status s = without_gil([&] { return db->batch(member); });
  if (raised) std::rethrow_exception(raised);
  if (!s.is_ok()) throw_status(s);
  return result;
}

py::object tree(const DbPtr& d, const py::object& name_object, bool create) {
  const std::string name = name_arg(name_object);
  DbUse db = d->open_db();
  Result<Tree> t = Status::invalid_argument("unset");
  if (create) {
    d->reset_spare_reads();
    Status s;
    {
      py::gil_scoped_release nogil;
      Result<WriteTxn> w = db->begin_write();
      if (!w.is_ok()) {
        s = w.status();
      } else {
        t = w->create_tree(name);
        s = t.is_ok() ? w->commit() : t.status();
      }
    }
    if (!s.is_ok()) throw_status(s);
  } else {
    Status s;
    {
      py::gil_scoped_release nogil;
      Result<ReadTxn> r = db->begin_read();
      if (!r.is_ok()) {
        s = r.status();
      } else {
        t = r->open_tree(name);
        s = t.status();
      }
    }
    if (!s.is_ok()) throw_status(s.with_context("tree '" + name + "'"));
  }
  return remember_tree(*d, *t, name_object.ptr());
}

py::dict check(const DbPtr& d, bool strict) {
  DbUse db = d->open_db();
  Result<CheckReport> report = without_gil([&] {
    Result<ReadTxn> r = db->begin_read();
    return r.is_ok() ? r->check() : Result<CheckReport>(r.status());
  });
  if (!report.is_ok()) throw_status(report.status());
  py::dict dict = check_dict(*report);
  if (strict && !report->clean()) {
    const CheckProblem& first = report->problems.front();
    py::object cls = error_class("CorruptionError");
    py::object e =
        cls(std::to_string(report->problems.size()) + (report->truncated ? "+" : "") +
            " problem(s); first: page " + std::to_string(first.page_number) + ": " + first.what);
    e.attr("page") = first.page_number;
    e.attr("report") = dict;
    PyErr_SetObject(cls.ptr(), e.ptr());
    throw py::error_already_set();
  }
  return dict;
}

// Database.get: one read in a spare read txn, the value copied.
PyObject* get(DbState& d, PyObject* key, PyObject* missing, PyObject* tree) {
  d.open_db();  // raises when closed or in a forked child
  BytesArg k(key, "key");
  uint64_t commits = 0;
  std::unique_ptr<ReadTxn> read = d.take_read(&commits);
  // The txn goes back to the spares on every way out.
  struct GiveBack {
    DbState& d;
    std::unique_ptr<ReadTxn>& read;
    uint64_t commits;
    ~GiveBack() { d.give_read(std::move(read), commits); }
  } give_back{d, read, commits};
  Tree t;
  if (!resolve_tree(d, *read, tree, &t)) {
    Py_INCREF(missing);
    return missing;
  }
  Result<ByteView> r = without_gil([&] { return read->get(t, k.view()); });
  if (!r.is_ok()) {
    if (!r.status().is_not_found()) throw_status(r.status());
    Py_INCREF(missing);
    return missing;
  }
  return PyBytes_FromStringAndSize(r->char_data(), static_cast<Py_ssize_t>(r->size()));
}

std::optional<uint64_t> txn_id_arg(PyObject* at) {
  if (at == nullptr || at == Py_None) return std::nullopt;
  return py::handle(at).cast<uint64_t>();
}

const DbPtr& state_of(PyObject* self) { return reinterpret_cast<DbObject*>(self)->state; }

const Signature kRead("read", {"buffers", "at"}, 0, 0);
const Signature kBegin("begin", {"write", "buffers"}, 0, 0);
const Signature kWrite("write", {"timeout"}, 0, 0);
const Signature kGet("get", {"key", "default", "tree"}, 3, 1);

PyObject* db_read(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[2] = {};
    kRead.parse(args, nargs, kwnames, a);
    return new_txn_object(begin_read(state_of(self), bool_arg(a[0], false), txn_id_arg(a[1])))
        .release()
        .ptr();
  });
}

PyObject* db_begin(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[2] = {};
    kBegin.parse(args, nargs, kwnames, a);
    const bool write = bool_arg(a[0], false), buffers = bool_arg(a[1], false);
    if (write && buffers) {
      throw_error("InvalidArgumentError",
                  "buffers=True is for read txns (a write txn's values move at its next write)");
    }
    TxnPtr t =
        write ? begin_write(state_of(self), py::none()) : begin_read(state_of(self), buffers);
    return new_txn_object(std::move(t)).release().ptr();
  });
}

PyObject* db_write(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[1] = {};
    kWrite.parse(args, nargs, kwnames, a);
    py::object timeout = py::reinterpret_borrow<py::object>(a[0] == nullptr ? Py_None : a[0]);
    return new_txn_object(begin_write(state_of(self), timeout)).release().ptr();
  });
}

PyObject* db_get(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[3] = {};
    kGet.parse(args, nargs, kwnames, a);
    return get(*state_of(self), a[0], a[1] == nullptr ? Py_None : a[1],
               a[2] == nullptr ? Py_None : a[2]);
  });
}

PyObject* db_enter(PyObject* self, PyObject*) {
  Py_INCREF(self);
  return self;
}

PyObject* db_exit(PyObject* self, PyObject* const*, Py_ssize_t, PyObject*) {
  return guard([&] {
    state_of(self)->close();
    Py_INCREF(Py_False);
    return Py_False;
  });
}

PyObject* db_repr(PyObject* self) {
  return guard([&] {
    const DbState& d = *state_of(self);
    return py::str("<ordo.Database " + py::repr(py::str(d.path)).cast<std::string>() +
                   (d.db ? "" : " closed") + ">")
        .release()
        .ptr();
  });
}

PyMethodDef db_methods[] = {
    {"read", fastcall(db_read), kFastCall,
     R"(read(*, buffers=False, at=None)
--

A read txn: a snapshot of the last commit (a context manager). Read txns are
reused: one that ended is kept reset and renewed by the next read().

at=TXN: a snapshot of that held commit instead (a kept snapshot, or the
snapshot of a live read txn of this database); NotFoundError "snapshot N is
not held: ..." for any other txn id.

buffers=True: keys and values come as read-only memoryviews into the file's
mapping, valid until the txn ends or is reset (then released: using one raises
ValueError); False (default): bytes.)"},
    {"write", fastcall(db_write), kFastCall,
     R"(write(*, timeout=None)
--

The write txn (a context manager: commit on normal exit, abort on an exception).

Waits, with the GIL released, while another thread's write txn is open:
timeout=None waits for ever, 0 raises BusyError at once, else seconds.
BusyError at once when this thread holds the open write txn.)"},
    {"begin", fastcall(db_begin), kFastCall,
     "begin(*, write=False, buffers=False)\n--\n\npy-lmdb's spelling: begin(write=True) is "
     "write(), begin() is read()."},
    {"get", fastcall(db_get), kFastCall,
     "get(key, default=None, tree=None)\n--\n\nThe value stored under key in the last commit "
     "(bytes), or `default` when the key or the tree is absent: one read in a reused read "
     "txn, without a Txn object."},
    {"__enter__", db_enter, METH_NOARGS, nullptr},
    {"__exit__", fastcall(db_exit), kFastCall, "Closes the database."},
    {nullptr, nullptr, 0, nullptr},
};

PyMemberDef db_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(DbObject, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

// --- ordo.Tree --------------------------------------------------------------

const Tree& tree_of(PyObject* self) { return reinterpret_cast<TreeObject*>(self)->tree; }

PyObject* tree_name(PyObject* self, void*) {
  const std::string& name = tree_of(self).name();
  return PyBytes_FromStringAndSize(name.data(), static_cast<Py_ssize_t>(name.size()));
}

PyObject* tree_repr(PyObject* self) {
  return guard([&] {
    return py::str("ordo.Tree(" + py::repr(py::bytes(tree_of(self).name())).cast<std::string>() +
                   ")")
        .release()
        .ptr();
  });
}

Py_hash_t tree_hash(PyObject* self) {
  py::bytes name(tree_of(self).name());
  return PyObject_Hash(name.ptr());
}

PyObject* tree_richcompare(PyObject* self, PyObject* other, int op) {
  if ((op != Py_EQ && op != Py_NE) || as_tree(other) == nullptr) Py_RETURN_NOTIMPLEMENTED;
  const bool same = tree_of(self).name() == tree_of(other).name();
  return PyBool_FromLong(same == (op == Py_EQ));
}

PyGetSetDef tree_getset[] = {
    {"name", tree_name, nullptr, "The tree's name as bytes (b'' for the default tree).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

}  // namespace

py::object new_database_object(DbPtr state) {
  return new_native<DbObject, &DbObject::state>(database_type, std::move(state));
}

py::object new_tree_object(const Tree& tree) {
  return new_native<TreeObject, &TreeObject::tree>(tree_type, tree);
}

void init_database(py::module_& m) {
  static PyType_Slot tree_slots[] = {
      {Py_tp_doc,
       const_cast<char*>("A tree handle, from Database.tree(), Txn.create_tree() or "
                         "Txn.open_tree(); valid in any later txn of the database that made it.")},
      {Py_tp_dealloc, reinterpret_cast<void*>(dealloc_native<TreeObject, &TreeObject::tree>)},
      {Py_tp_repr, reinterpret_cast<void*>(tree_repr)},
      {Py_tp_hash, reinterpret_cast<void*>(tree_hash)},
      {Py_tp_richcompare, reinterpret_cast<void*>(tree_richcompare)},
      {Py_tp_getset, tree_getset},
      {0, nullptr},
  };
  static PyType_Spec tree_spec = {"ordo._ordo.Tree", sizeof(TreeObject), 0, Py_TPFLAGS_DEFAULT,
                                  tree_slots};
  tree_type = make_type(m, &tree_spec);

  static PyType_Slot db_slots[] = {
      {Py_tp_doc, const_cast<char*>("An open database file, from ordo.open(). Thread-safe; a "
                                    "context manager that closes it on exit.")},
      {Py_tp_dealloc, reinterpret_cast<void*>(dealloc_native<DbObject, &DbObject::state>)},
      {Py_tp_repr, reinterpret_cast<void*>(db_repr)},
      {Py_tp_methods, db_methods},
      {Py_tp_members, db_members},
      {0, nullptr},
  };
  static PyType_Spec db_spec = {"ordo._ordo.Database", sizeof(DbObject), 0, Py_TPFLAGS_DEFAULT,
                                db_slots};
  database_type = make_type(m, &db_spec);
  py::handle cls(reinterpret_cast<PyObject*>(database_type));

  def_property(
      cls, "path", [](const DbState& d) { return d.path; }, "The path it was opened with.");
  def_property(
      cls, "closed", [](const DbState& d) { return !d.db; }, "True once close() was called.");
  def_method(cls, "batch", &batch, py::arg("fn"),
             R"(Group commit: calls fn(txn) in a write txn shared with the batch() calls of
other threads, commits them together (one sync) and returns fn's return value
once the commit is durable. fn may be called more than once (after another
member failed, on a fresh txn): give it no effect outside the txn. It must not
commit or abort the txn. An exception fn raises rolls back its changes only
and is raised here.)");
  def_method(
      cls, "tree",
      [](const DbPtr& d, const py::object& name, bool create) { return tree(d, name, create); },
      py::arg("name"), py::kw_only(), py::arg("create") = true,
      R"(A handle of the named tree (str or bytes). create=True makes it when missing,
in a write txn of its own (so not while this thread holds the write txn);
create=False raises NotFoundError when missing.)");
  def_method(
      cls, "info",
      [](DbState& d) {
        DbUse db = d.open_db();
        return info_dict(without_gil([&] { return db->info(); }));
      },
      "The state of the database as a dict: path, page size, file length, last txn, "
      "meta pages, log area, ID high-water marks, recovery.");
  def_method(
      cls, "stats", [](DbState& d) { return stats_dict(d.open_db()->stats()); },
      "Counters since open as a dict: commits, pages and bytes written, syncs, ...");
  def_method(cls, "check", &check, py::kw_only(), py::arg("strict") = true,
             R"(Checks the last commit whole (every page, checksum, key order, free pages) and
returns the report as a dict. strict=True (default): raises CorruptionError
when it found problems, with the report as its .report attribute.)");
  def_method(
      cls, "copy",
      [](DbState& d, const py::object& path, bool compact, bool overwrite) {
        DbUse db = d.open_db();
        CopyOptions options;
        options.compact = compact;
        options.overwrite = overwrite;
        const std::string target = path_arg(path);
        Result<CopyResult> r = without_gil([&] { return db->copy_to(target, options); });
        if (!r.is_ok()) throw_status(r.status());
        return copy_dict(*r);
      },
      py::arg("path"), py::kw_only(), py::arg("compact") = false, py::arg("overwrite") = false,
      R"(Writes a consistent copy of the last commit to a new file at path (atomically:
complete or absent); compact=True rewrites the trees densely. Returns a dict
(txn_id, pages, bytes, free_pages, trees, entries).)");
  def_method(
      cls, "checkpoint",
      [](DbState& d) {
        DbUse db = d.open_db();
        const Status s = without_gil([&] { return db->checkpoint(); });
        if (!s.is_ok()) throw_status(s);
      },
      "Makes every commit durable and a checkpoint (after commits with sync_commits=False).");
  def_property(
      cls, "page_size_bytes", [](DbState& d) { return d.open_db()->page_size_bytes(); },
      "The file's page size in bytes.");
  def_property(
      cls, "max_key_bytes", [](DbState& d) { return d.open_db()->max_key_bytes(); },
      "The longest key (and tree name) in bytes.");
  def_property(
      cls, "max_value_bytes", [](DbState& d) { return d.open_db()->max_value_bytes(); },
      "The longest value in bytes.");
  def_method(
      cls, "close", [](DbState& d) { d.close(); },
      R"(Closes the database: every txn still open is aborted (one in a call in another
thread when that call returns) and its memoryviews released; the spare read
txns are ended. The file is closed once nothing uses it. Closing again does
nothing.)");

  m.def("open", &open_database, py::arg("path"),
        R"(Opens or creates the database file at path (str or os.PathLike) and returns an
ordo.Database. Keyword options are the fields of ordo::Options by name:
page_size_bytes, create_if_missing, writer_wait_ms, read_only, io_backend
('auto', 'uring', 'posix'), extent_bytes, max_extent_bytes, trim_on_close,
map_reserve_bytes, commit_protocol ('log', 'one_sync', 'two_sync'), log_bytes,
sync_commits, id_node, verify_checksums, txn_memory_budget_bytes,
run_reclaim_limit_pages, append_fill. An unknown name is a TypeError.
Raises BusyError when another handle has it open for writing, NotFoundError
when missing and not create_if_missing, NotOrdoFileError, CorruptionError, ...)");
}

}  // namespace ordo::python
