// PosixBackend: the WriteBackend made of pwritev + fdatasync, built for BackendKind::kAuto
// and BackendKind::kPosix.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "ordo/io/backend.h"
#include "write_plan.h"

namespace ordo::io {

// Writes each coalesced run with pwritev (finishing short writes, retrying EINTR and
// EAGAIN), in ascending offset order, then fdatasync when asked.
// Thread-safety: as WriteBackend (one writer at a time).
class PosixBackend final : public WriteBackend {
 public:
  // `fd` is open for writing and outlives the backend.
  explicit PosixBackend(int fd) : fd_(fd) {}

  std::string_view name() const override { return "posix"; }
  Status write(std::span<const WriteSpan> spans, bool sync_after) override;
  Status sync() override;
  // pwritev2 with RWF_DSYNC per coalesced run.
  Status write_durable(std::span<const WriteSpan> spans) override;
  uint64_t submissions() const override { return submissions_; }

 private:
  // Writes all of `run` with pwritev2 and `flags` (0 or RWF_DSYNC). Returns
  // Full/IOError as WriteBackend::write.
  Status write_run(WriteRun& run, int flags);

  const int fd_;
  WritePlan plan_;
  uint64_t submissions_ = 0;  // pwritev and fdatasync calls
};

}  // namespace ordo::io
