// Opening a database file: open(2), the regular-file check, the exclusive flock and the
// one directory sync of a new file. PageFile::open builds on this.
#pragma once

#include <cstdint>
#include <string>

#include "ordo/io/file_options.h"
#include "ordo/status.h"

namespace ordo::io {

// Owns a file descriptor; closes it on destruction unless released. Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  int get() const { return fd_; }
  // Gives up ownership; returns the descriptor.
  int release();

 private:
  int fd_ = -1;
};

// A database file opened by open_database_file().
struct OpenedFile {
  UniqueFd fd;
  // Writable opens: a second descriptor of the same file that holds the flock.
  // No I/O ever goes through it, so no in-flight io_uring request can keep it
  // (and the lock) alive after the process dies.
  UniqueFd lock_fd;
  uint64_t length_bytes = 0;  // st_size after the lock was taken
};

// Opens `path` as FileOptions describe (see PageFile::open): read-only without a lock,
// or read-write (created when missing if options.create_if_missing) under
// flock(LOCK_EX|LOCK_NB). A writable file found empty (new, or created by an open that
// never wrote) gets its parent directory fsynced so its name is durable.
// Returns NotFound (missing file or directory), Busy (locked), InvalidArgument (not a
// regular file) or IOError (a system call failed; the message names it and the path).
Result<OpenedFile> open_database_file(const std::string& path, const FileOptions& options);

// fsyncs the directory that holds `path`. Returns IOError naming the directory.
Status sync_parent_directory(const std::string& path);

}  // namespace ordo::io
