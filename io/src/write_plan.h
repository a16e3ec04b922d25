// WritePlan: turns a caller's WriteSpans into sorted, coalesced runs of iovecs, the
// unit both backends submit as one vectored write.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ordo/io/backend.h"
#include "ordo/status.h"

namespace ordo::io {

// One vectored write: `iov_count` iovecs starting at index `first_iov` of the plan's
// iovec array, to be written at byte `offset_bytes`; `size_bytes` is their total.
// advance_run() moves a run forward after a short write.
struct WriteRun {
  uint64_t offset_bytes = 0;
  size_t first_iov = 0;
  size_t iov_count = 0;
  uint64_t size_bytes = 0;
};

// The sorted, coalesced form of one write() call. Owned by a backend and reused across
// calls, so steady-state writes allocate nothing. Not thread-safe.
class WritePlan {
 public:
  // Rebuilds the plan from `spans` (any order): skips empty spans, sorts by offset,
  // merges adjacent spans into runs of at most `max_iovecs_per_run` iovecs.
  // Returns InvalidArgument (and leaves the plan empty) when spans overlap, a non-empty
  // span has nullptr data, or a span ends past the largest file offset (2^63 - 1).
  // REQUIRES: max_iovecs_per_run >= 1.
  Status build(std::span<const WriteSpan> spans, size_t max_iovecs_per_run = kMaxIovecsPerWrite);

  // The runs, in ascending offset order. Backends update them with advance_run().
  std::span<WriteRun> runs() { return runs_; }
  // All iovecs, run after run. Valid (and never reallocated) until the next build().
  std::span<iovec> iovecs() { return iovecs_; }

 private:
  std::vector<WriteSpan> sorted_;
  std::vector<iovec> iovecs_;
  std::vector<WriteRun> runs_;
};

// Marks the first `done_bytes` of `run` as written: drops fully written iovecs, trims
// the first partly written one (editing `iovecs` in place) and moves the offset.
// REQUIRES: done_bytes <= run.size_bytes; `iovecs` is the plan's iovec array.
void advance_run(WriteRun& run, std::span<iovec> iovecs, uint64_t done_bytes);

}  // namespace ordo::io
