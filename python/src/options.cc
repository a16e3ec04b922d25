// ordo.open(path, **options): each keyword is the Options field of that name.
#include <cstdint>
#include <string>

#include "bindings.h"

namespace ordo::python {
namespace {

template <typename T>
T number(const std::string& name, py::handle value) {
  if (PyBool_Check(value.ptr()) || !PyLong_Check(value.ptr())) {
    throw py::type_error("open(): option " + name + " must be an int");
  }
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::value_error("open(): option " + name + " is out of range");
  }
}

bool flag(const std::string& name, py::handle value) {
  if (!PyBool_Check(value.ptr()))
    throw py::type_error("open(): option " + name + " must be a bool");
  return value.cast<bool>();
}

IoBackend io_backend(py::handle value) {
  std::string s = py::str(value);
  if (s == "auto") return IoBackend::kAuto;
  if (s == "uring" || s == "io_uring") return IoBackend::kUring;
  if (s == "posix") return IoBackend::kPosix;
  throw py::value_error("open(): io_backend must be 'auto', 'uring' or 'posix', not '" + s + "'");
}

CommitProtocol commit_protocol(py::handle value) {
  std::string s = py::str(value);
  if (s == "log") return CommitProtocol::kLog;
  if (s == "one_sync") return CommitProtocol::kOneSync;
  if (s == "two_sync") return CommitProtocol::kTwoSync;
  throw py::value_error("open(): commit_protocol must be 'log', 'one_sync' or 'two_sync', not '" +
                        s + "'");
}

}  // namespace

Options options_from_kwargs(const py::kwargs& kwargs) {
  Options o;
  for (auto [key, value] : kwargs) {
    const std::string name = py::str(key);
    if (name == "page_size_bytes") {
      o.page_size_bytes = number<uint32_t>(name, value);
    } else if (name == "create_if_missing") {
      o.create_if_missing = flag(name, value);
    } else if (name == "writer_wait_ms") {
      o.writer_wait_ms = number<uint32_t>(name, value);
    } else if (name == "read_only") {
      o.read_only = flag(name, value);
    } else if (name == "io_backend") {
      o.io_backend = io_backend(value);
    } else if (name == "extent_bytes") {
      o.extent_bytes = number<uint64_t>(name, value);
    } else if (name == "max_extent_bytes") {
      o.max_extent_bytes = number<uint64_t>(name, value);
    } else if (name == "trim_on_close") {
      o.trim_on_close = flag(name, value);
    } else if (name == "map_reserve_bytes") {
      o.map_reserve_bytes = number<uint64_t>(name, value);
    } else if (name == "commit_protocol") {
      o.commit_protocol = commit_protocol(value);
    } else if (name == "log_bytes") {
      o.log_bytes = number<uint64_t>(name, value);
    } else if (name == "sync_commits") {
      o.sync_commits = flag(name, value);
    } else if (name == "id_node") {
      o.id_node = number<uint32_t>(name, value);
    } else if (name == "verify_checksums") {
      o.verify_checksums = flag(name, value);
    } else if (name == "txn_memory_budget_bytes") {
      o.txn_memory_budget_bytes = number<uint64_t>(name, value);
    } else if (name == "run_reclaim_limit_pages") {
      o.run_reclaim_limit_pages = number<uint64_t>(name, value);
    } else if (name == "append_fill") {
      if (!PyFloat_Check(value.ptr()) && !PyLong_Check(value.ptr())) {
        throw py::type_error("open(): option append_fill must be a float");
      }
      o.append_fill = value.cast<double>();
    } else {
      throw py::type_error("open(): unknown option '" + name +
                           "' (the options are the fields of ordo::Options: docs/PYTHON.md)");
    }
  }
  return o;
}

}  // namespace ordo::python
