// Opens a crash image (FaultLog::image) as a reopen after that crash would
// find it: read-only, checksums verified, from a memory file. A read-only
// open refuses (Busy) an image whose log holds commits whose pages the crash
// lost; then a writable open replays them, as a user is told to.
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

// Why a read-only open of `path` fails (for a message).
inline std::string ro_problem(const std::string& path) {
  Options ro;
  ro.read_only = true;
  return Database::open(path, ro).status().to_string();
}

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
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  auto db = Database::open(path, ro);
  if (db.status().is_busy() &&
      db.status().message().find("open the database writable") != std::string::npos) {
    Options rw = ro;
    rw.read_only = false;
    db = Database::open(path, rw);
    if (db.is_ok() && (*db)->info().log.replayed.empty()) {
      db = Status::corruption("a read-only open asked for a replay that the writable open did "
                              "not make: " + ro_problem(path));
    }
  }
  close(fd);  // the database opened the memory file anew
  return db;
}

}  // namespace ordo::testing
