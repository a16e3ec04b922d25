// ordo.Cursor and the iterators of Txn.range, Txn.prefix, Cursor.iternext
// and Cursor.iterprev: native types (native.h), every method a C function.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "bytes_arg.h"
#include "errors.h"
#include "native.h"
#include "objects.h"
#include "ordo/assert.h"
#include "state.h"
#include "txn_parts.h"

namespace ordo::python {
namespace {

PyTypeObject* cursor_type = nullptr;
PyTypeObject* range_type = nullptr;
PyTypeObject* cursor_iter_type = nullptr;

// What an iteration step yields.
enum class Yield { kItems, kKeys, kValues };

Yield yield_of(PyObject* keys, PyObject* values, const char* method) {
  const bool k = bool_arg(keys, true), v = bool_arg(values, true);
  if (!k && !v)
    throw py::value_error(std::string(method) + ": keys and values cannot both be False");
  return k && v ? Yield::kItems : (k ? Yield::kKeys : Yield::kValues);
}

// Where a move left the cursor, read with the GIL still released (reading
// a key or an overflow value may fault pages in from the file).
struct Entry {
  bool valid = false;
  ByteView key, value;
};

// Entries an iteration of a read txn read ahead (their views stay valid for
// the snapshot), handed out one per step: one release of the GIL per
// kReadAhead entries instead of one per entry. The engine's cursor is then on
// the last entry read, or past the end (past_end); sync_cursor() puts it back
// on the entry last handed out before any other call.
struct ReadAhead {
  static constexpr size_t kReadAhead = 64;
  std::vector<Entry> entries;
  size_t next = 0;        // the next entry to hand out
  uint64_t serial = 0;    // the txn's snapshot_serial when they were read
  bool reverse = false;   // read backward
  bool past_end = false;  // the cursor went past the end after the last entry

  bool pending(uint64_t snapshot_serial, bool backward) const {
    return next < entries.size() && serial == snapshot_serial && reverse == backward;
  }
};

// A cursor and the txn it reads; all calls go through the txn's TxnCall.
struct CursorState {
  TxnPtr txn;
  std::optional<Cursor> cursor;
  bool positioned = false;
  bool yielded = false;  // iteration yielded the current entry already
  bool closed = false;   // Cursor.close(): the engine's cursor is gone
  ReadAhead ahead;

