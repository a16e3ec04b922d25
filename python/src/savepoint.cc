// ordo.Savepoint and Txn.savepoint(): WriteTxn::savepoint as a context
// manager that rolls back on an exception and releases on normal exit, as a
// SQL SAVEPOINT block does.
#include <string>
#include <utility>

#include "bindings.h"
#include "errors.h"
#include "native.h"
#include "state.h"
#include "txn_parts.h"

namespace ordo::python {
namespace {

struct PySavepoint {
  TxnPtr txn;
  Savepoint sp;
  bool ended = false;  // released or left through __exit__ by this object
};

PySavepoint take(const TxnPtr& txn) {
  TxnCall call(*txn);
  WriteTxn& w = call.writer("savepoint");
  Result<Savepoint> sp = w.savepoint();  // a few fields: no reason to release the GIL
  if (!sp.is_ok()) throw_status(sp.status());
  return PySavepoint{txn, *sp};
}

void rollback(PySavepoint& p) {
  TxnCall call(*p.txn);
  WriteTxn& w = call.writer("rollback");
  Status s;
  {
    py::gil_scoped_release nogil;
    s = w.rollback_to(p.sp);
  }
  check_status(s);
}

void release(PySavepoint& p) {
  TxnCall call(*p.txn);
  WriteTxn& w = call.writer("release");
  Status s;
  {
    py::gil_scoped_release nogil;
    s = w.release(p.sp);
  }
  p.ended = true;
  check_status(s);
}

bool exit(PySavepoint& p, const py::object& type) {
  if (p.ended) return false;
  if (type.is_none()) {
    release(p);
    return false;
  }
  // An exception leaves the block: undo its changes, and let that exception
  // go on (a failure here, such as an ended txn, must not replace it).
  try {
    rollback(p);
    release(p);
  } catch (py::error_already_set&) {
    p.ended = true;  // the error is dropped: the block's exception propagates
  }
  return false;
}

}  // namespace

void init_savepoint(py::module_& m) {
  py::class_<PySavepoint>(
      m, "Savepoint",
      R"(A point in a write txn to roll back to, from Txn.savepoint(). As a context
manager it rolls back to the savepoint and releases it when the block raises
(the exception propagates), and releases it (keeping the changes) on normal
exit. Savepoints nest to any depth; rolling back to one ends those taken after
it. IDs from next_id() are not rolled back.)")
      .def("rollback", &rollback,
           "Undoes every change since the savepoint; it stays open (roll back to it again, "
           "or release it). Ends the savepoints taken after it. InvalidArgumentError when it "
           "is no longer open.")
      .def("release", &release,
           "Ends the savepoint and those taken after it, keeping their changes. "
           "InvalidArgumentError when it is no longer open.")
      .def(
          "__enter__", [](PySavepoint& p) -> PySavepoint& { return p; },
          py::return_value_policy::reference_internal)
      .def("__exit__", [](PySavepoint& p, const py::object& type, const py::object&,
                          const py::object&) { return exit(p, type); })
      .def("__repr__", [](const PySavepoint& p) {
        return std::string("<ordo.Savepoint") + (p.ended ? " ended" : "") + ">";
      });

  // A method of ordo.Txn (txn.cc registers the class), kept with its class here.
  def_method(m.attr("Txn"), "savepoint", &take,
             "Write txns: a Savepoint at this point of the txn (use it in a with block, or call "
             "rollback()/release()). Costs a few fields; pages are copied only as they change.");
}

}  // namespace ordo::python
