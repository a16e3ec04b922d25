// What the operating system says about a run: a file's size on disk, the
// entries of a directory and the process's resident memory.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "ordo/status.h"

namespace ordo::bench {

struct FileUsage {
  uint64_t file_bytes = 0;       // apparent size (st_size)
  uint64_t allocated_bytes = 0;  // blocks on disk (st_blocks * 512)
};

// IOError when stat(2) fails.
Result<FileUsage> file_usage(const std::string& path);

// The sum over `path`: the file itself, or every regular file below the
// directory `path` (a peer's store). IOError when one cannot be read.
Result<FileUsage> path_usage(const std::string& path);

// The names in directory `dir` (without "." and ".."). IOError when it cannot
// be read.
Result<std::set<std::string>> directory_entries(const std::string& dir);

// Resident memory from /proc/self/status; zero where a field is unavailable.
struct ProcessMemory {
  uint64_t rss_anon_bytes = 0;   // RssAnon: heap, stacks, anonymous maps
  uint64_t rss_file_bytes = 0;   // RssFile: mapped files (the database mapping)
  uint64_t rss_shmem_bytes = 0;  // RssShmem: tmpfs and shared anonymous maps
  uint64_t peak_rss_bytes = 0;   // VmHWM: high-water mark of the whole process
};

// Reads /proc/self/status without allocating, so it may run often (a
// sampling thread) without disturbing the figures it reads.
ProcessMemory process_memory();

// Bytes this process has passed to write(2)-family calls so far (wchar of
// /proc/self/io): pwrite, pwritev and writev alike, whether or not the kernel
// has flushed them yet. Stores written through a shared mapping or through
// io_uring are not counted. Zero where the file is unavailable.
uint64_t process_write_call_bytes();

}  // namespace ordo::bench
