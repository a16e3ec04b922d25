#include "output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "open_database.h"
#include "ordo/base/errno_status.h"

namespace ordo::tool {
namespace {

bool stdout_reported = false;

void report_stdout_failure(int err) {
  if (stdout_reported) return;
  stdout_reported = true;
  report_message("stdout: " + base::errno_text(err != 0 ? err : EIO));
}

}  // namespace

bool write_stdout(std::string_view text) {
  if (std::ferror(stdout)) return false;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    report_stdout_failure(errno);
    return false;
  }
  return true;
}

bool finish_stdout() {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  report_stdout_failure(errno);
  return false;
}

bool written_in_place(const struct stat& st) {
  return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

Status refuse_database_as_stdout(const std::string& database_path, const base::OutputKind& kind) {
  struct stat st;
  if (::fstat(STDOUT_FILENO, &st) != 0) return Status::ok();
  return base::refuse_database_as_target(st, "-", database_path, kind);
}

OutputFile::~OutputFile() {
  if (owned_ && stream_ != nullptr) std::fclose(stream_);
}

Status OutputFile::open(const std::optional<std::string>& path, const std::string& database_path,
                        const base::OutputKind& kind) {
  if (!path) {
    ORDO_RETURN_IF_ERROR(refuse_database_as_stdout(database_path, kind));
    stream_ = stdout;
    return Status::ok();
  }
  struct stat st;
  const bool exists = ::stat(path->c_str(), &st) == 0;
  if (exists && written_in_place(st)) {
    stream_ = std::fopen(path->c_str(), "w");
    if (stream_ == nullptr) return base::os_error(*path, errno);
    owned_ = true;
    return Status::ok();
  }
  replacement_ = std::make_unique<base::ReplacementFile>();
  ORDO_RETURN_IF_ERROR(replacement_->create(*path, /*overwrite=*/true, database_path, kind));
  const int fd = ::dup(replacement_->fd());
  if (fd < 0) return base::os_error(*path, errno);
  stream_ = ::fdopen(fd, "w");
  if (stream_ == nullptr) {
    const int err = errno;
    ::close(fd);
    return base::os_error(*path, err);
  }
  owned_ = true;
  return Status::ok();
}

Status OutputFile::commit() {
  errno = 0;
  if (std::fflush(stream_) != 0 || std::ferror(stream_)) {
    return base::os_error("write", errno != 0 ? errno : EIO);
  }
  if (!replacement_) return Status::ok();
  if (::fsync(fileno(stream_)) != 0) return base::os_error("fsync", errno);
  const int rc = std::fclose(stream_);
  stream_ = nullptr;
  if (rc != 0) return base::os_error("close", errno);
  return replacement_->publish(/*overwrite=*/true);
}

}  // namespace ordo::tool