  CursorState() = default;
  CursorState(CursorState&&) = default;  // the source is left without a txn: its end is a no-op
  CursorState& operator=(CursorState&&) = delete;
  ~CursorState() {
    if (cursor && txn) retire_cursor(*txn, std::move(*cursor));
  }
};

void check_open(const CursorState& c) {
  if (c.closed) throw_error("InvalidArgumentError", "the cursor was closed");
}

// Runs `move` on the cursor with the GIL released; returns the entry the
// cursor is on (the views valid as Cursor::key() says). Raises the move's
// error, or the one reading the entry met. REQUIRES: `call` on c's txn.
template <typename Move>
Entry move_cursor(CursorState& c, Move move, bool read_entry) {
  Status s;
  Entry e;
  {
    py::gil_scoped_release nogil;
    s = move(*c.cursor);
    e.valid = s.is_ok() && c.cursor->valid();
    if (e.valid && read_entry) {
      e.key = c.cursor->key();
      e.value = c.cursor->value();
      s = c.cursor->status();
    }
  }
  if (!s.is_ok()) throw_status(s);
  c.positioned = true;
  c.yielded = false;
  return e;
}

// What a step yields for entry `e`: a new reference.
PyObject* result(TxnState& s, const Entry& e, Yield y) {
  if (y == Yield::kKeys) return s.value(e.key);
  if (y == Yield::kValues) return s.value(e.value);
  PyObject* k = s.value(e.key);
  if (k == nullptr) return nullptr;
  PyObject* v = s.value(e.value);
  if (v == nullptr) {
    Py_DECREF(k);
    return nullptr;
  }
  PyObject* pair = PyTuple_New(2);
  if (pair == nullptr) {
    Py_DECREF(k);
    Py_DECREF(v);
    return nullptr;
  }
  PyTuple_SET_ITEM(pair, 0, k);
  PyTuple_SET_ITEM(pair, 1, v);
  return pair;
}

// The entry the cursor is on (valid false when none). REQUIRES: a TxnCall on
// the cursor's txn (the views are read under it).
Entry current(CursorState& c) {
  Entry e;
  e.valid = c.cursor->valid();
  if (e.valid) {
    e.key = c.cursor->key();
    e.value = c.cursor->value();
  }
  if (!c.cursor->status().is_ok()) throw_status(c.cursor->status());
  return e;
}

// Puts the engine's cursor back on the entry iteration handed out last when
// it read ahead of it; forgets what it read ahead. REQUIRES: `call` on c's txn.
void sync_cursor(CursorState& c) {
  ReadAhead& a = c.ahead;
  if (a.entries.empty()) return;
  const bool on_it = a.next == a.entries.size() && !a.past_end;
  if (!on_it && a.next > 0 && a.serial == c.txn->snapshot_serial) {
    const ByteView key = a.entries[a.next - 1].key;
    const Status s = without_gil([&] { return c.cursor->seek(key); });
    if (!s.is_ok()) throw_status(s);
  }
  a.entries.clear();
  a.next = 0;
  a.past_end = false;
}

// Forgets what iteration read ahead, for a call that positions the cursor
// anew (first, last, seek).
void drop_read_ahead(CursorState& c) {
  c.ahead.entries.clear();
  c.ahead.next = 0;
  c.ahead.past_end = false;
}

// Runs `move_first` once, then `move_next` while the cursor is on an entry
// that `in_range` takes, up to kReadAhead entries, with the GIL released;
// fills c.ahead (next at 0). REQUIRES: `call` on c's txn, a read txn.
template <typename First, typename Next, typename InRange>
void read_ahead(CursorState& c, bool reverse, First move_first, Next move_next, InRange in_range) {
  ReadAhead& a = c.ahead;
  a.entries.clear();
  a.next = 0;
  a.past_end = false;
  a.reverse = reverse;
  a.serial = c.txn->snapshot_serial;
  Cursor& k = *c.cursor;
  const Status s = without_gil([&]() -> Status {
    Status m = move_first(k);
    while (m.is_ok()) {
      if (!k.valid()) {
        a.past_end = !a.entries.empty();
        break;
      }
      Entry e{true, k.key(), k.value()};
      ORDO_RETURN_IF_ERROR(k.status());
      if (!in_range(e.key)) {
        a.past_end = !a.entries.empty();
        break;
      }
      a.entries.push_back(e);
      if (a.entries.size() == ReadAhead::kReadAhead) break;
      m = move_next(k);
    }
    return m;
  });
  if (!s.is_ok()) throw_status(s);
}

// One step of iterating a cursor from where it stands: the first (or last,
// `reverse`) entry when not positioned, the next (previous) one after an
// entry yielded, else the entry a call since put it on. Null at the end
// (no error set). In a read txn, entries are read ahead.
PyObject* step(CursorState& c, Yield y, bool reverse) {
  check_open(c);
  TxnCall call(*c.txn);
  ReadAhead& a = c.ahead;
  if (c.yielded && a.pending(c.txn->snapshot_serial, reverse)) {
    return result(*c.txn, a.entries[a.next++], y);
  }
  if (c.yielded && !a.entries.empty() && a.next == a.entries.size() && a.past_end &&
      a.reverse == reverse && a.serial == c.txn->snapshot_serial) {
    drop_read_ahead(c);  // the cursor is past the end already, as iteration leaves it
    c.yielded = false;
    return nullptr;
  }
  sync_cursor(c);
  const bool first = !c.positioned;
  if (!c.txn->write && (first || c.yielded)) {
    auto step_once = [reverse](Cursor& k) { return reverse ? k.prev() : k.next(); };
    read_ahead(
        c, reverse,
        [&](Cursor& k) { return first ? (reverse ? k.last() : k.first()) : step_once(k); },
        step_once, [](ByteView) { return true; });
    c.positioned = true;
    c.yielded = !a.entries.empty();
    if (a.entries.empty()) return nullptr;
    return result(*c.txn, a.entries[a.next++], y);
  }
  Entry e;
  if (first || c.yielded) {
    e = move_cursor(
        c,
        [first, reverse](Cursor& k) {
          return first ? (reverse ? k.last() : k.first()) : (reverse ? k.prev() : k.next());
        },
        true);
  } else {
    e = current(c);
  }
  if (!e.valid) return nullptr;
  c.yielded = true;
  return result(*c.txn, e, y);
}

CursorState open_cursor(const TxnPtr& txn, PyObject* tree) {
  TxnCall call(*txn);
  Tree t = require_tree(call, tree);
  Result<Cursor> r = [&] {
    py::gil_scoped_release nogil;
    return call.txn().cursor(t);
  }();
  if (!r.is_ok()) throw_status(r.status());
  CursorState c;
  c.txn = txn;
  c.cursor.emplace(std::move(*r));
  return c;
}

// --- ordo.Cursor ------------------------------------------------------------

struct CursorObject {
  PyObject_HEAD CursorState c;
};

CursorState& cursor_of(PyObject* self) { return reinterpret_cast<CursorObject*>(self)->c; }

py::object new_cursor_object(CursorState c) {
  return new_native<CursorObject, &CursorObject::c>(cursor_type, std::move(c));
}

// first() and last() position anew; next() and prev() move from the entry
// iteration handed out last.
template <Status (*Move)(Cursor&), bool Relative>
PyObject* cursor_move(PyObject* self, PyObject*) {
  return guard([&] {
    CursorState& c = cursor_of(self);
    check_open(c);
    TxnCall call(*c.txn);
    if (Relative) {
      sync_cursor(c);
    } else {
      drop_read_ahead(c);
    }
    return new_ref(move_cursor(c, Move, false).valid ? Py_True : Py_False);
  });
}

Status move_first(Cursor& c) { return c.first(); }
Status move_last(Cursor& c) { return c.last(); }
Status move_next(Cursor& c) { return c.next(); }
Status move_prev(Cursor& c) { return c.prev(); }

PyObject* cursor_seek(PyObject* self, PyObject* key) {
  return guard([&] {
    CursorState& c = cursor_of(self);
    check_open(c);
    TxnCall call(*c.txn);
    drop_read_ahead(c);
    BytesArg k(key, "key");
    const bool valid = move_cursor(
                           c, [&k](Cursor& cur) { return cur.seek(k.view()); }, false)
                           .valid;
    return new_ref(valid ? Py_True : Py_False);
  });
}

// key(), value(), item(): the current entry's part, or None off an entry.
template <Yield Part>
PyObject* cursor_part(PyObject* self, PyObject*) {
  return guard([&] {
    CursorState& c = cursor_of(self);
    check_open(c);
    TxnCall call(*c.txn);
    sync_cursor(c);
    Entry e = current(c);
    return e.valid ? result(*c.txn, e, Part) : new_ref(Py_None);
  });
}

PyObject* cursor_valid(PyObject* self, void*) {
  return guard([&] {
    CursorState& c = cursor_of(self);
    check_open(c);
    TxnCall call(*c.txn);
    sync_cursor(c);
    return new_ref(c.cursor->valid() ? Py_True : Py_False);
  });
}

const Signature kCursorPut("put", {"key", "value"}, 2, 2);

PyObject* cursor_put(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[2] = {};
    kCursorPut.parse(args, nargs, kwnames, a);
    CursorState& c = cursor_of(self);
    check_open(c);
    TxnCall call(*c.txn);
    call.writer("Cursor.put");
    BytesArg k(a[0], "key");
    BytesArg v(a[1], "value");
    Status s;
    {
      py::gil_scoped_release nogil;
      s = c.cursor->put(k.view(), v.view());
    }
    if (!s.is_ok()) throw_status(s);
    c.positioned = true;
    c.yielded = false;
    return new_ref(Py_None);
  });
}

