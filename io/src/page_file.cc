#include "ordo/io/page_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <utility>

#include "file_handle.h"
#include "ordo/base/errno_status.h"
#include "reserved_mapping.h"

namespace ordo::io {
namespace {

uint64_t round_down(uint64_t value, uint64_t unit) { return value - value % unit; }

// Smallest multiple of `unit` >= value, or UINT64_MAX when that overflows.
uint64_t round_up(uint64_t value, uint64_t unit) {
  const uint64_t down = round_down(value, unit);
  if (down == value) return value;
  return down > std::numeric_limits<uint64_t>::max() - unit ? std::numeric_limits<uint64_t>::max()
                                                            : down + unit;
}

Status check_options(const FileOptions& options) {
  if (options.extent_bytes == 0) return Status::invalid_argument("FileOptions::extent_bytes is 0");
  if (options.max_extent_bytes < options.extent_bytes) {
    return Status::invalid_argument(
        "FileOptions::max_extent_bytes (" + std::to_string(options.max_extent_bytes) +
        ") is below extent_bytes (" + std::to_string(options.extent_bytes) + ")");
  }
  if (options.map_reserve_bytes == 0) {
    return Status::invalid_argument("FileOptions::map_reserve_bytes is 0");
  }
  return Status::ok();
}

// ftruncate to `bytes`, retried on EINTR. Returns 0 or the errno.
int truncate_file(int fd, uint64_t bytes) {
  int rc;
  do {
    rc = ::ftruncate(fd, static_cast<off_t>(bytes));
  } while (rc != 0 && errno == EINTR);
  return rc == 0 ? 0 : errno;
}

// fallocate (mode 0) of [from, to), or, where fallocate is unsupported, ftruncate to `to`
// unless the file (`length_bytes` long) is already longer. Returns the errno of the
// failed call (0 on success) and names it in `call`.
int extend_file(int fd, uint64_t from_bytes, uint64_t to_bytes, uint64_t length_bytes,
                const char** call) {
  *call = "fallocate";
  int rc;
  do {
    rc = ::fallocate(fd, 0, static_cast<off_t>(from_bytes),
                     static_cast<off_t>(to_bytes - from_bytes));
  } while (rc != 0 && errno == EINTR);
  if (rc == 0) return 0;
  if (errno != EOPNOTSUPP) return errno;
  if (length_bytes >= to_bytes) return 0;
  *call = "ftruncate";
  return truncate_file(fd, to_bytes);
}

}  // namespace

Result<std::unique_ptr<PageFile>> PageFile::open(const std::string& path,
                                                 const FileOptions& options) {
  ORDO_RETURN_IF_ERROR(check_options(options).with_context(path));
  ORDO_ASSIGN_OR_RETURN(OpenedFile opened, open_database_file(path, options));
  std::unique_ptr<PageFile> file(
      new PageFile(path, options, opened.fd.release(), opened.length_bytes == 0));
  file->lock_fd_ = opened.lock_fd.release();
  if (opened.length_bytes > file->reserve_bytes_) {
    return Status::full("database file " + path + " is " + std::to_string(opened.length_bytes) +
                        " bytes, more than FileOptions::map_reserve_bytes (" +
                        std::to_string(file->reserve_bytes_) + ")");
  }
  ORDO_ASSIGN_OR_RETURN(file->base_, reserve_address_range(file->reserve_bytes_));
  {
    std::lock_guard<std::mutex> lock(file->map_mutex_);
    ORDO_RETURN_IF_ERROR(file->map_up_to(opened.length_bytes).with_context(path));
  }
  if (!options.read_only) {
    Result<std::unique_ptr<WriteBackend>> backend = options.backend_factory
                                                        ? options.backend_factory(file->fd_)
                                                        : make_backend(file->fd_, options.backend);
    if (!backend.is_ok()) return backend.status().with_context(path);
    file->backend_ = std::move(backend).value();
  }
  return file;
}

PageFile::PageFile(std::string path, const FileOptions& options, int fd, bool created)
    : path_(std::move(path)),
      options_(options),
      fd_(fd),
      created_(created),
      os_page_size_(static_cast<uint64_t>(::sysconf(_SC_PAGESIZE))) {
  reserve_bytes_ = round_up(options_.map_reserve_bytes, os_page_size_);
  if (reserve_bytes_ == std::numeric_limits<uint64_t>::max()) {
    reserve_bytes_ = round_down(reserve_bytes_, os_page_size_);
  }
}

PageFile::~PageFile() {
  backend_.reset();  // the io_uring ring goes before the descriptor it uses
  release_address_range(base_, reserve_bytes_);
  if (fd_ >= 0) ::close(fd_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

const std::byte* PageFile::data(uint64_t offset_bytes, size_t size_bytes) const {
  const uint64_t mapped = mapped_bytes_.load(std::memory_order_acquire);
  if (offset_bytes > mapped || size_bytes > mapped - offset_bytes) return nullptr;
  return base_ + offset_bytes;
}

Result<size_t> PageFile::read_at(uint64_t offset_bytes, std::span<std::byte> out) const {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset_bytes + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::os_error("pread " + path_, errno);
    if (n == 0) break;  // the end of the file
    done += static_cast<size_t>(n);
  }
  return done;
}

uint64_t PageFile::growth_step_bytes() const {
  const uint64_t step =
      std::clamp(file_bytes() / 8, options_.extent_bytes, options_.max_extent_bytes);
  return std::max(round_up(step, os_page_size_), os_page_size_);
}

Status PageFile::grow_to(uint64_t min_bytes) {
  if (!backend_) return Status::invalid_argument("grow_to on read-only file " + path_);
  std::lock_guard<std::mutex> lock(map_mutex_);
  const uint64_t current_bytes = file_bytes();
  if (min_bytes <= current_bytes) return Status::ok();
  if (min_bytes > reserve_bytes_) {
    return Status::full("grow_to(" + std::to_string(min_bytes) + ") of " + path_ +
                        ": past FileOptions::map_reserve_bytes (" + std::to_string(reserve_bytes_) +
                        ")");
  }
  // The real length can exceed file_bytes() when write() went past the end.
  struct stat st;
  if (::fstat(fd_, &st) != 0) return base::os_error("fstat " + path_, errno);
  const uint64_t before_bytes = static_cast<uint64_t>(st.st_size);
  // Out of space for a whole step, try half the step, and so on down to the
  // page-rounded minimum: a nearly full disk still takes what fits.
  const uint64_t least_bytes = std::min(round_up(min_bytes, os_page_size_), reserve_bytes_);
  uint64_t step = growth_step_bytes();
  uint64_t target_bytes = 0;
  for (;;) {
    target_bytes = std::max(std::min(round_up(min_bytes, step), reserve_bytes_), least_bytes);
    const char* call = nullptr;
    const int err = extend_file(fd_, current_bytes, target_bytes, before_bytes, &call);
    if (err == 0) break;
    // Give back whatever a failed fallocate may have added; the old length stays valid.
    if (::fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) > before_bytes) {
      (void)truncate_file(fd_, before_bytes);
    }
    if (!base::is_no_space_errno(err) || target_bytes <= least_bytes) {
      return base::write_error(std::string(call) + " " + path_ + " from " +
                                   std::to_string(current_bytes) + " to " +
                                   std::to_string(target_bytes) + " bytes" +
                                   (target_bytes == least_bytes && base::is_no_space_errno(err)
                                        ? " (the least this write needs)"
                                        : ""),
                               err);
    }
    step = std::max(round_up(step / 2, os_page_size_), os_page_size_);
  }
  ORDO_RETURN_IF_ERROR(map_up_to(std::max(target_bytes, before_bytes)).with_context(path_));
  counters_.growths.fetch_add(1, std::memory_order_relaxed);
  return Status::ok();
}

Status PageFile::shrink_to(uint64_t bytes) {
  if (!backend_) return Status::invalid_argument("shrink_to on read-only file " + path_);
  std::lock_guard<std::mutex> lock(map_mutex_);
  struct stat st;
  if (::fstat(fd_, &st) != 0) return base::os_error("fstat " + path_, errno);
  if (static_cast<uint64_t>(st.st_size) <= bytes) return Status::ok();
  if (const int err = truncate_file(fd_, bytes); err != 0) {
    return base::os_error("ftruncate " + path_ + " to " + std::to_string(bytes), err);
  }
  // Pages past the new end stay reserved address space but are never read.
  file_bytes_.store(std::min(file_bytes(), bytes), std::memory_order_release);
  mapped_bytes_.store(std::min(mapped_bytes_.load(std::memory_order_acquire), bytes),
                      std::memory_order_release);
  return Status::ok();
}

Status PageFile::refresh() {
  std::lock_guard<std::mutex> lock(map_mutex_);
  struct stat st;
  if (::fstat(fd_, &st) != 0) return base::os_error("fstat " + path_, errno);
  return map_up_to(static_cast<uint64_t>(st.st_size)).with_context(path_);
}

Status PageFile::map_up_to(uint64_t new_file_bytes) {
  const uint64_t new_mapped = round_down(std::min(new_file_bytes, reserve_bytes_), os_page_size_);
  const uint64_t old_mapped = mapped_bytes_.load(std::memory_order_relaxed);
  if (new_mapped > old_mapped) {
    ORDO_RETURN_IF_ERROR(map_file_range(base_, fd_, old_mapped, new_mapped - old_mapped));
  }
  // Publish the mapping before the length so a reader never sees unmapped bytes.
  mapped_bytes_.store(new_mapped, std::memory_order_release);
  file_bytes_.store(new_file_bytes, std::memory_order_release);
  return Status::ok();
}

Status PageFile::write(std::span<const WriteSpan> spans, bool sync_after) {
  if (!backend_) return Status::invalid_argument("write to read-only file " + path_);
  const uint64_t submissions_before = backend_->submissions();
  Status s = backend_->write(spans, sync_after).with_context(path_);
  count_call(submissions_before, spans, {}, sync_after, s);
  return s;
}

Status PageFile::write_ordered(std::span<const WriteSpan> first, std::span<const WriteSpan> then,
                               bool sync_after) {
  if (!backend_) return Status::invalid_argument("write to read-only file " + path_);
  const uint64_t submissions_before = backend_->submissions();
  Status s = backend_->write_ordered(first, then, sync_after).with_context(path_);
  count_call(submissions_before, first, then, sync_after, s);
  return s;
}

void PageFile::count_call(uint64_t submissions_before, std::span<const WriteSpan> first,
                          std::span<const WriteSpan> then, bool synced, const Status& status) {
  counters_.write_calls.fetch_add(backend_->submissions() - submissions_before,
                                  std::memory_order_relaxed);
  if (!status.is_ok()) return;
  uint64_t bytes = 0;
  for (const WriteSpan& span : first) bytes += span.size_bytes;
  for (const WriteSpan& span : then) bytes += span.size_bytes;
  counters_.spans_written.fetch_add(first.size() + then.size(), std::memory_order_relaxed);
  counters_.bytes_written.fetch_add(bytes, std::memory_order_relaxed);
  if (synced) counters_.syncs.fetch_add(1, std::memory_order_relaxed);
}

Status PageFile::sync() {
  if (!backend_) return Status::invalid_argument("sync of read-only file " + path_);
  const uint64_t submissions_before = backend_->submissions();
  Status s = backend_->sync().with_context(path_);
  count_call(submissions_before, {}, {}, true, s);
  return s;
}

Status PageFile::write_durable(std::span<const WriteSpan> spans) {
  if (!backend_) return Status::invalid_argument("write to read-only file " + path_);
  const uint64_t submissions_before = backend_->submissions();
  Status s = backend_->write_durable(spans).with_context(path_);
  count_call(submissions_before, spans, {}, true, s);
  return s;
}

std::string_view PageFile::backend_name() const {
  return backend_ ? backend_->name() : std::string_view("none");
}

FileStats PageFile::stats() const {
  FileStats stats;
  stats.write_calls = counters_.write_calls.load(std::memory_order_relaxed);
  stats.spans_written = counters_.spans_written.load(std::memory_order_relaxed);
  stats.bytes_written = counters_.bytes_written.load(std::memory_order_relaxed);
  stats.syncs = counters_.syncs.load(std::memory_order_relaxed);
  stats.growths = counters_.growths.load(std::memory_order_relaxed);
  return stats;
}

}  // namespace ordo::io
