#include "state.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <utility>

#include "bindings.h"
#include "bytes_arg.h"
#include "errors.h"
#include "ordo/assert.h"

namespace ordo::python {
namespace {

std::atomic<uint64_t> forks{0};

void count_fork_in_child() { forks.fetch_add(1, std::memory_order_relaxed); }

// The exporter behind a memoryview of a read txn's key or value: points into
// the database mapping and holds the txn's keeper (a capsule owning a
// reference to the Database), so the mapping stays while any view of it
// exists, even past the txn: a view that could not be released at the txn's
// end (it had exports of its own) reads mapped memory, never unmapped
// memory. A plain C type: one allocation per value handed out.
struct MappedBytes {
  PyObject_HEAD const std::byte* data;
  Py_ssize_t size;
  PyObject* keeper;
};

PyTypeObject* mapped_bytes_type = nullptr;  // made once by init_views, kept for the process

int mapped_bytes_getbuffer(PyObject* self, Py_buffer* view, int flags) {
  auto* b = reinterpret_cast<MappedBytes*>(self);
  return PyBuffer_FillInfo(view, self, const_cast<std::byte*>(b->data), b->size,
                           /*readonly=*/1, flags);
}

void mapped_bytes_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  Py_XDECREF(reinterpret_cast<MappedBytes*>(self)->keeper);
  type->tp_free(self);
  Py_DECREF(type);  // a heap type's instances hold a reference to it
}

}  // namespace

void install_fork_handler() {
  static const int installed = pthread_atfork(nullptr, nullptr, count_fork_in_child);
  if (installed != 0) throw std::runtime_error("pthread_atfork failed");
}

uint64_t fork_generation() { return forks.load(std::memory_order_relaxed); }

void init_views(py::module_& m) {
  static PyType_Slot slots[] = {
      {Py_bf_getbuffer, reinterpret_cast<void*>(mapped_bytes_getbuffer)},
      {Py_tp_dealloc, reinterpret_cast<void*>(mapped_bytes_dealloc)},
      {Py_tp_doc, const_cast<char*>("Bytes of a read txn's snapshot, exported to memoryviews.")},
      {0, nullptr},
  };
  static PyType_Spec spec = {"ordo._ordo._MappedBytes", sizeof(MappedBytes), 0, Py_TPFLAGS_DEFAULT,
                             slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (type == nullptr) throw py::error_already_set();
  mapped_bytes_type = reinterpret_cast<PyTypeObject*>(type);
  m.attr("_MappedBytes") = py::handle(type);
}

DbUse::~DbUse() {
  if (db_.use_count() == 1) {
    py::gil_scoped_release nogil;
    db_.reset();
  }
}

DbUse DbState::open_db() {
  if (fork_generation != python::fork_generation()) {
    throw_error("InvalidArgumentError",
                "the database was opened before a fork: open it again in the child process");
  }
  if (!db) throw_error("ClosedError", "the database was closed");
  return DbUse(db);
}

void DbState::track(const std::shared_ptr<TxnState>& txn) {
  if (txns.size() >= 32) {
    std::erase_if(txns, [](const std::weak_ptr<TxnState>& w) { return w.expired(); });
  }
  txns.push_back(txn);
}

void DbState::close() {
  std::vector<std::weak_ptr<TxnState>> open = std::move(txns);
  txns.clear();
  for (const auto& weak : open) {
    if (std::shared_ptr<TxnState> t = weak.lock()) {
      if (t->busy) {
        t->end_requested = true;  // ended by its TxnCall when the call returns
      } else {
        t->abort_quietly("the database was closed");
      }
    }
  }
  trees.clear();
  std::shared_ptr<Database> last = std::move(db);
  db.reset();
  // Closing may checkpoint (a write and two syncs) when no txn holds the file.
  py::gil_scoped_release nogil;
  last.reset();
}

TxnState::~TxnState() { abort_quietly("the txn was destroyed"); }

void TxnState::release_views() {
  std::vector<py::weakref> old = std::move(views);
  views.clear();
  for (py::weakref& weak : old) {
    PyObject* view = PyWeakref_GetObject(weak.ptr());
    if (view == nullptr || view == Py_None) continue;
    // BufferError when the view has exports of its own: it then stays readable.
    PyObject* r = PyObject_CallMethod(view, "release", nullptr);
    if (r == nullptr) {
      PyErr_Clear();
    } else {
      Py_DECREF(r);
    }
  }
  views_compact_at = 64;
}

void TxnState::end(bool commit, const std::string& why) {
  ORDO_ASSERT(txn != nullptr);
  release_views();
  // Marked ended before the GIL is released: a call from another thread
  // meanwhile (this may be close() ending an idle txn) sees an ended txn.
  Txn* const t = txn;
  WriteTxn* const w = writer;
  std::unique_ptr<ReadTxn> r = std::move(read);
  std::unique_ptr<WriteTxn> owned = std::move(write_owned);
  std::shared_ptr<Database> keep = std::move(database);
  txn = nullptr;
  writer = nullptr;
  ended_why = why;
  Status status;
  if (!lent) {
    py::gil_scoped_release nogil;
    if (commit) {
      status = w->commit();
    } else {
      t->abort();
    }
    r.reset();
    owned.reset();
    keep.reset();  // the last reference when the database was closed: closes the file
  }
  if (!status.is_ok()) throw_status(status);
}

void TxnState::abort_quietly(const std::string& why) noexcept {
  if (txn == nullptr) return;
  try {
    end(false, why);
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("ordo: ending a txn");
  } catch (...) {
  }
  txn = nullptr;
  writer = nullptr;
}

py::object TxnState::value(ByteView bytes) {
  if (!buffers) return py::bytes(bytes.char_data(), bytes.size());
  if (!keeper) {
    keeper = py::capsule(new std::shared_ptr<Database>(db->db),
                         [](void* p) { delete static_cast<std::shared_ptr<Database>*>(p); });
  }
  auto* b = PyObject_New(MappedBytes, mapped_bytes_type);
  if (b == nullptr) throw py::error_already_set();
  b->data = bytes.data();
  b->size = static_cast<Py_ssize_t>(bytes.size());
  b->keeper = py::object(keeper).release().ptr();
  py::object exporter = py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(b));
  PyObject* view = PyMemoryView_FromObject(exporter.ptr());
  if (view == nullptr) throw py::error_already_set();
  py::object result = py::reinterpret_steal<py::object>(view);
  if (views.size() >= views_compact_at) {
    std::erase_if(views, [](const py::weakref& w) {
      PyObject* v = PyWeakref_GetObject(w.ptr());
      return v == nullptr || v == Py_None;
    });
    views_compact_at = std::max<size_t>(64, 2 * views.size());
  }
  views.emplace_back(result);
  return result;
}