PyObject* cursor_delete(PyObject* self, PyObject*) {
  return guard([&] {
    CursorState& c = cursor_of(self);
    check_open(c);
    TxnCall call(*c.txn);
    call.writer("Cursor.delete");
    Status s;
    {
      py::gil_scoped_release nogil;
      s = c.cursor->del();
    }
    if (!s.is_ok()) throw_status(s);
    c.yielded = false;
    return new_ref(Py_None);
  });
}

PyObject* cursor_close(PyObject* self, PyObject*) {
  CursorState& c = cursor_of(self);
  if (c.cursor) retire_cursor(*c.txn, std::move(*c.cursor));
  c.cursor.reset();
  c.closed = true;
  return new_ref(Py_None);
}

PyObject* cursor_enter(PyObject* self, PyObject*) { return new_ref(self); }

PyObject* cursor_exit(PyObject* self, PyObject* const*, Py_ssize_t, PyObject*) {
  PyObject* r = cursor_close(self, nullptr);
  Py_XDECREF(r);
  return new_ref(Py_False);
}

PyObject* cursor_iternext_slot(PyObject* self) {
  return guard([&] { return step(cursor_of(self), Yield::kItems, false); });
}

// Cursor.iternext / iterprev: an iterator that moves this cursor.
struct CursorIter {
  py::object cursor;  // the ordo.Cursor
  Yield yield = Yield::kItems;
  bool reverse = false;
};

