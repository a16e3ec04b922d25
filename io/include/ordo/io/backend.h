// The write path of one open file: WriteBackend, its two implementations (io_uring and
// POSIX), and make_backend() to choose one.
//
// A commit hands the backend every page it writes as a list of WriteSpans. The backend
// sorts them by offset, coalesces adjacent spans into one vectored write (at most
// kMaxIovecsPerWrite iovecs each), writes every byte, and, when asked, issues one
// fdatasync that completes only after all of those writes completed. write_ordered()
// adds a second group (the meta page) that starts only after the first completed, so a
// one-sync commit is one batch: on io_uring, one io_uring_enter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "ordo/status.h"

namespace ordo::io {

// Which WriteBackend make_backend() builds. The io layer's own copy of the public
// ordo::IoBackend option (options.h), which io cannot include: the engine maps one to
// the other.
enum class BackendKind {
  kAuto,   // the default write path: POSIX (see make_backend()).
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

// Submission queue entries of the io_uring backend's ring (its completion queue holds
// twice as many). A write with more coalesced runs than this is submitted in several
// batches, all before the sync; write_ordered() submits its one linked chain in a single
// io_uring_enter when all of its operations fit.
inline constexpr unsigned kUringQueueEntries = 256;

// The write path of one open file descriptor.
//
// Thread-safety: not thread-safe; one writer uses it at a time (calls from different
// threads are fine when they do not overlap). The backend does not own the file
// descriptor: it must stay open for the backend's whole life.
class WriteBackend {
 public:
  virtual ~WriteBackend() = default;

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

  // Writes `first` as write(first, false) would, then `then` as write(then, sync_after)
  // would, with one ordering guarantee: no byte of `then` is written before every write
  // of `first` completed (reached the page cache), and none is written when a write of
  // `first` failed. Spans of `first` and `then` may not overlap within their group; the
  // groups are not checked against each other.
  //
  // The default implementation is those two write() calls. The io_uring backend submits
  // everything as one chain of linked operations (IOSQE_IO_LINK: a failed or short write
  // cancels what follows it) in one io_uring_enter when it fits the ring, finishing any
  // short or cancelled remainder group by group, in order, afterwards.
  // Returns as write(); an error leaves `then` unwritten when it came from `first`.
  virtual Status write_ordered(std::span<const WriteSpan> first, std::span<const WriteSpan> then,
                               bool sync_after);

  // fdatasync: makes every completed write durable.
  // Returns Full on ENOSPC/EDQUOT, IOError (errno) on any other failure.
  virtual Status sync() = 0;

  // Writes the spans as write(spans, false) would, each made durable by itself before
  // the call returns (pwritev2 with RWF_DSYNC): only these bytes (and the file metadata
  // needed to read them back) are synced, not the other writes of the file. A commit's
  // log record takes this path. On a failure the spans' bytes may have reached the
  // page cache or the disk in part.
  // The default implementation is write(spans, true), which syncs the whole file.
  // Returns as write().
  virtual Status write_durable(std::span<const WriteSpan> spans);

  // System calls this backend made so far to hand writes or syncs to the kernel:
  // io_uring_enter calls (io_uring), pwritev and fdatasync calls (POSIX). Failed and
  // retried calls count. Read by the writer thread (not synchronized).
  virtual uint64_t submissions() const = 0;
};

// Builds the backend `kind` writing to `fd` (open for writing; not owned).
//
// kAuto builds the POSIX backend: pages are written into the page cache, where a
// pwritev completes at once; through io_uring the same write is handed to a kernel
// worker thread, and a one-row durable commit measured 1.6x slower on ext4
// (docs/BENCHMARKS.md), so io_uring is used only when asked for (kUring). The choice
// depends on `kind` alone, never on the process environment.
// Returns:
//   InvalidArgument  fd < 0 or an unknown kind.
//   IOError          kUring, and io_uring cannot be set up; the message names the
//                    reason and what to check.
// Thread-safety: safe to call from any thread.
Result<std::unique_ptr<WriteBackend>> make_backend(int fd, BackendKind kind);

}  // namespace ordo::io