TxnCall::TxnCall(TxnState& state) : state_(state) {
  if (state.txn == nullptr) throw_error("TxnEndedError", state.ended_why);
  if (state.db->fork_generation != fork_generation()) {
    throw_error("InvalidArgumentError",
                "the txn was begun before a fork: open the database again in the child process");
  }
  if (state.busy) {
    throw_error("BusyError",
                "the txn is in another call (a txn is used by one thread at a time; put_many's "
                "iterable may not use its txn)");
  }
  state.busy = true;
  ORDO_ASSERT(state.txn != nullptr && (state.writer == nullptr) == !state.write);
}

TxnCall::~TxnCall() {
  ORDO_ASSERT(state_.busy);  // set by this call; no other call could enter meanwhile
  state_.busy = false;
  if (state_.end_requested) {
    state_.end_requested = false;
    state_.abort_quietly("the database was closed");
  }
}

WriteTxn& TxnCall::writer(const char* what) {
  if (state_.writer == nullptr) {
    throw_error("InvalidArgumentError",
                std::string(what) + " needs a write txn (db.write()), this is a read txn");
  }
  return *state_.writer;
}

bool resolve_tree(TxnCall& call, py::handle tree, Tree* out) {
  if (tree.is_none()) {
    *out = Tree();
    return true;
  }
  if (py::isinstance<PyTree>(tree)) {
    *out = tree.cast<PyTree&>().tree;
    return true;
  }
  std::string name = name_arg(tree);
  auto& cache = call.state().db->trees;
  if (auto it = cache.find(name); it != cache.end()) {
    *out = it->second;
    return true;
  }
  Result<Tree> found = [&] {
    py::gil_scoped_release nogil;
    return call.txn().open_tree(name);
  }();
  if (!found.is_ok()) {
    if (found.status().is_not_found()) return false;
    throw_status(found.status());
  }
  cache.emplace(std::move(name), *found);
  *out = *found;
  return true;
}

Tree require_tree(TxnCall& call, py::handle tree) {
  Tree t;
  if (!resolve_tree(call, tree, &t)) {
    throw_error("NotFoundError", "no tree named " + py::repr(tree).cast<std::string>());
  }
  return t;
}

}  // namespace ordo::python