struct CursorIterObject {
  PyObject_HEAD CursorIter it;
};

const Signature kIterNext("iternext", {"keys", "values"}, 2, 0);
const Signature kIterPrev("iterprev", {"keys", "values"}, 2, 0);

template <bool Reverse>
PyObject* cursor_iter(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    const Signature& sig = Reverse ? kIterPrev : kIterNext;
    PyObject* a[2] = {};
    sig.parse(args, nargs, kwnames, a);
    const Yield y = yield_of(a[0], a[1], sig.method());
    check_open(cursor_of(self));
    CursorIter it{py::reinterpret_borrow<py::object>(self), y, Reverse};
    return new_native<CursorIterObject, &CursorIterObject::it>(cursor_iter_type, std::move(it))
        .release()
        .ptr();
  });
}

PyObject* cursor_iter_next(PyObject* self) {
  const CursorIter& it = reinterpret_cast<CursorIterObject*>(self)->it;
  return guard([&] { return step(cursor_of(it.cursor.ptr()), it.yield, it.reverse); });
}

// --- the iterators of Txn.range and Txn.prefix -------------------------------

struct RangeIter {
  CursorState c;
  KeyRange range;
  Yield yield;
  bool reverse;
  bool started = false;
};

struct RangeObject {
  PyObject_HEAD RangeIter r;
};

PyObject* range_next(PyObject* self) {
  RangeIter& r = reinterpret_cast<RangeObject*>(self)->r;
  return guard([&]() -> PyObject* {
    CursorState& c = r.c;
    TxnCall call(*c.txn);
    ReadAhead& a = c.ahead;
    if (a.pending(c.txn->snapshot_serial, r.reverse)) {
      return result(*c.txn, a.entries[a.next++], r.yield);
    }
    if (r.started && a.past_end) return nullptr;  // read ahead to the range's end already
    const bool first = !r.started;
    r.started = true;
    const KeyRange& range = r.range;
    auto move_first = [&](Cursor& k) -> Status {
      if (!first) return r.reverse ? k.prev() : k.next();
      if (!r.reverse) return k.seek(range.from());
      if (!range.has_end()) return k.last();
      // The last key before the end: the entry before the end's place.
      ORDO_RETURN_IF_ERROR(k.seek(range.end()));
      return k.valid() ? k.prev() : k.last();
    };
    auto in_range = [&](ByteView key) {
      return r.reverse ? key.compare(range.from()) >= 0 : !range.past_end(key);
    };
    if (!c.txn->write) {
      read_ahead(
          c, r.reverse, move_first, [&](Cursor& k) { return r.reverse ? k.prev() : k.next(); },
          in_range);
      if (a.entries.empty()) return nullptr;
      return result(*c.txn, a.entries[a.next++], r.yield);
    }
    const Entry e = move_cursor(c, move_first, true);
    if (!e.valid || !in_range(e.key)) return nullptr;
    return result(*c.txn, e, r.yield);
  });
}

