// FileOptions (how PageFile::open opens a database file) and FileStats (what the file
// did since it was opened).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "ordo/io/backend.h"

namespace ordo::io {

// How PageFile::open opens a database file. All sizes are in bytes.
struct FileOptions {
  // O_RDONLY: no lock, no growth, no writes (grow_to/write/sync are InvalidArgument).
  bool read_only = false;
  // Create the file when missing (writable opens only); else a missing file is NotFound.
  bool create_if_missing = true;
  // Writable opens: how long to wait, in ms, while another handle holds the
  // exclusive lock, before Busy. 0: Busy at once.
  uint32_t lock_wait_ms = 0;
  // Write backend of a writable file (see make_backend()).
  BackendKind backend = BackendKind::kAuto;
  // Minimum growth step. Must be > 0.
  uint64_t extent_bytes = 64ull << 20;
  // Growth step cap: the step is clamp(file_bytes / 8, extent_bytes, max_extent_bytes),
  // rounded up to the system page size. Must be >= extent_bytes.
  uint64_t max_extent_bytes = 1ull << 30;
  // Address space reserved for the read mapping, which is also the largest file size
  // (rounded up to the system page size). Reserving costs no memory. Must be > 0.
  uint64_t map_reserve_bytes = 256ull << 30;
  // Tests only: builds the write backend for the file's descriptor instead of
  // `backend` (the fault-injecting backend of crash tests).
  std::function<Result<std::unique_ptr<WriteBackend>>(int fd)> backend_factory;
};

// Counters of what a PageFile did since open, for Database::stats() and benchmarks.
// Only successful calls are counted, except write_calls, which counts every submission.
struct FileStats {
  // System calls that handed writes or syncs to the kernel (WriteBackend::submissions()):
  // io_uring_enter calls with io_uring (a one-sync commit is one), pwritev and fdatasync
  // calls with POSIX. Failed calls count too.
  uint64_t write_calls = 0;
  uint64_t spans_written = 0;  // WriteSpans passed to successful write calls
  uint64_t bytes_written = 0;  // sum of their size_bytes
  uint64_t syncs = 0;          // successful fdatasyncs: write*(..., true) plus sync()
  uint64_t growths = 0;        // grow_to calls that lengthened the file
};

}  // namespace ordo::io
