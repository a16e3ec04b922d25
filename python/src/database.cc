// ordo.open, ordo.Database and ordo.Tree.
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
#include "reports.h"
#include "state.h"

namespace ordo::python {
namespace {

using DbPtr = std::shared_ptr<DbState>;
using TxnPtr = std::shared_ptr<TxnState>;

DbPtr open_database(py::handle path, const py::kwargs& kwargs) {
  Options options = options_from_kwargs(kwargs);
  auto state = std::make_shared<DbState>();
  state->path = path_arg(path);
  state->fork_generation = fork_generation();
  Result<std::unique_ptr<Database>> db = [&] {
    py::gil_scoped_release nogil;
    return Database::open(state->path, options);
  }();
  if (!db.is_ok()) throw_status(db.status().with_context(state->path));
  state->db = std::shared_ptr<Database>(std::move(*db));
  return state;
}

// `at`: a held snapshot's txn id (Database::begin_read_at), or none for the last commit.
TxnPtr begin_read(const DbPtr& d, bool buffers, std::optional<uint64_t> at = std::nullopt) {
  DbUse db = d->open_db();
  Result<ReadTxn> r = [&] {
    py::gil_scoped_release nogil;
    return at ? db->begin_read_at(*at) : db->begin_read();
  }();
  if (!r.is_ok()) throw_status(r.status());
  if (!d->db) throw_error("ClosedError", "the database was closed");  // by another thread meanwhile
  auto t = std::make_shared<TxnState>();
  t->db = d;
  t->database = db.shared();
  t->read = std::make_unique<ReadTxn>(std::move(*r));
  t->txn = t->read.get();
  t->buffers = buffers;
  d->track(t);
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
  auto t = std::make_shared<TxnState>();
  t->db = d;
  t->database = db.shared();
  t->write_owned = std::make_unique<WriteTxn>(std::move(*w));
  t->writer = t->write_owned.get();
  t->txn = t->writer;
  t->write = true;
  d->track(t);
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
    auto t = std::make_shared<TxnState>();
    t->db = d;
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
  Status s;
  {
    py::gil_scoped_release nogil;
    s = db->batch(member);
  }
  if (raised) std::rethrow_exception(raised);
  if (!s.is_ok()) throw_status(s);
  return result;
}

PyTree tree(const DbPtr& d, const py::object& name_object, bool create) {
  const std::string name = name_arg(name_object);
  DbUse db = d->open_db();
  Result<Tree> t = Status::invalid_argument("unset");
  if (create) {
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
  d->trees.insert_or_assign(name, *t);
  return PyTree{*t};
}

py::dict check(const DbPtr& d, bool strict) {
  DbUse db = d->open_db();
  Result<CheckReport> report = Status::invalid_argument("unset");
  {
    py::gil_scoped_release nogil;
    Result<ReadTxn> r = db->begin_read();
    report = r.is_ok() ? r->check() : Result<CheckReport>(r.status());
  }
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

}  // namespace

void init_database(py::module_& m) {
  py::class_<PyTree>(m, "Tree",
                     "A tree handle, from Database.tree(), Txn.create_tree() or Txn.open_tree(); "
                     "valid in any later txn of the database that made it.")
      .def_property_readonly(
          "name", [](const PyTree& t) { return py::bytes(t.tree.name()); },
          "The tree's name as bytes (b'' for the default tree).")
      .def("__repr__",
           [](const PyTree& t) {
             return "ordo.Tree(" + py::repr(py::bytes(t.tree.name())).cast<std::string>() + ")";
           })
      .def("__eq__",
           [](const PyTree& a, py::object b) {
             return py::isinstance<PyTree>(b) && a.tree.name() == b.cast<PyTree&>().tree.name();
           })
      .def("__hash__", [](const PyTree& t) { return py::hash(py::bytes(t.tree.name())); });

  py::class_<DbState, DbPtr>(m, "Database",
                             "An open database file, from ordo.open(). Thread-safe; a context "
                             "manager that closes it on exit.")
      .def_property_readonly(
          "path", [](const DbState& d) { return d.path; }, "The path it was opened with.")
      .def_property_readonly(
          "closed", [](const DbState& d) { return !d.db; }, "True once close() was called.")
      .def(
          "read",
          [](const DbPtr& d, bool buffers, std::optional<uint64_t> at) {
            return begin_read(d, buffers, at);
          },
          py::kw_only(), py::arg("buffers") = false, py::arg("at") = py::none(),
          R"(A read txn: a snapshot of the last commit (a context manager).

at=TXN: a snapshot of that held commit instead (a kept snapshot, or the
snapshot of a live read txn of this database); NotFoundError "snapshot N is
not held: ..." for any other txn id.

buffers=True: keys and values come as read-only memoryviews into the file's
mapping, valid until the txn ends or is reset (then released: using one raises
ValueError); False (default): bytes.)")
      .def(
          "write",
          [](const DbPtr& d, const py::object& timeout) { return begin_write(d, timeout); },
          py::kw_only(), py::arg("timeout") = py::none(),
          R"(The write txn (a context manager: commit on normal exit, abort on an exception).

Waits, with the GIL released, while another thread's write txn is open:
timeout=None waits for ever, 0 raises BusyError at once, else seconds.
BusyError at once when this thread holds the open write txn.)")
      .def(
          "begin",
          [](const DbPtr& d, bool write, bool buffers) {
            if (write && buffers) {
              throw_error("InvalidArgumentError",
                          "buffers=True is for read txns (a write txn's values move at its "
                          "next write)");
            }
            return write ? begin_write(d, py::none()) : begin_read(d, buffers);
          },
          py::kw_only(), py::arg("write") = false, py::arg("buffers") = false,
          "py-lmdb's spelling: begin(write=True) is write(), begin() is read().")
      .def("batch", &batch, py::arg("fn"),
           R"(Group commit: calls fn(txn) in a write txn shared with the batch() calls of
other threads, commits them together (one sync) and returns fn's return value
once the commit is durable. fn may be called more than once (after another
member failed, on a fresh txn): give it no effect outside the txn. It must not
commit or abort the txn. An exception fn raises rolls back its changes only
and is raised here.)")
      .def(
          "tree",
          [](const DbPtr& d, const py::object& name, bool create) { return tree(d, name, create); },
          py::arg("name"), py::kw_only(), py::arg("create") = true,
          R"(A handle of the named tree (str or bytes). create=True makes it when missing,
in a write txn of its own (so not while this thread holds the write txn);
create=False raises NotFoundError when missing.)")
      .def(
          "info",
          [](const DbPtr& d) {
            DbUse db = d->open_db();
            DatabaseInfo info;
            {
              py::gil_scoped_release nogil;
              info = db->info();
            }
            return info_dict(info);
          },
          "The state of the database as a dict: path, page size, file length, last txn, "
          "meta pages, log area, ID high-water marks, recovery.")
      .def(
          "stats", [](const DbPtr& d) { return stats_dict(d->open_db()->stats()); },
          "Counters since open as a dict: commits, pages and bytes written, syncs, ...")
      .def("check", &check, py::kw_only(), py::arg("strict") = true,
           R"(Checks the last commit whole (every page, checksum, key order, free pages) and
returns the report as a dict. strict=True (default): raises CorruptionError
when it found problems, with the report as its .report attribute.)")
      .def(
          "copy",
          [](const DbPtr& d, const py::object& path, bool compact, bool overwrite) {
            DbUse db = d->open_db();
            CopyOptions options;
            options.compact = compact;
            options.overwrite = overwrite;
            const std::string target = path_arg(path);
            Result<CopyResult> r = Status::invalid_argument("unset");
            {
              py::gil_scoped_release nogil;
              r = db->copy_to(target, options);
            }
            if (!r.is_ok()) throw_status(r.status());
            return copy_dict(*r);
          },
          py::arg("path"), py::kw_only(), py::arg("compact") = false, py::arg("overwrite") = false,
          R"(Writes a consistent copy of the last commit to a new file at path (atomically:
complete or absent); compact=True rewrites the trees densely. Returns a dict
(txn_id, pages, bytes, free_pages, trees, entries).)")
      .def(
          "checkpoint",
          [](const DbPtr& d) {
            DbUse db = d->open_db();
            Status s;
            {
              py::gil_scoped_release nogil;
              s = db->checkpoint();
            }
            if (!s.is_ok()) throw_status(s);
          },
          "Makes every commit durable and a checkpoint (after commits with sync_commits=False).")
      .def_property_readonly(
          "page_size_bytes", [](const DbPtr& d) { return d->open_db()->page_size_bytes(); },
          "The file's page size in bytes.")
      .def_property_readonly(
          "max_key_bytes", [](const DbPtr& d) { return d->open_db()->max_key_bytes(); },
          "The longest key (and tree name) in bytes.")
      .def_property_readonly(
          "max_value_bytes", [](const DbPtr& d) { return d->open_db()->max_value_bytes(); },
          "The longest value in bytes.")
      .def("close", &DbState::close,
           R"(Closes the database: every txn still open is aborted (one in a call in another
thread when that call returns) and its memoryviews released. The file is closed
once nothing uses it. Closing again does nothing.)")
      .def("__enter__", [](const DbPtr& d) { return d; })
      .def("__exit__",
           [](DbState& d, const py::object&, const py::object&, const py::object&) {
             d.close();
             return false;
           })
      .def("__repr__", [](const DbState& d) {
        return "<ordo.Database " + py::repr(py::str(d.path)).cast<std::string>() +
               (d.db ? "" : " closed") + ">";
      });

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