PyObject* new_range_object(CursorState c, KeyRange range, Yield y, bool reverse) {
  return new_native<RangeObject, &RangeObject::r>(
             range_type, RangeIter{std::move(c), std::move(range), y, reverse})
      .release()
      .ptr();
}

const Signature kRange("range", {"start", "stop", "tree", "reverse", "keys", "values"}, 3, 0);
const Signature kPrefix("prefix", {"prefix", "tree", "reverse", "keys", "values"}, 2, 1);

PyMethodDef cursor_methods[] = {
    {"first", cursor_move<move_first, false>, METH_NOARGS,
     "Moves to the first entry; False when the tree is empty."},
    {"last", cursor_move<move_last, false>, METH_NOARGS,
     "Moves to the last entry; False when the tree is empty."},
    {"seek", cursor_seek, METH_O,
     "seek(key)\n--\n\nMoves to the first entry with a key >= key (py-lmdb's set_range); False "
     "past the end."},
    {"next", cursor_move<move_next, true>, METH_NOARGS,
     "Moves to the next entry; False past the end (or when not positioned)."},
    {"prev", cursor_move<move_prev, true>, METH_NOARGS,
     "Moves to the previous entry; False before the first (or when not positioned)."},
    {"key", cursor_part<Yield::kKeys>, METH_NOARGS,
     "The current key (bytes, or a memoryview with buffers=True); None when not on an entry."},
    {"value", cursor_part<Yield::kValues>, METH_NOARGS,
     "The current value; None when not on an entry."},
    {"item", cursor_part<Yield::kItems>, METH_NOARGS,
     "(key, value) of the current entry; None when not on an entry."},
    {"put", fastcall(cursor_put), kFastCall,
     "put(key, value)\n--\n\nWrite txns: inserts or overwrites key and moves the cursor onto "
     "it."},
    {"delete", cursor_delete, METH_NOARGS,
     "Write txns: deletes the current entry and moves to the one after it."},
    {"iternext", fastcall(cursor_iter<false>), kFastCall,
     "iternext(keys=True, values=True)\n--\n\nAn iterator that moves this cursor forward from "
     "where it stands (from the first entry when not positioned), yielding (key, value), or "
     "keys alone (values=False), or values alone (keys=False)."},
    {"iterprev", fastcall(cursor_iter<true>), kFastCall,
     "iterprev(keys=True, values=True)\n--\n\nAs iternext, backward (from the last entry when "
     "not positioned)."},
    {"close", cursor_close, METH_NOARGS,
     "Frees the cursor; every later call but close() raises InvalidArgumentError. Closing "
     "again does nothing."},
    {"__enter__", cursor_enter, METH_NOARGS, nullptr},
    {"__exit__", fastcall(cursor_exit), kFastCall, "Closes the cursor."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef cursor_getset[] = {
    {"valid", cursor_valid, nullptr, "True when the cursor is on an entry.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

}  // namespace

void retire_cursor(TxnState& txn, Cursor&& cursor) {
  // A cursor's end unregisters it from its txn: not while another thread
  // is in a call on that txn.
  if (txn.busy) {
    txn.retired_cursors.push_back(std::move(cursor));
  } else {
    Cursor gone(std::move(cursor));
  }
}

py::object make_cursor(const TxnPtr& txn, py::handle tree) {
  return new_cursor_object(open_cursor(txn, tree.ptr()));
}

py::object make_cursor_at(const TxnPtr& txn, uint64_t index, py::handle tree) {
  TxnCall call(*txn);
  Tree t = require_tree(call, tree);
  Result<Cursor> r = [&] {
    py::gil_scoped_release nogil;
    return call.txn().at(t, index);
  }();
  if (!r.is_ok()) {
    // The tree was found: NotFound says the index is past the last entry.
    if (r.status().is_not_found()) throw py::index_error(r.status().message());
    throw_status(r.status());
  }
  CursorState c;
  c.txn = txn;
  c.cursor.emplace(std::move(*r));
  c.positioned = true;
  return new_cursor_object(std::move(c));
}

PyObject* txn_range(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[6] = {};
    kRange.parse(args, nargs, kwnames, a);
    const Yield y = yield_of(a[4], a[5], "range");
    const bool reverse = bool_arg(a[3], false);
    const TxnPtr& txn = reinterpret_cast<TxnObject*>(self)->state;
    CursorState c = open_cursor(txn, a[2] == nullptr ? Py_None : a[2]);
    BytesArg from, to;
    if (a[0] != nullptr && a[0] != Py_None) from = BytesArg(a[0], "start");
    const bool bounded = a[1] != nullptr && a[1] != Py_None;
    if (bounded) to = BytesArg(a[1], "stop");
    KeyRange range =
        bounded ? KeyRange::between(from.view(), to.view()) : KeyRange::starting_at(from.view());
    return new_range_object(std::move(c), std::move(range), y, reverse);
  });
}

PyObject* txn_prefix(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guard([&] {
    PyObject* a[5] = {};
    kPrefix.parse(args, nargs, kwnames, a);
    const Yield y = yield_of(a[3], a[4], "prefix");
    const bool reverse = bool_arg(a[2], false);
    const TxnPtr& txn = reinterpret_cast<TxnObject*>(self)->state;
    CursorState c = open_cursor(txn, a[1] == nullptr ? Py_None : a[1]);
    BytesArg p(a[0], "prefix");
    return new_range_object(std::move(c), KeyRange::prefix(p.view()), y, reverse);
  });
}

void init_cursor(py::module_& m) {
  static PyType_Slot cursor_slots[] = {
      {Py_tp_doc, const_cast<char*>(
                      R"(Ordered iteration over one tree, from Txn.cursor(). Positioning methods
return True when the cursor is on an entry. Iterating yields (key, value) from
the current entry (from the first when not positioned) to the last. In a write
txn it sees the txn's writes. Used by its txn's thread; every call raises
TxnEndedError once the txn ended. A context manager: the block's end closes it.)")},
      {Py_tp_dealloc, reinterpret_cast<void*>(dealloc_native<CursorObject, &CursorObject::c>)},
      {Py_tp_methods, cursor_methods},
      {Py_tp_getset, cursor_getset},
      {Py_tp_iter, reinterpret_cast<void*>(PyObject_SelfIter)},
      {Py_tp_iternext, reinterpret_cast<void*>(cursor_iternext_slot)},
      {0, nullptr},
  };
  static PyType_Spec cursor_spec = {"ordo._ordo.Cursor", sizeof(CursorObject), 0,
                                    Py_TPFLAGS_DEFAULT, cursor_slots};
  cursor_type = make_type(m, &cursor_spec);

  static PyType_Slot iter_slots[] = {
      {Py_tp_doc, const_cast<char*>("An iterator that moves an ordo.Cursor.")},
      {Py_tp_dealloc,
       reinterpret_cast<void*>(dealloc_native<CursorIterObject, &CursorIterObject::it>)},
      {Py_tp_iter, reinterpret_cast<void*>(PyObject_SelfIter)},
      {Py_tp_iternext, reinterpret_cast<void*>(cursor_iter_next)},
      {0, nullptr},
  };
  static PyType_Spec iter_spec = {"ordo._ordo._CursorIterator", sizeof(CursorIterObject), 0,
                                  Py_TPFLAGS_DEFAULT, iter_slots};
  cursor_iter_type = make_type(m, &iter_spec);

  static PyType_Slot range_slots[] = {
      {Py_tp_doc, const_cast<char*>("An iterator over a key range (Txn.range, Txn.prefix).")},
      {Py_tp_dealloc, reinterpret_cast<void*>(dealloc_native<RangeObject, &RangeObject::r>)},
      {Py_tp_iter, reinterpret_cast<void*>(PyObject_SelfIter)},
      {Py_tp_iternext, reinterpret_cast<void*>(range_next)},
      {0, nullptr},
  };
  static PyType_Spec range_spec = {"ordo._ordo._RangeIterator", sizeof(RangeObject), 0,
                                   Py_TPFLAGS_DEFAULT, range_slots};
  range_type = make_type(m, &range_spec);
}

}  // namespace ordo::python
