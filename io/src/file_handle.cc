#include "file_handle.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "ordo/base/errno_status.h"

namespace ordo::io {
namespace {

// open(2); ENOENT becomes NotFound. O_NONBLOCK keeps a FIFO at `path` from blocking the
// open; it is cleared again once the file is known to be regular.
Result<UniqueFd> open_path(const std::string& path, const FileOptions& options) {
  int flags = O_CLOEXEC | O_NONBLOCK;
  if (options.read_only) {
    flags |= O_RDONLY;
  } else {
    flags |= O_RDWR | (options.create_if_missing ? O_CREAT : 0);
  }
  int fd;
  do {
    fd = ::open(path.c_str(), flags, 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::not_found("open " + path + ": " + base::errno_text(err));
    return base::os_error("open " + path, err);
  }
  return UniqueFd(fd);
}

// Rejects anything but a regular file, then makes the descriptor blocking.
Status check_regular_file(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return base::os_error("fstat " + path, errno);
  if (!S_ISREG(st.st_mode)) return Status::invalid_argument(path + " is not a regular file");
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return base::os_error("fcntl F_SETFL " + path, errno);
  }
  return Status::ok();
}

// flock(LOCK_EX) without blocking in the kernel: a blocked flock cannot time out
// without a signal, and a library must not use the host's signals. Polls with
// a backoff of 1 ms doubling to 50 ms until `wait_ms` passed.
Status lock_exclusive(int fd, const std::string& path, uint32_t wait_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  auto pause = std::chrono::milliseconds(1);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EINTR) continue;
    if (err != EWOULDBLOCK) return base::os_error("flock " + path, err);
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      return Status::busy("database file " + path + " is locked by another handle" +
                          (wait_ms > 0 ? " (waited " + std::to_string(wait_ms) + " ms)" : ""));
    }
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return Status::ok();
}

Result<uint64_t> file_length(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return base::os_error("fstat " + path, errno);
  return static_cast<uint64_t>(st.st_size);
}

std::string parent_directory(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

int UniqueFd::release() { return std::exchange(fd_, -1); }

Result<OpenedFile> open_database_file(const std::string& path, const FileOptions& options) {
  ORDO_ASSIGN_OR_RETURN(UniqueFd fd, open_path(path, options));
  ORDO_RETURN_IF_ERROR(check_regular_file(fd.get(), path));
  OpenedFile opened;
  if (!options.read_only) {
    FileOptions lock_options = options;
    lock_options.read_only = true;
    ORDO_ASSIGN_OR_RETURN(opened.lock_fd, open_path(path, lock_options));
    ORDO_RETURN_IF_ERROR(lock_exclusive(opened.lock_fd.get(), path, options.lock_wait_ms));
  }
  ORDO_ASSIGN_OR_RETURN(const uint64_t length_bytes, file_length(fd.get(), path));
  if (!options.read_only && length_bytes == 0) ORDO_RETURN_IF_ERROR(sync_parent_directory(path));
  opened.fd = std::move(fd);
  opened.length_bytes = length_bytes;
  return opened;
}

Status sync_parent_directory(const std::string& path) {
  const std::string directory = parent_directory(path);
  int fd;
  do {
    fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return base::os_error("open directory " + directory, errno);
  UniqueFd closer(fd);
  while (::fsync(fd) != 0) {
    if (errno != EINTR) return base::os_error("fsync directory " + directory, errno);
  }
  return Status::ok();
}

}  // namespace ordo::io
