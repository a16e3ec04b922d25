#include "errors.h"

#include <cstdint>

namespace ordo::python {
namespace {

// ordo._errors, imported once by init_errors() and kept for the process: the
// classes live as long as the interpreter, so the reference is never dropped.
PyObject* errors_module = nullptr;

const char* class_of(Status::Code code) {
  switch (code) {
    case Status::Code::kOk:
      break;
    case Status::Code::kNotFound:
      return "NotFoundError";
    case Status::Code::kInvalidArgument:
      return "InvalidArgumentError";
    case Status::Code::kCorruption:
      return "CorruptionError";
    case Status::Code::kIOError:
      return "IOError";
    case Status::Code::kBusy:
      return "BusyError";
    case Status::Code::kFull:
      return "FullError";
    case Status::Code::kNotOrdoFile:
      return "NotOrdoFileError";
    case Status::Code::kVersionMismatch:
      return "VersionMismatchError";
    case Status::Code::kTxnEnded:
      return "TxnEndedError";
    case Status::Code::kNeedsRecovery:
      return "NeedsRecoveryError";
    case Status::Code::kCompareFailed:
      break;  // replication's alone: no call of this package returns it
  }
  return "Error";
}

[[noreturn]] void raise(const py::object& cls, const py::object& instance) {
  PyErr_SetObject(cls.ptr(), instance.ptr());
  throw py::error_already_set();
}

}  // namespace

void init_errors() {
  if (errors_module == nullptr) {
    errors_module = py::module_::import("ordo._errors").release().ptr();
  }
}

py::object error_class(const char* class_name) {
  return py::reinterpret_borrow<py::module_>(errors_module).attr(class_name);
}

void throw_status(const Status& status) {
  const char* name = class_of(status.code());
  py::object cls = error_class(name);
  // The message as to_string() gives it, without the code name, which the
  // class says already.
  std::string message = status.message();
  if (status.page_number() != Status::kNoPage) {
    message = "page " + std::to_string(status.page_number()) + ": " + message;
  }
  py::object instance = status.is_io_error() ? cls(message, status.errno_value()) : cls(message);
  if (status.page_number() != Status::kNoPage) {
    instance.attr("page") = py::int_(status.page_number());
  }
  raise(cls, instance);
}

void throw_error(const char* class_name, const std::string& message) {
  py::object cls = error_class(class_name);
  raise(cls, cls(message));
}

}  // namespace ordo::python
