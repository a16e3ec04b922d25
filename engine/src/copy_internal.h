// Engine-internal pieces of ReadTxn::copy_to: the sinks a copy writes to,
// and the entry point the fault-injection tests use (a copy whose file writes
// go through a given I/O backend, and that reports when it renames the
// finished file and syncs the directory).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/database.h"
#include "ordo/io/backend.h"

namespace ordo::engine {

// Where a copy's bytes go. Writes come in ascending offsets, except that a
// seekable sink may be written at offset 0 last (the meta pages of a compact
// copy). Small adjacent writes are gathered into large ones.
class CopySink {
 public:
  virtual ~CopySink() = default;
  virtual bool seekable() const = 0;
  // Writes `size` bytes at byte `offset` (a stream: offset must equal the
  // bytes written so far). `data` may be nullptr for zeros.
  virtual Status write(uint64_t offset, const std::byte* data, size_t size) = 0;
  // Writes what is gathered, then makes it durable where the sink can.
  virtual Status finish() = 0;
  // Bytes accepted so far.
  virtual uint64_t bytes() const = 0;
};

// A sink over a file through an I/O backend (pwritev; fdatasync at finish).
std::unique_ptr<CopySink> file_sink(std::unique_ptr<io::WriteBackend> backend);
// A sink over a descriptor written with write(2); fsync at finish when it is
// a regular file.
std::unique_ptr<CopySink> stream_sink(int fd);
// Discards everything (counts bytes): the first pass of a compact copy to a stream.
std::unique_ptr<CopySink> null_sink();

// Test seams of copy_to_path.
struct CopyHooks {
  // Builds the backend that writes the temporary file (default: POSIX).
  std::function<Result<std::unique_ptr<io::WriteBackend>>(int fd)> backend_factory;
  // Called with "renamed" right after the rename and "directory synced"
  // after the directory's fsync.
  std::function<void(std::string_view event)> on_event;
};

// ReadTxn::copy_to with hooks.
Result<CopyResult> copy_to_path(Txn& txn, const std::string& path, const CopyOptions& options,
                                const CopyHooks& hooks);

}  // namespace ordo::engine
