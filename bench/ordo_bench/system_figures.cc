#include "system_figures.h"

#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace ordo::bench {

Result<FileUsage> file_usage(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Status::io_error("stat " + path, errno);
  FileUsage usage;
  usage.file_bytes = static_cast<uint64_t>(st.st_size);
  usage.allocated_bytes = static_cast<uint64_t>(st.st_blocks) * 512;
  return usage;
}

ProcessMemory process_memory() {
  ProcessMemory mem;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    std::istringstream fields(line);
    std::string key;
    uint64_t kib = 0;
    if (!(fields >> key >> kib)) continue;
    if (key == "RssAnon:") mem.rss_anon_bytes = kib * 1024;
    if (key == "RssFile:") mem.rss_file_bytes = kib * 1024;
    if (key == "VmHWM:") mem.peak_rss_bytes = kib * 1024;
  }
  return mem;
}

}  // namespace ordo::bench
