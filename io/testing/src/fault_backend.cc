#include "ordo/io/testing/fault_backend.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "ordo/base/errno_status.h"
#include "write_plan.h"

namespace ordo::io::testing {

FaultBackend::FaultBackend(int fd, std::unique_ptr<WriteBackend> real,
                           std::shared_ptr<FaultLog> log)
    : fd_(fd), real_(std::move(real)), log_(std::move(log)) {}

namespace {

// The real backends' validation (overlap, nullptr data, offset range), same messages,
// then the non-empty spans by offset.
Result<std::vector<WriteSpan>> sorted_spans(std::span<const WriteSpan> spans) {
  WritePlan plan;
  ORDO_RETURN_IF_ERROR(plan.build(spans));
  std::vector<WriteSpan> sorted;
  sorted.reserve(spans.size());
  for (const WriteSpan& span : spans) {
    if (span.size_bytes != 0) sorted.push_back(span);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const WriteSpan& a, const WriteSpan& b) { return a.offset_bytes < b.offset_bytes; });
  return sorted;
}

}  // namespace

Status FaultBackend::write(std::span<const WriteSpan> spans, bool sync_after) {
  ORDO_ASSIGN_OR_RETURN(const std::vector<WriteSpan> sorted, sorted_spans(spans));
  for (const WriteSpan& span : sorted) {
    ORDO_RETURN_IF_ERROR(write_one(span));
  }
  return sync_after ? sync() : Status::ok();
}

Status FaultBackend::write_durable(std::span<const WriteSpan> spans) {
  ORDO_ASSIGN_OR_RETURN(const std::vector<WriteSpan> sorted, sorted_spans(spans));
  for (const WriteSpan& span : sorted) {
    ORDO_RETURN_IF_ERROR(write_one(span));
    FaultOp op;
    op.kind = FaultOp::Kind::kSyncRange;
    op.error = log_->admit_sync();
    op.file_bytes = file_bytes();
    const int err = op.error;
    log_->record(std::move(op));
    if (err != 0) {
      return base::write_error("pwritev2(RWF_DSYNC) at offset " +
                                   std::to_string(span.offset_bytes) + " (injected by FaultLog)",
                               err);
    }
  }
  return Status::ok();
}

Status FaultBackend::write_one(const WriteSpan& span) {
  FaultOp op;
  op.kind = FaultOp::Kind::kWrite;
  op.offset_bytes = span.offset_bytes;
  const auto* bytes = static_cast<const std::byte*>(span.data);
  op.data.assign(bytes, bytes + span.size_bytes);

  const int injected = log_->admit_write(span.size_bytes);
  if (injected != 0) {
    op.error = injected;
    op.file_bytes = file_bytes();
    log_->record(std::move(op));
    return base::write_error(
        "pwritev at offset " + std::to_string(span.offset_bytes) + " (injected by FaultLog)",
        injected);
  }
  Status s = real_->write(std::span<const WriteSpan>(&span, 1), false);
  if (!s.is_ok()) {
    op.error = s.errno_value() != 0 ? s.errno_value() : (s.is_full() ? ENOSPC : EIO);
  }
  op.file_bytes = file_bytes();
  log_->record(std::move(op));
  return s;
}

Status FaultBackend::sync() {
  FaultOp op;
  op.kind = FaultOp::Kind::kSync;
  const int injected = log_->admit_sync();
  if (injected != 0) {
    op.error = injected;
    op.file_bytes = file_bytes();
    log_->record(std::move(op));
    return base::write_error("fdatasync (injected by FaultLog)", injected);
  }
  Status s = real_->sync();
  if (!s.is_ok()) {
    op.error = s.errno_value() != 0 ? s.errno_value() : (s.is_full() ? ENOSPC : EIO);
  }
  op.file_bytes = file_bytes();
  log_->record(std::move(op));
  return s;
}

uint64_t FaultBackend::file_bytes() const {
  struct stat st;
  if (::fstat(fd_, &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_size);
}

std::function<Result<std::unique_ptr<WriteBackend>>(int fd)> fault_backend_factory(
    std::shared_ptr<FaultLog> log, BackendKind real_kind) {
  return [log = std::move(log), real_kind](int fd) -> Result<std::unique_ptr<WriteBackend>> {
    ORDO_RETURN_IF_ERROR(log->start(fd));
    ORDO_ASSIGN_OR_RETURN(std::unique_ptr<WriteBackend> real, make_backend(fd, real_kind));
    return std::unique_ptr<WriteBackend>(std::make_unique<FaultBackend>(fd, std::move(real), log));
  };
}

}  // namespace ordo::io::testing
