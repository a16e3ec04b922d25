// Changes between snapshots (docs/PYTHON.md): Txn.changes, Txn.copy_delta,
// and Database.keep_snapshot, release_snapshot, kept_snapshots, apply_delta,
// added to the classes database.cc and txn.cc made.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.h"
#include "bytes_arg.h"
#include "errors.h"
#include "native.h"
#include "objects.h"
#include "state.h"

namespace ordo::python {

namespace {

struct Change {
  std::string key;
  std::optional<std::string> old_value;
  std::optional<std::string> new_value;
};

// Every change, read with the GIL released, then made Python tuples.
py::list changes(TxnState& s, py::handle tree, uint64_t since) {
  TxnCall call(s);
  if (s.write) throw_error("InvalidArgumentError", "changes() is a read txn call");
  const Tree t = require_tree(call, tree);
  std::vector<Change> out;
  Status st = [&]() -> Status {
    py::gil_scoped_release nogil;
    ORDO_ASSIGN_OR_RETURN(ChangeCursor c, static_cast<ReadTxn&>(call.txn()).changes(t, since));
    for (;;) {
      ORDO_ASSIGN_OR_RETURN(bool more, c.next());
      if (!more) return Status::ok();
      Change ch{c.key().str(), std::nullopt, std::nullopt};
      if (auto v = c.old_value()) ch.old_value = v->str();
      if (auto v = c.new_value()) ch.new_value = v->str();
      out.push_back(std::move(ch));
    }
  }();
  if (!st.is_ok()) throw_status(st);
  py::list list;
  auto opt = [](const std::optional<std::string>& v) -> py::object {
    return v ? py::object(py::bytes(*v)) : py::object(py::none());
  };
  for (const Change& ch : out) {
    list.append(py::make_tuple(py::bytes(ch.key), opt(ch.old_value), opt(ch.new_value)));
  }
  return list;
}

py::dict delta_dict(const DeltaResult& r) {
  py::dict d;
  d["base_txn"] = r.base_txn;
  d["target_txn"] = r.target_txn;
  d["trees"] = r.trees;
  d["puts"] = r.puts;
  d["deletes"] = r.deletes;
  d["bytes"] = r.bytes;
  return d;
}

py::dict copy_delta(TxnState& s, py::handle path_object, uint64_t since) {
  const std::string path = path_arg(path_object);
  TxnCall call(s);
  if (s.write) throw_error("InvalidArgumentError", "copy_delta() is a read txn call");
  Result<DeltaResult> r = [&] {
    py::gil_scoped_release nogil;
    return static_cast<ReadTxn&>(call.txn()).copy_delta_to(path, since);
  }();
  if (!r.is_ok()) throw_status(r.status());
  return delta_dict(*r);
}

}  // namespace

void init_changes(py::module_& m) {
  py::object txn = m.attr("Txn");
  def_method(
      txn, "changes",
      [](TxnState& s, py::handle tree, uint64_t since) {
        return py::iter(changes(s, tree, since));
      },
      py::arg("tree"), py::arg("since"),
      "Read txns: an iterator of (key, old, new) for each key of `tree` whose value "
      "differs between held snapshot `since` (a txn id) and this snapshot, in key order; "
      "old is None for an insert, new None for a delete (bytes otherwise). Subtrees "
      "both share are skipped. NotFoundError 'snapshot N is not held' unless `since` is "
      "a kept snapshot (Database.keep_snapshot) or read by a live read txn of this "
      "Database.");
  def_method(txn, "copy_delta", &copy_delta, py::arg("path"), py::arg("since"),
             "Read txns: writes a delta file at `path` (a new file) of every change since held "
             "snapshot `since`; Database.apply_delta applies it to a copy at `since`. Returns "
             "a dict: base_txn, target_txn, trees, puts, deletes, bytes.");

  py::object db = m.attr("Database");
  def_method(
      db, "keep_snapshot",
      [](DbState& d) {
        DbUse use = d.open_db();
        d.reset_spare_reads();  // a commit follows
        Result<uint64_t> r = [&] {
          py::gil_scoped_release nogil;
          return use->keep_snapshot();
        }();
        if (!r.is_ok()) throw_status(r.status());
        return *r;
      },
      "Keeps the last commit until released (its pages are not reused; the file grows by "
      "what later commits change) and returns its txn id. Survives reopen.");
  def_method(
      db, "release_snapshot",
      [](DbState& d, uint64_t txn_id) {
        DbUse use = d.open_db();
        d.reset_spare_reads();  // a commit follows
        Status s = [&] {
          py::gil_scoped_release nogil;
          return use->release_snapshot(txn_id);
        }();
        if (!s.is_ok()) throw_status(s);
      },
      py::arg("txn_id"), "Releases a kept snapshot; NotFoundError when it is not kept.");
  def_method(
      db, "kept_snapshots",
      [](DbState& d) {
        DbUse use = d.open_db();
        Result<std::vector<uint64_t>> r = [&] {
          py::gil_scoped_release nogil;
          return use->kept_snapshots();
        }();
        if (!r.is_ok()) throw_status(r.status());
        return *r;
      },
      "The txn ids of the kept snapshots, ascending.");
  def_method(
      db, "apply_delta",
      [](DbState& d, py::handle path_object) {
        const std::string path = path_arg(path_object);
        DbUse use = d.open_db();
        d.reset_spare_reads();  // a commit follows
        Result<DeltaResult> r = [&] {
          py::gil_scoped_release nogil;
          return use->apply_delta(path);
        }();
        if (!r.is_ok()) throw_status(r.status());
        return delta_dict(*r);
      },
      py::arg("path"),
      "Applies a delta file (Txn.copy_delta) in one write txn to a database at its base "
      "txn, which then commits as the delta's target txn. CorruptionError for a damaged "
      "or truncated delta, InvalidArgumentError when the database is not at its base: "
      "nothing changes then.");
}

}  // namespace ordo::python
