#include "bytes_arg.h"

#include <string>
#include <utility>

#include "byte_columns.h"

namespace ordo::python {

BytesArg::BytesArg(py::handle object, const char* what) {
  PyObject* o = object.ptr();
  if (PyBytes_Check(o)) {
    bytes_ = py::reinterpret_borrow<py::object>(object);
    view_ = ByteView(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o)));
    return;
  }
  if (PyUnicode_Check(o)) {
    throw py::type_error(std::string(what) + " must be bytes-like, not str (encode it)");
  }
  if (PyObject_GetBuffer(o, &buffer_, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
    PyErr_Clear();
    buffer_.obj = nullptr;
    throw py::type_error(std::string(what) + " must be a bytes-like object (C-contiguous), not " +
                         Py_TYPE(o)->tp_name);
  }
  if (format_holds_objects(buffer_.format)) {
    release();
    throw py::type_error(std::string(what) + " is a buffer of Python objects (format 'O'): its " +
                         "memory holds pointers, not the objects' bytes");
  }
  view_ = ByteView(buffer_.buf, static_cast<size_t>(buffer_.len));
}

BytesArg::BytesArg(BytesArg&& other) noexcept
    : bytes_(std::move(other.bytes_)), buffer_(other.buffer_), view_(other.view_) {
  other.buffer_.obj = nullptr;
  other.view_ = ByteView();
}

BytesArg& BytesArg::operator=(BytesArg&& other) noexcept {
  if (this != &other) {
    release();
    bytes_ = std::move(other.bytes_);
    buffer_ = other.buffer_;
    view_ = other.view_;
    other.buffer_.obj = nullptr;
    other.view_ = ByteView();
  }
  return *this;
}

BytesArg::~BytesArg() { release(); }

void BytesArg::release() {
  if (buffer_.obj != nullptr) {
    PyBuffer_Release(&buffer_);
    buffer_.obj = nullptr;
  }
}

std::string name_arg(py::handle name) {
  if (PyUnicode_Check(name.ptr())) return name.cast<std::string>();
  BytesArg bytes(name, "tree name");
  return bytes.view().str();
}

std::string path_arg(py::handle path) {
  PyObject* fspath = PyOS_FSPath(path.ptr());
  if (fspath == nullptr) throw py::error_already_set();
  py::object p = py::reinterpret_steal<py::object>(fspath);
  std::string out = PyBytes_Check(p.ptr()) ? p.cast<std::string>() : py::str(p).cast<std::string>();
  // The OS would take the path up to the NUL: another file. Python's open() refuses too.
  if (out.find('\0') != std::string::npos) throw py::value_error("embedded null byte in path");
  return out;
}

}  // namespace ordo::python
