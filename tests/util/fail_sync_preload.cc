// A shared library for LD_PRELOAD (tests only) that makes a program's syncs
// and positional writes fail the way a failing disk makes them fail, so the
// tests can run the `ordo` tool as a process over a disk that fails. It
// wraps fsync and fdatasync (syncs) and pwrite and pwritev with their 64-bit
// and v2 forms (writes: the POSIX I/O backend's calls; io_uring submissions
// do not pass through it). Only this library reads these variables:
//
//   FAULT_PRELOAD_SYNC_ERRNO   the errno a failing sync returns: EIO, ENOSPC,
//                              EDQUOT or a number; unset: no sync fails
//   FAULT_PRELOAD_SYNC_AT=N    the Nth sync (0 = the first) fails, only that one
//   FAULT_PRELOAD_SYNC_FROM=N  the Nth sync and every later one fail
//   FAULT_PRELOAD_WRITE_ERRNO, FAULT_PRELOAD_WRITE_AT, FAULT_PRELOAD_WRITE_FROM
//                              the same for writes
//   FAULT_PRELOAD_PATH=S       only calls on a descriptor whose path
//                              (/proc/self/fd/FD) contains S count and fail;
//                              unset: every descriptor
//   FAULT_PRELOAD_LOG=FILE     appends a line per counted call to FILE:
//                              "sync 0 PATH ok", "write 3 PATH EIO"
//
// A failing call does nothing and returns -1 with errno set (the fault
// backend's model: a failed op changed nothing). With neither _AT nor _FROM
// set, the calls are only counted and logged.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct Rule {
  const char* kind;  // "sync" or "write", in the log
  int err = 0;       // 0: never fails
  long at = -1;      // fails only at this count
  long from = -1;    // fails at this count and after
  std::atomic<long> count{0};
};

Rule sync_rule{"sync"};
Rule write_rule{"write"};
const char* path_filter = nullptr;
int log_fd = -1;

int parse_errno(const char* text) {
  if (text == nullptr || *text == '\0') return 0;
  if (std::strcmp(text, "EIO") == 0) return EIO;
  if (std::strcmp(text, "ENOSPC") == 0) return ENOSPC;
  if (std::strcmp(text, "EDQUOT") == 0) return EDQUOT;
  return std::atoi(text);
}

long parse_count(const char* text) {
  return text != nullptr && *text != '\0' ? std::atol(text) : -1;
}

void read_rule(Rule& rule, const char* errno_var, const char* at_var, const char* from_var) {
  rule.err = parse_errno(std::getenv(errno_var));
  rule.at = parse_count(std::getenv(at_var));
  rule.from = parse_count(std::getenv(from_var));
}

__attribute__((constructor)) void read_environment() {
  read_rule(sync_rule, "FAULT_PRELOAD_SYNC_ERRNO", "FAULT_PRELOAD_SYNC_AT",
            "FAULT_PRELOAD_SYNC_FROM");
  read_rule(write_rule, "FAULT_PRELOAD_WRITE_ERRNO", "FAULT_PRELOAD_WRITE_AT",
            "FAULT_PRELOAD_WRITE_FROM");
  const char* path = std::getenv("FAULT_PRELOAD_PATH");
  path_filter = path != nullptr && *path != '\0' ? path : nullptr;
  if (const char* log = std::getenv("FAULT_PRELOAD_LOG"); log != nullptr && *log != '\0') {
    log_fd = ::open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }
}

// The errno the call on `fd` must fail with, or 0 to perform it; counts and
// logs the calls the path filter admits.
int admit(Rule& rule, int fd) {
  char path[4096] = "?";
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = ::readlink(link, path, sizeof path - 1);
  if (n >= 0) path[n] = '\0';
  if (path_filter != nullptr && (n < 0 || std::strstr(path, path_filter) == nullptr)) return 0;
  const long count = rule.count.fetch_add(1);
  const bool fails = rule.err != 0 && (count == rule.at || (rule.from >= 0 && count >= rule.from));
  if (log_fd >= 0) {
    char line[4200];
    const int len = std::snprintf(line, sizeof line, "%s %ld %s %s\n", rule.kind, count, path,
                                  fails ? strerrorname_np(rule.err) : "ok");
    if (len > 0) (void)!::write(log_fd, line, static_cast<size_t>(len));
  }
  return fails ? rule.err : 0;
}

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

#define FAIL_IF(rule, fd)                \
  if (const int err = admit(rule, fd)) { \
    errno = err;                         \
    return -1;                           \
  }

extern "C" {

int fsync(int fd) {
  static const auto real = next<int (*)(int)>("fsync");
  FAIL_IF(sync_rule, fd);
  return real(fd);
}

int fdatasync(int fd) {
  static const auto real = next<int (*)(int)>("fdatasync");
  FAIL_IF(sync_rule, fd);
  return real(fd);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  static const auto real = next<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite");
  FAIL_IF(write_rule, fd);
  return real(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t count, off64_t offset) {
  static const auto real = next<ssize_t (*)(int, const void*, size_t, off64_t)>("pwrite64");
  FAIL_IF(write_rule, fd);
  return real(fd, buf, count, offset);
}

ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  static const auto real = next<ssize_t (*)(int, const struct iovec*, int, off_t)>("pwritev");
  FAIL_IF(write_rule, fd);
  return real(fd, iov, iovcnt, offset);
}

ssize_t pwritev64(int fd, const struct iovec* iov, int iovcnt, off64_t offset) {
  static const auto real = next<ssize_t (*)(int, const struct iovec*, int, off64_t)>("pwritev64");
  FAIL_IF(write_rule, fd);
  return real(fd, iov, iovcnt, offset);
}

// With RWF_DSYNC the call is a write and a sync of its bytes: a sync that
// fails leaves the bytes written (in the page cache), as the kernel does.
ssize_t pwritev2(int fd, const struct iovec* iov, int iovcnt, off_t offset, int flags) {
  static const auto real = next<ssize_t (*)(int, const struct iovec*, int, off_t, int)>("pwritev2");
  FAIL_IF(write_rule, fd);
  if ((flags & RWF_DSYNC) != 0) {
    if (const int err = admit(sync_rule, fd)) {
      (void)real(fd, iov, iovcnt, offset, flags & ~RWF_DSYNC);
      errno = err;
      return -1;
    }
  }
  return real(fd, iov, iovcnt, offset, flags);
}

ssize_t pwritev64v2(int fd, const struct iovec* iov, int iovcnt, off64_t offset, int flags) {
  static const auto real =
      next<ssize_t (*)(int, const struct iovec*, int, off64_t, int)>("pwritev64v2");
  FAIL_IF(write_rule, fd);
  if ((flags & RWF_DSYNC) != 0) {
    if (const int err = admit(sync_rule, fd)) {
      (void)real(fd, iov, iovcnt, offset, flags & ~RWF_DSYNC);
      errno = err;
      return -1;
    }
  }
  return real(fd, iov, iovcnt, offset, flags);
}

}  // extern "C"
