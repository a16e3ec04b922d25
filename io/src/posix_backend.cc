#include "posix_backend.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "ordo/base/errno_status.h"

namespace ordo::io {
namespace {

// EAGAIN on a blocking regular file should not happen; give up rather than spin forever.
constexpr int kMaxAgainRetries = 1000;

}  // namespace

Status PosixBackend::write(std::span<const WriteSpan> spans, bool sync_after) {
  ORDO_RETURN_IF_ERROR(plan_.build(spans));
  for (WriteRun& run : plan_.runs()) {
    ORDO_RETURN_IF_ERROR(write_run(run, 0));
  }
  return sync_after ? sync() : Status::ok();
}

Status PosixBackend::write_durable(std::span<const WriteSpan> spans) {
  ORDO_RETURN_IF_ERROR(plan_.build(spans));
  for (WriteRun& run : plan_.runs()) {
    ORDO_RETURN_IF_ERROR(write_run(run, RWF_DSYNC));
  }
  return Status::ok();
}

Status PosixBackend::write_run(WriteRun& run, int flags) {
  std::span<iovec> iovecs = plan_.iovecs();
  int again_retries = 0;
  while (run.size_bytes > 0) {
    const int count = static_cast<int>(std::min(run.iov_count, kMaxIovecsPerWrite));
    ++submissions_;
    const off_t offset = static_cast<off_t>(run.offset_bytes);
    const ssize_t written = flags == 0
                                ? ::pwritev(fd_, &iovecs[run.first_iov], count, offset)
                                : ::pwritev2(fd_, &iovecs[run.first_iov], count, offset, flags);
    if (written < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      if (err == EAGAIN && ++again_retries <= kMaxAgainRetries) continue;
      return base::write_error(std::string(flags != 0 ? "pwritev2(RWF_DSYNC)" : "pwritev") +
                                   " at offset " + std::to_string(run.offset_bytes),
                               err);
    }
    if (written == 0) {
      return Status::io_error(
          "pwritev at offset " + std::to_string(run.offset_bytes) + " wrote nothing", EIO);
    }
    advance_run(run, iovecs, static_cast<uint64_t>(written));
  }
  return Status::ok();
}

Status PosixBackend::sync() {
  while ((++submissions_, ::fdatasync(fd_)) != 0) {
    const int err = errno;
    if (err != EINTR) return base::write_error("fdatasync", err);
  }
  return Status::ok();
}

}  // namespace ordo::io
