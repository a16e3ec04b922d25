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
// the database mapping and keeps the Database (so the mapping) alive while
// any view of it exists, even past the txn: a view that could not be released
// at the txn's end (it had exports of its own) reads mapped memory, never
// unmapped memory.
struct MappedBytes {
  const std::byte* data = nullptr;
  size_t size = 0;
  std::shared_ptr<Database> keep;
};

}  // namespace

void install_fork_handler() {
  static const int installed = pthread_atfork(nullptr, nullptr, count_fork_in_child);
  if (installed != 0) throw std::runtime_error("pthread_atfork failed");
}

uint64_t fork_generation() { return forks.load(std::memory_order_relaxed); }

void init_views(py::module_& m) {
  py::class_<MappedBytes>(m, "_MappedBytes", py::buffer_protocol(),
                          "Bytes of a read txn's snapshot, exported to memoryviews.")
      .def_buffer([](MappedBytes& b) {
        return py::buffer_info(const_cast<std::byte*>(b.data), 1, "B", 1,
                               {static_cast<py::ssize_t>(b.size)}, {py::ssize_t{1}},
                               /*readonly=*/true);
      });
}

Database& DbState::open_db() {
  if (fork_generation != python::fork_generation()) {
    throw_error("InvalidArgumentError",
                "the database was opened before a fork: open it again in the child process");
  }
  if (!db) throw_error("ClosedError", "the database was closed");
  return *db;
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
  Status status;
  if (!lent) {
    py::gil_scoped_release nogil;
    if (commit) {
      status = writer->commit();
    } else {
      txn->abort();
    }
    read.reset();
    write_owned.reset();
  }
  txn = nullptr;
  writer = nullptr;
  ended_why = why;
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
  py::object exporter = py::cast(MappedBytes{bytes.data(), bytes.size(), db->db});
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
}

TxnCall::~TxnCall() {
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
