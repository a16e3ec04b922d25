// FaultBackend: an WriteBackend that records every write and sync into a FaultLog and
// injects the failures the log is armed with, performing the rest through a real
// backend. fault_backend_factory() plugs it into FileOptions::backend_factory (and
// DatabaseOpener::open). Tests only; the engine never links it.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "ordo/io/backend.h"
#include "ordo/io/testing/fault_log.h"
#include "ordo/status.h"

namespace ordo::io::testing {

// write(spans, sync_after): validates the spans as the real backends do, sorts them by
// offset, then for each span in turn asks the log whether it fails; a failing span is
// recorded as failed and the call returns its error (the spans before it stay written,
// the ones after it are neither written nor recorded); any other span is written alone
// through the real backend and recorded with the file length after it. Then, when
// `sync_after`, a sync op the same way. sync() is one sync op. write_ordered() is the
// WriteBackend default: write(first, false), then write(then, sync_after), so the log holds
// every op of `first` before any op of `then`, as the real backends order them.
//
// Returns, like WriteBackend::write: InvalidArgument for bad spans (nothing recorded);
// Full for an injected ENOSPC/EDQUOT/EFBIG; IOError carrying errno for any other
// injected errno; whatever the real backend returns otherwise.
//
// Thread-safety: as WriteBackend (one writer at a time). `fd` and the real backend's file
// must stay open for the backend's life; the backend does not own `fd`.
class FaultBackend final : public WriteBackend {
 public:
  FaultBackend(int fd, std::unique_ptr<WriteBackend> real, std::shared_ptr<FaultLog> log);

  std::string_view name() const override { return "fault"; }
  Status write(std::span<const WriteSpan> spans, bool sync_after) override;
  Status sync() override;
  // For each span (sorted by offset): a write op as write() records it, then a
  // range-sync op (FaultOp::kSyncRange) that the log may fail as it fails syncs; the
  // real backend writes the span without a sync (the log, not the disk, models
  // durability).
  Status write_durable(std::span<const WriteSpan> spans) override;
  // The real backend's: one per write op and sync op it performed (POSIX by default).
  uint64_t submissions() const override { return real_->submissions(); }

  const std::shared_ptr<FaultLog>& log() const { return log_; }

 private:
  Status write_one(const WriteSpan& span);
  // fstat length of fd_, or 0 when fstat fails.
  uint64_t file_bytes() const;

  const int fd_;
  std::unique_ptr<WriteBackend> real_;
  std::shared_ptr<FaultLog> log_;
};

// A FileOptions::backend_factory: for each file descriptor, calls log->start(fd) (the
// file's current bytes become the log's initial image and earlier ops are forgotten)
// and returns a FaultBackend over make_backend(fd, real_kind). POSIX by default, so
// every op completes before the call returns; the engine's mapping sees the bytes
// either way. Returns the error of start() or make_backend().
std::function<Result<std::unique_ptr<WriteBackend>>(int fd)> fault_backend_factory(
    std::shared_ptr<FaultLog> log, BackendKind real_kind = BackendKind::kPosix);

}  // namespace ordo::io::testing
