#include "state.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <utility>

#include "bindings.h"
#include "bytes_arg.h"
#include "errors.h"
#include "native.h"
#include "objects.h"
#include "ordo/assert.h"

namespace ordo::python {
namespace {

std::atomic<uint64_t> forks{0};

void count_fork_in_child() { forks.fetch_add(1, std::memory_order_relaxed); }

// The exporter behind the memoryviews of a read txn's keys and values: one
// per txn, whose managed buffer every view of the txn shares (each view
// pointed at its bytes in the database mapping, as a slice would be). It
// holds the txn's keeper (a capsule owning a reference to the Database), so
// the mapping stays while any view of it exists, even past the txn: a view
// that could not be released at the txn's end (it had exports of its own)
// reads mapped memory, never unmapped memory.
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

DbState::~DbState() {
  ORDO_ASSERT(txns == nullptr);  // each listed txn holds a reference to this state
  drop_spare_reads();
}

void TxnState::link() {
  ORDO_ASSERT(db != nullptr && prev_txn == nullptr && next_txn == nullptr && db->txns != this);
  next_txn = db->txns;
  if (next_txn != nullptr) next_txn->prev_txn = this;
  db->txns = this;
}

void TxnState::unlink() noexcept {
  if (db == nullptr) return;
  if (prev_txn != nullptr) {
    prev_txn->next_txn = next_txn;
  } else if (db->txns == this) {
    db->txns = next_txn;
  }
  if (next_txn != nullptr) next_txn->prev_txn = prev_txn;
  prev_txn = next_txn = nullptr;
}

std::shared_ptr<TxnState> new_txn_state(const std::shared_ptr<DbState>& db) {
  std::shared_ptr<TxnState> t;
  if (!db->spare_states.empty()) {
    t = std::move(db->spare_states.back());
    db->spare_states.pop_back();
  } else {
    t = std::make_shared<TxnState>();
  }
  t->db = db;
  t->link();
  return t;
}

void drop_txn_state(std::shared_ptr<TxnState>&& state) noexcept {
  std::shared_ptr<TxnState> t = std::move(state);
  if (t == nullptr || t.use_count() != 1) return;  // a cursor, scan or savepoint still uses it
  t->abort_quietly("the txn was destroyed");
  DbState* db = t->db.get();
  if (db == nullptr || !db->db || db->spare_states.size() >= DbState::kMaxSpares || t->lent ||
      t->busy || t->txn != nullptr) {
    return;  // destroyed here
  }
  ORDO_ASSERT(t->views.empty() && t->view_base == nullptr && t->retired_cursors.empty());
  t->unlink();
  std::shared_ptr<DbState> keep = std::move(t->db);  // the pool's state holds no database
  t->read.reset();
  t->write_owned.reset();
  t->writer = nullptr;
  t->write = t->buffers = t->lent = t->spare = t->end_requested = false;
  t->ended_why = TxnState::kNotEnded;
  t->views_sweep_at = 64;
  if (db->spare_states.capacity() == 0) db->spare_states.reserve(DbState::kMaxSpares);
  db->spare_states.push_back(std::move(t));  // within the capacity: no allocation
}

std::unique_ptr<ReadTxn> DbState::take_read(uint64_t* commits) {
  ORDO_ASSERT(db != nullptr);
  // Read before the snapshot is taken: a commit counted here is in it.
  *commits = read_only ? 0 : db->stats().commits;
  if (!spare_reads.empty()) {
    SpareRead spare = std::move(spare_reads.back());
    spare_reads.pop_back();
    if (spare.live && !read_only && spare.commits == *commits) return std::move(spare.txn);
    Status s;
    if (read_only) {
      // A read-only handle reads the newest meta from the file.
      py::gil_scoped_release nogil;
      s = spare.txn->renew();
    } else {
      s = spare.txn->renew();  // a lock of the reader table and a copy of the meta
    }
    if (s.is_ok()) return std::move(spare.txn);
    without_gil([&] { spare.txn.reset(); });
    throw_status(s);
  }
  DbUse use(db);  // the GIL is released: another thread may close meanwhile
  Result<ReadTxn> r = without_gil([&] { return use->begin_read(); });
  if (!r.is_ok()) throw_status(r.status());
  return std::make_unique<ReadTxn>(std::move(*r));
}

void DbState::give_read(std::unique_ptr<ReadTxn> txn, uint64_t commits) noexcept {
  ORDO_ASSERT(txn != nullptr);
  if (!db || spare_reads.size() >= kMaxSpares || fork_generation != python::fork_generation()) {
    without_gil([&] { txn.reset(); });
    return;
  }
  // Live only while its snapshot is still the last commit.
  const bool live = !read_only && db->stats().commits == commits;
  if (!live) txn->reset();                                           // a lock of the reader table
  if (spare_reads.capacity() == 0) spare_reads.reserve(kMaxSpares);  // noexcept below
  spare_reads.push_back(SpareRead{std::move(txn), commits, live});
}

void DbState::reset_spare_reads() noexcept {
  for (SpareRead& spare : spare_reads) {
    if (spare.live) spare.txn->reset();
    spare.live = false;
  }
}

void DbState::drop_spare_reads() noexcept {
  if (spare_reads.empty()) return;
  std::vector<SpareRead> spares = std::move(spare_reads);
  spare_reads.clear();
  without_gil([&] { spares.clear(); });
}

void DbState::close() {
  // References first: ending a txn may release the GIL, and another thread
  // may then destroy one (which takes it off the list).
  std::vector<std::shared_ptr<TxnState>> open;
  for (TxnState* t = txns; t != nullptr; t = t->next_txn) {
    if (std::shared_ptr<TxnState> owned = t->weak_from_this().lock()) open.push_back(owned);
  }
  for (const std::shared_ptr<TxnState>& t : open) {
    if (t->busy) {
      t->end_requested = true;  // ended by its TxnCall when the call returns
    } else {
      t->abort_quietly("the database was closed");
    }
  }
  trees.clear();
  spare_states.clear();
  std::shared_ptr<Database> last = std::move(db);
  db.reset();
  drop_spare_reads();
  // Closing may checkpoint (a write and two syncs) when no txn holds the file.
  py::gil_scoped_release nogil;
  last.reset();
}

TxnState::~TxnState() {
  unlink();  // first: close() in another thread must not see a txn being destroyed
  abort_quietly("the txn was destroyed");
  release_views();
  Py_CLEAR(view_base);
}

void TxnState::release_views() {
  if (views.empty()) return;
  // Called on paths that may hold a Python error (an exception leaving a
  // with block): kept aside while views are released.
  PyObject *type, *error, *trace;
  PyErr_Fetch(&type, &error, &trace);
  for (PyObject* view : views) {
    // Only this list references a view of count 1: dropping it is enough.
    if (Py_REFCNT(view) > 1) {
      // BufferError when the view has exports of its own: it then stays readable.
      PyObject* r = PyObject_CallMethod(view, "release", nullptr);
      if (r == nullptr) {
        PyErr_Clear();
      } else {
        Py_DECREF(r);
      }
    }
    Py_DECREF(view);
  }
  views.clear();
  views_sweep_at = 64;
  PyErr_Restore(type, error, trace);
}

void TxnState::sweep_views() noexcept {
  size_t kept = 0;
  for (PyObject* view : views) {
    if (Py_REFCNT(view) == 1) {
      Py_DECREF(view);
    } else {
      views[kept++] = view;
    }
  }
  views.resize(kept);
  views_sweep_at = std::max<size_t>(64, 2 * kept);
}

void TxnState::end(bool commit, const char* why) {
  ORDO_ASSERT(txn != nullptr);
  release_views();
  Py_CLEAR(view_base);
  retired_cursors.clear();
  ++snapshot_serial;
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
  if (lent) return;
  if (r != nullptr && spare && db->db) {
    db->give_read(std::move(r), read_commits);  // `keep` is not the last reference: db->db is
    return;
  }
  Status status;
  {
    py::gil_scoped_release nogil;
    if (commit && w != nullptr) {
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

void TxnState::abort_quietly(const char* why) noexcept {
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

PyObject* TxnState::value(ByteView bytes) {
  if (!buffers)
    return PyBytes_FromStringAndSize(bytes.char_data(), static_cast<Py_ssize_t>(bytes.size()));
  return new_view(bytes);
}

PyObject* TxnState::new_view(ByteView bytes) {
  if (view_base == nullptr) {
    py::capsule keeper(new std::shared_ptr<Database>(database),
                       [](void* p) { delete static_cast<std::shared_ptr<Database>*>(p); });
    auto* b = PyObject_New(MappedBytes, mapped_bytes_type);
    if (b == nullptr) return nullptr;
    static const std::byte kNoBytes{};
    b->data = &kNoBytes;
    b->size = 0;
    b->keeper = keeper.release().ptr();
    py::object exporter = py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(b));
    view_base = PyMemoryView_FromObject(exporter.ptr());
    if (view_base == nullptr) return nullptr;
  }
  // A view sharing the base's managed buffer (and so its exporter), pointed
  // at the bytes as a slice of it would be: one object per value.
  PyObject* view = PyMemoryView_FromObject(view_base);
  if (view == nullptr) return nullptr;
  Py_buffer* b = PyMemoryView_GET_BUFFER(view);
  ORDO_ASSERT(b->ndim == 1 && b->itemsize == 1 && b->strides[0] == 1 && b->readonly);
  b->buf = const_cast<std::byte*>(bytes.data());
  b->len = static_cast<Py_ssize_t>(bytes.size());
  b->shape[0] = b->len;
  if (views.size() >= views_sweep_at) sweep_views();
  views.push_back(view);
  Py_INCREF(view);  // the list's reference
  return view;
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
  state_.retired_cursors.clear();
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

py::object remember_tree(DbState& db, const Tree& tree, PyObject* name) {
  py::object object = new_tree_object(tree);
  db.trees[py::bytes(tree.name())] = object;
  if (name != nullptr && (PyUnicode_CheckExact(name) || PyBytes_CheckExact(name))) {
    if (PyDict_SetItem(db.trees.ptr(), name, object.ptr()) != 0) throw py::error_already_set();
  }
  return object;
}

namespace {

// The tree kept under `key` in db.trees, or null.
TreeObject* known_tree(DbState& db, PyObject* key) {
  PyObject* hit = PyDict_GetItemWithError(db.trees.ptr(), key);  // borrowed
  if (hit == nullptr && PyErr_Occurred() != nullptr) throw py::error_already_set();
  return hit == nullptr ? nullptr : as_tree(hit);
}

}  // namespace

bool resolve_tree(DbState& db, Txn& txn, PyObject* tree, Tree* out) {
  if (tree == Py_None) {
    *out = Tree();
    return true;
  }
  if (TreeObject* o = as_tree(tree)) {
    *out = o->tree;
    return true;
  }
  const bool exact = PyUnicode_CheckExact(tree) || PyBytes_CheckExact(tree);
  if (exact) {
    if (TreeObject* o = known_tree(db, tree)) {
      *out = o->tree;
      return true;
    }
  }
  std::string name = name_arg(tree);
  if (TreeObject* o = known_tree(db, py::bytes(name).ptr())) {
    *out = o->tree;
    remember_tree(db, *out, tree);
    return true;
  }
  Result<Tree> found = [&] {
    py::gil_scoped_release nogil;
    return txn.open_tree(name);
  }();
  if (!found.is_ok()) {
    if (found.status().is_not_found()) return false;
    throw_status(found.status());
  }
  remember_tree(db, *found, tree);
  *out = *found;
  return true;
}

bool resolve_tree(TxnCall& call, py::handle tree, Tree* out) {
  return resolve_tree(*call.state().db, call.txn(), tree.ptr(), out);
}

Tree require_tree(TxnCall& call, py::handle tree) {
  Tree t;
  if (!resolve_tree(call, tree, &t)) {
    throw_error("NotFoundError", "no tree named " + py::repr(tree).cast<std::string>());
  }
  return t;
}

}  // namespace ordo::python
