// Opens a crash image (FaultLog::image) as a reopen after that crash would
// find it: read-only, checksums verified, from a memory file. A read-only
// open refuses (NeedsRecovery) an image whose log holds commits whose pages the crash
// lost; then a writable open replays them, as a user is told to.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/database.h"
#include "ordo/io/testing/fault_log.h"

namespace ordo::testing {

// Which crash states a test verifies. By default a seeded share: each state
// with probability 1/`every`, and every state that follows a completed sync
// (where the protocols differ most), so the suites stay within CI's time and
// another ORDO_TEST_SEED checks other states. ORDO_CRASH_STATES=all verifies
// every state.
class CrashSample {
 public:
  CrashSample(uint64_t seed, unsigned every) : rng_(seed), every_(every_state() ? 1 : every) {
    const std::string share =
        every_ == 1 ? "every one"
                    : "1 in " + std::to_string(every_) + ", and every one after a sync";
    std::printf("crash states: %s (ORDO_CRASH_STATES=all for every one)\n", share.c_str());
  }

  static bool every_state() {
    const char* env = std::getenv("ORDO_CRASH_STATES");
    return env != nullptr && std::string_view(env) == "all";
  }

  // Whether to verify the state `point` of `log` leaves.
  bool take(const io::testing::FaultLog& log, const io::testing::CrashPoint& point) {
    const bool after_write = point.after_ops < log.op_count() &&
                             log.op(point.after_ops - 1).kind == io::testing::FaultOp::Kind::kWrite;
    if (every_ == 1 || !after_write) return true;
    return rng_() % every_ == 0;
  }

  unsigned every() const { return every_; }

 private:
  std::mt19937_64 rng_;
  unsigned every_;
};

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
  if (db.status().is_needs_recovery()) {
    Options rw = ro;
    rw.read_only = false;
    db = Database::open(path, rw);
    if (db.is_ok() && (*db)->info().log.replayed.empty()) {
      db = Status::corruption(
          "a read-only open asked for a replay that the writable open did "
          "not make: " +
          ro_problem(path));
    }
  }
  close(fd);  // the database opened the memory file anew
  return db;
}

}  // namespace ordo::testing
