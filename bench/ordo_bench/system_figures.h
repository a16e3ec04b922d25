// What the operating system says about a run: a file's size on disk and the
// process's resident memory.
#pragma once

#include <cstdint>
#include <string>

#include "ordo/status.h"

namespace ordo::bench {

struct FileUsage {
  uint64_t file_bytes = 0;       // apparent size (st_size)
  uint64_t allocated_bytes = 0;  // blocks on disk (st_blocks * 512)
};

// IOError when stat(2) fails.
Result<FileUsage> file_usage(const std::string& path);

// Resident memory from /proc/self/status; zero where a field is unavailable.
struct ProcessMemory {
  uint64_t rss_anon_bytes = 0;  // RssAnon: heap, stacks, anonymous maps
  uint64_t rss_file_bytes = 0;  // RssFile: mapped files (the database mapping)
  uint64_t peak_rss_bytes = 0;  // VmHWM: high-water mark of the whole process
};

ProcessMemory process_memory();

}  // namespace ordo::bench
