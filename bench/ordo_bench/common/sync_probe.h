// SyncProbe: the machine's own cost of one durable 4 KiB write (pwrite +
// fdatasync on a scratch file beside the database), the physical floor a
// durable commit is compared against (docs/BENCHMARKS.md). On these shared
// machines fdatasync latency drifts by several times within seconds, so the
// probe is interleaved with the measured work and read per window.
//
// Two kinds of block, because a filesystem syncs them differently:
//   kOverwrite  blocks written and fsynced when the probe is made; each
//               probe overwrites the next of them in turn (data only);
//   kUnwritten  blocks fallocated but never written; each probe writes the
//               next fresh one, so its fdatasync also records the extent as
//               written (on ext4 a journal commit), as a write into a
//               preallocated file does the first time.
#pragma once

#include <string>
#include <utility>

#include "ordo/status.h"

namespace ordo::bench {

enum class ProbeBlocks { kOverwrite, kUnwritten };

// Move-only. One thread at a time.
class SyncProbe {
 public:
  // Creates the scratch file at `path` (it must not exist) and preallocates
  // `blocks` 4 KiB blocks, so probes change no file size; for kOverwrite
  // writes every block once and fsyncs. kUnwritten probes overwrite written
  // blocks after the first `blocks` probes. The file is removed on
  // destruction. REQUIRES: blocks > 0.
  static Result<SyncProbe> create(const std::string& path,
                                  ProbeBlocks kind = ProbeBlocks::kOverwrite, unsigned blocks = 16);

  SyncProbe(SyncProbe&& other) noexcept;
  SyncProbe& operator=(SyncProbe&&) = delete;
  ~SyncProbe();

  // Writes 4 KiB and fdatasyncs; returns the microseconds both took.
  Result<double> probe_us();

 private:
  SyncProbe(std::string path, int fd, unsigned blocks)
      : path_(std::move(path)), fd_(fd), blocks_(blocks) {}

  std::string path_;
  int fd_ = -1;
  unsigned blocks_ = 1;
  unsigned next_block_ = 0;
};

}  // namespace ordo::bench
