// ordo.Cursor and the iterators of Txn.range and Txn.prefix.
#include <optional>
#include <utility>

#include "bindings.h"
#include "bytes_arg.h"
#include "errors.h"
#include "state.h"
#include "txn_parts.h"

namespace ordo::python {
namespace {

// A cursor and the txn it reads; all calls go through the txn's TxnCall.
struct CursorState {
  TxnPtr txn;
  std::optional<Cursor> cursor;
  bool positioned = false;
  bool yielded = false;  // iteration yielded the current entry already
};

// The range of an iterator of Txn.range / Txn.prefix.
struct RangeState {
  CursorState c;
  KeyRange range = KeyRange::all();
  bool started = false;
};

CursorState open_cursor(const TxnPtr& txn, py::handle tree) {
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

// Where a move left the cursor, read with the GIL still released (reading
// a key or an overflow value may fault pages in from the file).
struct Entry {
  bool valid = false;
  ByteView key, value;
};

// Runs `move` on the cursor with the GIL released; returns the entry the
// cursor is on (the views valid as Cursor::key() says). Raises the move's
// error, or the one reading the entry met.
template <typename Move>
Entry move_cursor(CursorState& c, Move move, bool read_entry = false) {
  TxnCall call(*c.txn);
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

bool moved(CursorState& c, Status (*move)(Cursor&)) { return move_cursor(c, move).valid; }

// The current entry as (key, value), or None when not on one. REQUIRES: a
// TxnCall on the cursor's txn (the views are read under it).
py::object current_item(CursorState& c) {
  if (!c.cursor->valid()) return py::none();
  ByteView key = c.cursor->key();
  ByteView value = c.cursor->value();
  if (!c.cursor->status().is_ok()) throw_status(c.cursor->status());
  return py::make_tuple(c.txn->value(key), c.txn->value(value));
}

py::object current_part(CursorState& c, bool key) {
  TxnCall call(*c.txn);
  if (!c.cursor->valid()) {
    if (!c.cursor->status().is_ok()) throw_status(c.cursor->status());
    return py::none();
  }
  ByteView bytes = key ? c.cursor->key() : c.cursor->value();
  if (!c.cursor->status().is_ok()) throw_status(c.cursor->status());
  return c.txn->value(bytes);
}

py::object next_item(CursorState& c) {
  if (!c.positioned || c.yielded) {
    const bool first = !c.positioned;
    Entry e = move_cursor(
        c, [first](Cursor& k) { return first ? k.first() : k.next(); }, true);
    if (!e.valid) throw py::stop_iteration();
    c.yielded = true;
    return py::make_tuple(c.txn->value(e.key), c.txn->value(e.value));
  }
  // Positioned by a call since the last item: yield the entry it is on.
  TxnCall call(*c.txn);
  py::object item = current_item(c);
  if (item.is_none()) throw py::stop_iteration();
  c.yielded = true;
  return item;
}

py::object next_in_range(RangeState& r) {
  CursorState& c = r.c;
  const bool first = !r.started;
  r.started = true;
  const ByteView from = r.range.from();
  Entry e = move_cursor(
      c, [first, from](Cursor& k) { return first ? k.seek(from) : k.next(); }, true);
  if (!e.valid || r.range.past_end(e.key)) throw py::stop_iteration();
  return py::make_tuple(c.txn->value(e.key), c.txn->value(e.value));
}

void write_at_cursor(CursorState& c, py::handle key, py::handle value) {
  TxnCall call(*c.txn);
  call.writer("Cursor.put");
  BytesArg k(key, "key");
  BytesArg v(value, "value");
  Status s;
  {
    py::gil_scoped_release nogil;
    s = c.cursor->put(k.view(), v.view());
  }
  if (!s.is_ok()) throw_status(s);
  c.positioned = true;
  c.yielded = false;
}

}  // namespace

py::object make_cursor(const TxnPtr& txn, py::handle tree) {
  return py::cast(open_cursor(txn, tree));
}

py::object make_range(const TxnPtr& txn, py::handle start, py::handle stop, py::handle tree) {
  RangeState r{open_cursor(txn, tree)};
  BytesArg from, to;
  if (!start.is_none()) from = BytesArg(start, "start");
  if (stop.is_none()) {
    r.range = KeyRange::starting_at(from.view());
  } else {
    to = BytesArg(stop, "stop");
    r.range = KeyRange::between(from.view(), to.view());
  }
  return py::cast(std::move(r));
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
  return py::cast(std::move(c));
}

py::object make_prefix(const TxnPtr& txn, py::handle prefix, py::handle tree) {
  RangeState r{open_cursor(txn, tree)};
  BytesArg p(prefix, "prefix");
  r.range = KeyRange::prefix(p.view());
  return py::cast(std::move(r));
}

void init_cursor(py::module_& m) {
  py::class_<CursorState>(m, "Cursor",
                          R"(Ordered iteration over one tree, from Txn.cursor(). Positioning methods
return True when the cursor is on an entry. Iterating yields (key, value) from
the current entry (from the first when not positioned) to the last. In a write
txn it sees the txn's writes. Used by its txn's thread; every call raises
TxnEndedError once the txn ended.)")
      .def(
          "first", [](CursorState& c) { return moved(c, [](Cursor& k) { return k.first(); }); },
          "Moves to the first entry; False when the tree is empty.")
      .def(
          "last", [](CursorState& c) { return moved(c, [](Cursor& k) { return k.last(); }); },
          "Moves to the last entry; False when the tree is empty.")
      .def(
          "seek",
          [](CursorState& c, py::handle key) {
            BytesArg k(key, "key");
            return move_cursor(c, [&k](Cursor& cur) { return cur.seek(k.view()); }).valid;
          },
          py::arg("key"),
          "Moves to the first entry with a key >= key (py-lmdb's set_range); False past the end.")
      .def(
          "next", [](CursorState& c) { return moved(c, [](Cursor& k) { return k.next(); }); },
          "Moves to the next entry; False past the end (or when not positioned).")
      .def(
          "prev", [](CursorState& c) { return moved(c, [](Cursor& k) { return k.prev(); }); },
          "Moves to the previous entry; False before the first (or when not positioned).")
      .def_property_readonly(
          "valid",
          [](CursorState& c) {
            TxnCall call(*c.txn);
            return c.cursor->valid();
          },
          "True when the cursor is on an entry.")
      .def(
          "key", [](CursorState& c) { return current_part(c, true); },
          "The current key (bytes, or a memoryview with buffers=True); None when not on an entry.")
      .def(
          "value", [](CursorState& c) { return current_part(c, false); },
          "The current value; None when not on an entry.")
      .def(
          "item",
          [](CursorState& c) {
            TxnCall call(*c.txn);
            return current_item(c);
          },
          "(key, value) of the current entry; None when not on an entry.")
      .def("put", &write_at_cursor, py::arg("key"), py::arg("value"),
           "Write txns: inserts or overwrites key and moves the cursor onto it.")
      .def(
          "delete",
          [](CursorState& c) {
            TxnCall call(*c.txn);
            call.writer("Cursor.delete");
            Status s;
            {
              py::gil_scoped_release nogil;
              s = c.cursor->del();
            }
            if (!s.is_ok()) throw_status(s);
            c.yielded = false;
          },
          "Write txns: deletes the current entry and moves to the one after it.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &next_item);

  py::class_<RangeState>(m, "_RangeIterator", "An iterator of (key, value) over a key range.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &next_in_range);
}

}  // namespace ordo::python
