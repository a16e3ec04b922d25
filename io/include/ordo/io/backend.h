// The write path of one open file: IoBackend, its two implementations (io_uring and
// POSIX), and make_backend() to choose one.
//
// A commit hands the backend every page it writes as a list of WriteSpans. The backend
// sorts them by offset, coalesces adjacent spans into one vectored write (at most
// kMaxIovecsPerWrite iovecs each), writes every byte, and, when asked, issues one
// fdatasync that completes only after all of those writes completed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "ordo/status.h"

namespace ordo::io {

// Which write backend make_backend() builds.
enum class BackendKind {
  kAuto,   // ORDO_IO=posix|uring when set, else io_uring if it can be set up, else POSIX.
  kUring,  // io_uring; an error if it cannot be set up.
  kPosix,  // pwritev + fdatasync.
};

// One contiguous write of `size_bytes` at byte `offset_bytes` of the file. `data` is
// owned by the caller and must stay valid and unchanged until write() returns. A span
// with size_bytes == 0 is ignored (its data may be nullptr).
struct WriteSpan {
  uint64_t offset_bytes;
  const void* data;
  size_t size_bytes;
};

// Most iovecs in one vectored write (Linux IOV_MAX); longer runs of adjacent spans are
// split into several writes.
inline constexpr size_t kMaxIovecsPerWrite = 1024;

// Submission queue entries of the io_uring backend's ring. A write with more coalesced
// runs than this is submitted in several batches, all before the sync.
inline constexpr unsigned kUringQueueEntries = 64;

// Value of the environment variable ORDO_IO that BackendKind::kAuto reads.
inline constexpr std::string_view kBackendEnvVar = "ORDO_IO";

// The write path of one open file descriptor.
//
// Thread-safety: not thread-safe; one writer uses it at a time (calls from different
// threads are fine when they do not overlap). The backend does not own the file
// descriptor: it must stay open for the backend's whole life.
class IoBackend {
 public:
  virtual ~IoBackend() = default;

  // "io_uring" or "posix".
  virtual std::string_view name() const = 0;

  // Writes every span fully. Spans may come in any order; they must not overlap. The
  // backend sorts them by offset and coalesces adjacent ones (one's offset_bytes +
  // size_bytes equals the next one's offset_bytes) into one vectored write of up to
  // kMaxIovecsPerWrite iovecs. Short writes are finished and EINTR/EAGAIN retried. If
  // `sync_after`, then issues fdatasync, which completes only after every write
  // completed (also with no spans: then it is a plain sync()).
  //
  // When it returns, no write of this call is still in flight, whatever the outcome.
  // Returns:
  //   InvalidArgument  spans overlap, a span has nullptr data with a non-zero size, or
  //                    offset_bytes + size_bytes exceeds the largest file offset (2^63-1).
  //   Full             the kernel reported ENOSPC, EDQUOT or EFBIG (disk, quota or file
  //                    size limit). Bytes of this call may have been written partially.
  //   IOError          any other failure of the write or the sync; errno_value() is errno.
  //                    After a failed sync the durability of earlier writes is unknown.
  virtual Status write(std::span<const WriteSpan> spans, bool sync_after) = 0;

  // fdatasync: makes every completed write durable.
  // Returns Full on ENOSPC/EDQUOT, IOError (errno) on any other failure.
  virtual Status sync() = 0;
};

// Builds the backend `kind` writing to `fd` (open for writing; not owned).
//
// kAuto reads the environment variable ORDO_IO: "posix" or "uring" select that backend
// as if given explicitly; unset or empty means io_uring when io_uring_queue_init succeeds
// (and the kernel supports IORING_OP_WRITEV and IORING_OP_FSYNC), else POSIX.
// Returns:
//   InvalidArgument  fd < 0, an unknown kind, or ORDO_IO set to another value.
//   IOError          io_uring was asked for (kUring or ORDO_IO=uring) but cannot be set
//                    up; the message names the reason and what to check.
// Thread-safety: safe to call from any thread (reads the environment).
Result<std::unique_ptr<IoBackend>> make_backend(int fd, BackendKind kind);

}  // namespace ordo::io
