#include "ordo/base/replacement_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <random>

#include "ordo/base/errno_status.h"

namespace ordo::base {
namespace {

Status file_error(const std::string& what, int err) {
  if (err == ENOENT) return Status::not_found(what + ": " + errno_text(err));
  return write_error(what, err);
}

}  // namespace

Status refuse_database_as_target(const struct stat& target, const std::string& path,
                                 const std::string& database_path, const OutputKind& kind) {
  struct stat database;
  if (::stat(database_path.c_str(), &database) == 0 && database.st_dev == target.st_dev &&
      database.st_ino == target.st_ino) {
    return Status::invalid_argument(std::string(kind.verb) + " target '" + path +
                                    "' is the database being " + kind.participle);
  }
  return Status::ok();
}

ReplacementFile::~ReplacementFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!published_ && !temp_name_.empty() && dir_fd_ >= 0) {
    ::unlinkat(dir_fd_, temp_name_.c_str(), 0);
  }
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

Status ReplacementFile::create(const std::string& path, bool overwrite,
                               const std::string& database_path, const OutputKind& kind) {
  kind_ = kind;
  const std::string target_name = std::string(kind.verb) + " target '" + path + "'";
  const size_t slash = path.find_last_of('/');
  dir_ = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  base_ = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base_.empty() || base_ == "." || base_ == "..") {
    return Status::invalid_argument(target_name + " does not name a file");
  }
  struct stat target;
  if (::stat(path.c_str(), &target) == 0) {
    if (S_ISDIR(target.st_mode)) return Status::invalid_argument(target_name + " is a directory");
    if (!S_ISREG(target.st_mode)) {
      return Status::invalid_argument(target_name +
                                      " is not a regular file (a device, FIFO or socket is never "
                                      "replaced)");
    }
    ORDO_RETURN_IF_ERROR(refuse_database_as_target(target, path, database_path, kind));
    if (!overwrite) {
      return Status::invalid_argument(target_name + " exists (CopyOptions::overwrite replaces it)");
    }
  }
  dir_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) return file_error("open directory " + dir_, errno);
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%06x", static_cast<unsigned>(rd()) & 0xffffff);
    temp_name_ = "." + base_ + ".ordo-" + kind.verb + "-" + suffix;
    fd_ = ::openat(dir_fd_, temp_name_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ >= 0) return Status::ok();
    if (errno != EEXIST) {
      const int err = errno;
      temp_name_.clear();
      return file_error("create a temporary file in " + dir_, err);
    }
  }
  temp_name_.clear();
  return Status::io_error("no free temporary file name in " + dir_, EEXIST);
}

Status ReplacementFile::publish(bool overwrite,
                                const std::function<void(std::string_view event)>& on_event) {
  ::close(fd_);
  fd_ = -1;
  int rc;
  if (overwrite) {
    rc = ::renameat(dir_fd_, temp_name_.c_str(), dir_fd_, base_.c_str());
  } else {
    rc = ::renameat2(dir_fd_, temp_name_.c_str(), dir_fd_, base_.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
      // No RENAME_NOREPLACE on this file system: link() refuses an existing name too.
      rc = ::linkat(dir_fd_, temp_name_.c_str(), dir_fd_, base_.c_str(), 0);
      if (rc == 0) ::unlinkat(dir_fd_, temp_name_.c_str(), 0);
    }
  }
  if (rc != 0) {
    const int err = errno;
    if (err == EEXIST) {
      return Status::invalid_argument(std::string(kind_.verb) + " target '" + dir_ + "/" + base_ +
                                      "' appeared while " + kind_.gerund + "; not replaced");
    }
    return file_error(std::string("rename the ") + kind_.verb + " to " + base_, err);
  }
  published_ = true;
  if (on_event) on_event("renamed");
  if (::fsync(dir_fd_) != 0) {
    // The name may not survive a crash, so the call fails, and a failed call
    // leaves no file that looks like a finished output. (The file itself is
    // complete and synced: one that comes back after a crash is whole.)
    const int err = errno;
    std::string what = "fsync directory " + dir_ + " after the rename (" + base_;
    if (::unlinkat(dir_fd_, base_.c_str(), 0) == 0) {
      what += " removed again)";
    } else {
      what += " is complete but may not survive a crash; removing it failed: " + errno_text(errno) +
              ")";
    }
    return write_error(what, err);
  }
  if (on_event) on_event("directory synced");
  return Status::ok();
}

}  // namespace ordo::base
