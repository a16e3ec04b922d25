// SyncProbe: the machine's own cost of one durable 4 KiB write (pwrite +
// fdatasync on a scratch file beside the database), the physical floor a
// durable commit is compared against (docs/BENCHMARKS.md). On these shared
// machines fdatasync latency drifts by several times within seconds, so the
// probe is interleaved with the measured work and read per window.
#pragma once

#include <string>

#include "ordo/status.h"

namespace ordo::bench {

// Move-only. One thread at a time.
class SyncProbe {
 public:
  // Creates the scratch file at `path` (it must not exist) and preallocates
  // what the probe writes, so probes change no file metadata. The file is
  // removed on destruction.
  static Result<SyncProbe> create(const std::string& path);

  SyncProbe(SyncProbe&& other) noexcept;
  SyncProbe& operator=(SyncProbe&&) = delete;
  ~SyncProbe();

  // Writes 4 KiB and fdatasyncs; returns the microseconds both took.
  Result<double> probe_us();

 private:
  SyncProbe(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_ = -1;
  unsigned next_block_ = 0;
};

}  // namespace ordo::bench
