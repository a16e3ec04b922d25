// Opens a crash image (FaultLog::image) as a reopen after that crash would
// find it: read-only, checksums verified, from a memory file.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ordo/database.h"

namespace ordo::testing {

inline Result<std::unique_ptr<Database>> open_crash_image(const std::vector<std::byte>& image) {
  const int fd = memfd_create("crash-image", MFD_CLOEXEC);
  if (fd < 0) return Status::io_error("memfd_create", errno);
  if (write(fd, image.data(), image.size()) != static_cast<ssize_t>(image.size())) {
    const int err = errno;
    close(fd);
    return Status::io_error("write of the crash image", err);
  }
  Options ro;
  ro.read_only = true;
  ro.verify_checksums = true;
  ro.map_reserve_bytes = 1ull << 30;
  auto db = Database::open("/proc/self/fd/" + std::to_string(fd), ro);
  close(fd);  // the database opened the memory file anew
  return db;
}

}  // namespace ordo::testing
