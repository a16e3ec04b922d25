// The sinks of a copy (copy_internal.h).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "copy_internal.h"
#include "ordo/assert.h"
#include "ordo/base/errno_status.h"

namespace ordo::engine {
namespace {

constexpr size_t kGatherBytes = 1 << 20;

// Gathers adjacent writes into one buffer of up to kGatherBytes.
class GatheringSink : public CopySink {
 public:
  Status write(uint64_t offset, const std::byte* data, size_t size) override {
    if (size == 0) return Status::ok();
    if (!buffer_.empty() && offset != buffer_offset_ + buffer_.size())
      ORDO_RETURN_IF_ERROR(flush());
    if (buffer_.empty() && data != nullptr && size >= kGatherBytes) {
      // Large enough on its own: written from where it is, no copy.
      bytes_ += size;
      buffer_offset_ = offset + size;
      return put(offset, data, size);
    }
    if (buffer_.empty()) buffer_offset_ = offset;
    while (size > 0) {
      const size_t take = std::min(size, kGatherBytes - buffer_.size());
      if (data != nullptr) {
        buffer_.insert(buffer_.end(), data, data + take);
        data += take;
      } else {
        buffer_.resize(buffer_.size() + take);
      }
      size -= take;
      bytes_ += take;
      if (buffer_.size() == kGatherBytes) ORDO_RETURN_IF_ERROR(flush());
    }
    ORDO_ASSERT(buffer_.size() < kGatherBytes);  // A full buffer went out at once.
    return Status::ok();
  }
  uint64_t bytes() const override { return bytes_; }

 protected:
  Status flush() {
    if (buffer_.empty()) return Status::ok();
    Status s = put(buffer_offset_, buffer_.data(), buffer_.size());
    buffer_offset_ += buffer_.size();
    buffer_.clear();
    ORDO_ASSERT(buffer_.empty());
    return s;
  }
  virtual Status put(uint64_t offset, const std::byte* data, size_t size) = 0;

 private:
  std::vector<std::byte> buffer_;
  uint64_t buffer_offset_ = 0;
  uint64_t bytes_ = 0;
};

class FileSink final : public GatheringSink {
 public:
  explicit FileSink(std::unique_ptr<io::WriteBackend> backend) : backend_(std::move(backend)) {
    ORDO_ASSERT(backend_ != nullptr);
  }
  bool seekable() const override { return true; }
  Status finish() override {
    ORDO_RETURN_IF_ERROR(flush());
    return backend_->sync();
  }

 private:
  Status put(uint64_t offset, const std::byte* data, size_t size) override {
    ORDO_ASSERT(data != nullptr && size > 0);  // The buffer, or a large write of its own.
    const io::WriteSpan span{offset, data, size};
    return backend_->write(std::span<const io::WriteSpan>(&span, 1), false);
  }
  std::unique_ptr<io::WriteBackend> backend_;
};

class StreamSink final : public GatheringSink {
 public:
  explicit StreamSink(int fd) : fd_(fd) {
    ORDO_ASSERT(fd_ >= 0);  // ReadTxn::copy_to_fd refused a negative one
  }
  bool seekable() const override { return false; }
  Status finish() override {
    ORDO_RETURN_IF_ERROR(flush());
    struct stat st;
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && ::fsync(fd_) != 0) {
      return base::write_error("fsync of the copy", errno);
    }
    return Status::ok();
  }

 private:
  Status put(uint64_t offset, const std::byte* data, size_t size) override {
    ORDO_ASSERT(data != nullptr && size > 0);  // The buffer, or a large write of its own.
    if (offset != written_) {
      return Status::invalid_argument("a streamed copy must be written in order");
    }
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        return base::write_error("write of the copy", errno);
      }
      ORDO_ASSERT(static_cast<size_t>(n) <= size);
      data += n;
      size -= static_cast<size_t>(n);
      written_ += static_cast<uint64_t>(n);
    }
    return Status::ok();
  }
  int fd_;
  uint64_t written_ = 0;
};

class NullSink final : public CopySink {
 public:
  bool seekable() const override { return false; }
  Status write(uint64_t, const std::byte*, size_t size) override {
    bytes_ += size;
    return Status::ok();
  }
  Status finish() override { return Status::ok(); }
  uint64_t bytes() const override { return bytes_; }

 private:
  uint64_t bytes_ = 0;
};

}  // namespace

std::unique_ptr<CopySink> file_sink(std::unique_ptr<io::WriteBackend> backend) {
  return std::make_unique<FileSink>(std::move(backend));
}
std::unique_ptr<CopySink> stream_sink(int fd) { return std::make_unique<StreamSink>(fd); }
std::unique_ptr<CopySink> null_sink() { return std::make_unique<NullSink>(); }

}  // namespace ordo::engine
