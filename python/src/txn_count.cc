// Txn.count, Txn.rank and Txn.at: counting and positions over the entry
// counts of a tree's branches (O(depth) page reads each). Added to the Txn
// class that init_txn() made.
#include <string>

#include "bindings.h"
#include "bytes_arg.h"
#include "errors.h"
#include "native.h"
#include "state.h"
#include "txn_parts.h"

namespace ordo::python {
namespace {

uint64_t count(TxnState& s, py::handle start, py::handle stop, py::handle tree, py::handle prefix) {
  TxnCall call(s);
  if (!prefix.is_none() && (!start.is_none() || !stop.is_none())) {
    throw_error("InvalidArgumentError", "count: give prefix, or start and stop, not both");
  }
  BytesArg from, to, p;
  if (!start.is_none()) from = BytesArg(start, "start");
  if (!stop.is_none()) to = BytesArg(stop, "stop");
  if (!prefix.is_none()) p = BytesArg(prefix, "prefix");
  Tree t;
  if (!resolve_tree(call, tree, &t)) return 0;  // a missing tree holds nothing
  Result<uint64_t> r = [&] {
    py::gil_scoped_release nogil;
    const KeyRange range = !prefix.is_none() ? KeyRange::prefix(p.view())
                           : stop.is_none()  ? KeyRange::starting_at(from.view())
                                             : KeyRange::between(from.view(), to.view());
    return call.txn().count(t, range);
  }();
  // NotFound: the tree is gone (dropped, renamed or rolled back in this txn).
  if (!r.is_ok() && !r.status().is_not_found()) throw_status(r.status());
  return r.is_ok() ? *r : 0;
}

uint64_t rank(TxnState& s, py::handle key, py::handle tree) {
  TxnCall call(s);
  BytesArg k(key, "key");
  Tree t;
  if (!resolve_tree(call, tree, &t)) return 0;
  Result<uint64_t> r = [&] {
    py::gil_scoped_release nogil;
    return call.txn().rank(t, k.view());
  }();
  // NotFound: the tree is gone (dropped, renamed or rolled back in this txn).
  if (!r.is_ok() && !r.status().is_not_found()) throw_status(r.status());
  return r.is_ok() ? *r : 0;
}

}  // namespace

void init_txn_count(py::module_& m) {
  py::object cls = m.attr("Txn");
  def_method(cls, "count", &count, py::arg("start") = py::none(), py::arg("stop") = py::none(),
             py::arg("tree") = py::none(), py::kw_only(), py::arg("prefix") = py::none(),
             R"(The number of entries with start <= key < stop (None: unbounded), or with
prefix= those whose key starts with prefix; 0 for a missing tree. Reads one or
two root-to-leaf paths of the tree, whatever the range holds.)");
  def_method(cls, "rank", &rank, py::arg("key"), py::arg("tree") = py::none(),
             "The number of entries whose key sorts before key: its position, present or not.");
  def_method(
      cls, "at",
      [](const TxnPtr& s, uint64_t index, py::handle tree) {
        return make_cursor_at(s, index, tree);
      },
      py::arg("index"), py::arg("tree") = py::none(),
      "An ordo.Cursor on the entry at index (0-based, key order); IndexError past the "
      "last entry.");
}

}  // namespace ordo::python
