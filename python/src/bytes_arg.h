// Keys and values from Python: any object with the buffer protocol (bytes,
// bytearray, memoryview, numpy arrays, mmap), C-contiguous; str is refused
// (keys and values are bytes, as in py-lmdb), and so is a buffer of Python
// objects (a numpy object array), whose memory is pointers.
#pragma once

#include <pybind11/pybind11.h>

#include "ordo/byte_view.h"

namespace ordo::python {

namespace py = pybind11;

// The bytes of one argument, valid while this object lives, also while the
// GIL is released: bytes are immutable and referenced here; any other
// exporter is held through a Py_buffer, which keeps it from resizing.
// Move-only; construct and destroy with the GIL held.
class BytesArg {
 public:
  BytesArg() = default;
  // Raises TypeError naming `what` ("key", "value") for str or an object
  // without a contiguous buffer.
  BytesArg(py::handle object, const char* what);
  BytesArg(BytesArg&& other) noexcept;
  BytesArg& operator=(BytesArg&& other) noexcept;
  BytesArg(const BytesArg&) = delete;
  BytesArg& operator=(const BytesArg&) = delete;
  ~BytesArg();

  ByteView view() const { return view_; }

 private:
  void release();
  py::object bytes_;    // a bytes object, referenced
  Py_buffer buffer_{};  // any other exporter; buffer_.obj is null when unused
  ByteView view_;
};

// Bytes of a tree name: str (UTF-8) or bytes-like.
std::string name_arg(py::handle name);

// A file path: str, bytes or os.PathLike (os.fspath); TypeError otherwise.
std::string path_arg(py::handle path);

}  // namespace ordo::python
