// make_backend(): chooses and builds the write backend of one file descriptor.
#include "ordo/io/backend.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "posix_backend.h"
#include "uring_backend.h"

namespace ordo::io {
namespace {

Result<std::unique_ptr<WriteBackend>> make_posix(int fd) {
  return std::unique_ptr<WriteBackend>(std::make_unique<PosixBackend>(fd));
}

// kAuto: ORDO_IO when set, else io_uring if it can be set up, else POSIX.
Result<std::unique_ptr<WriteBackend>> make_auto(int fd) {
  const char* env = std::getenv(std::string(kBackendEnvVar).c_str());
  const std::string_view choice = env == nullptr ? std::string_view() : std::string_view(env);
  if (choice == "posix") return make_posix(fd);
  if (choice == "uring") return UringBackend::create(fd);
  if (!choice.empty()) {
    return Status::invalid_argument(std::string(kBackendEnvVar) + "=" + std::string(choice) +
                                    ": expected \"posix\" or \"uring\"");
  }
  return make_posix(fd);
}

}  // namespace

Status WriteBackend::write_ordered(std::span<const WriteSpan> first,
                                std::span<const WriteSpan> then, bool sync_after) {
  ORDO_RETURN_IF_ERROR(write(first, false));
  return write(then, sync_after);
}

Status WriteBackend::write_durable(std::span<const WriteSpan> spans) {
  return write(spans, true);
}

Result<std::unique_ptr<WriteBackend>> make_backend(int fd, BackendKind kind) {
  if (fd < 0) {
    return Status::invalid_argument("make_backend: bad file descriptor " + std::to_string(fd));
  }
  switch (kind) {
    case BackendKind::kAuto:
      return make_auto(fd);
    case BackendKind::kUring:
      return UringBackend::create(fd);
    case BackendKind::kPosix:
      return make_posix(fd);
  }
  return Status::invalid_argument("make_backend: unknown BackendKind " +
                                  std::to_string(static_cast<int>(kind)));
}

}  // namespace ordo::io
