// make_backend(): chooses and builds the write backend of one file descriptor.
#include "ordo/io/backend.h"

#include <memory>
#include <string>

#include "posix_backend.h"
#include "uring_backend.h"

namespace ordo::io {
namespace {

Result<std::unique_ptr<WriteBackend>> make_posix(int fd) {
  return std::unique_ptr<WriteBackend>(std::make_unique<PosixBackend>(fd));
}

}  // namespace

Status WriteBackend::write_ordered(std::span<const WriteSpan> first,
                                   std::span<const WriteSpan> then, bool sync_after) {
  ORDO_RETURN_IF_ERROR(write(first, false));
  return write(then, sync_after);
}

Status WriteBackend::write_durable(std::span<const WriteSpan> spans) { return write(spans, true); }

Result<std::unique_ptr<WriteBackend>> make_backend(int fd, BackendKind kind) {
  if (fd < 0) {
    return Status::invalid_argument("make_backend: bad file descriptor " + std::to_string(fd));
  }
  switch (kind) {
    case BackendKind::kAuto:
    case BackendKind::kPosix:
      return make_posix(fd);
    case BackendKind::kUring:
      return UringBackend::create(fd);
  }
  return Status::invalid_argument("make_backend: unknown BackendKind " +
                                  std::to_string(static_cast<int>(kind)));
}

}  // namespace ordo::io
