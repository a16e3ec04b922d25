#include "system_figures.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

namespace ordo::bench {
namespace {

// The kB figure after `key` (for example "RssAnon:") in `text`, in bytes.
uint64_t field_bytes(const char* text, const char* key) {
  const char* at = std::strstr(text, key);
  if (at == nullptr) return 0;
  return std::strtoull(at + std::strlen(key), nullptr, 10) * 1024;
}

}  // namespace

Result<FileUsage> file_usage(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Status::io_error("stat " + path, errno);
  FileUsage usage;
  usage.file_bytes = static_cast<uint64_t>(st.st_size);
  usage.allocated_bytes = static_cast<uint64_t>(st.st_blocks) * 512;
  return usage;
}

Result<FileUsage> path_usage(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return file_usage(path);
  FileUsage sum;
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    ORDO_ASSIGN_OR_RETURN(const FileUsage one, file_usage(it->path().string()));
    sum.file_bytes += one.file_bytes;
    sum.allocated_bytes += one.allocated_bytes;
  }
  if (ec) return Status::io_error("list " + path, ec.value());
  return sum;
}

Result<std::set<std::string>> directory_entries(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (d == nullptr) return Status::io_error("opendir " + dir, errno);
  std::set<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(d.get())) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.insert(name);
    errno = 0;
  }
  if (errno != 0) return Status::io_error("readdir " + dir, errno);
  return names;
}

ProcessMemory process_memory() {
  ProcessMemory mem;
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return mem;
  char text[8192];
  size_t used = 0;
  ssize_t n = 0;
  while (used < sizeof text - 1 && (n = ::read(fd, text + used, sizeof text - 1 - used)) > 0) {
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  text[used] = '\0';
  mem.rss_anon_bytes = field_bytes(text, "RssAnon:");
  mem.rss_file_bytes = field_bytes(text, "RssFile:");
  mem.rss_shmem_bytes = field_bytes(text, "RssShmem:");
  mem.peak_rss_bytes = field_bytes(text, "VmHWM:");
  return mem;
}

uint64_t process_write_call_bytes() {
  const int fd = ::open("/proc/self/io", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[1024];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  const char* at = std::strstr(text, "wchar:");
  return at == nullptr ? 0 : std::strtoull(at + 6, nullptr, 10);
}

}  // namespace ordo::bench
