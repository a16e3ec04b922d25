#include "sync_probe.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <utility>

namespace ordo::bench {
namespace {

constexpr size_t kBlockBytes = 4096;
constexpr unsigned kBlocks = 16;  // written in turn

}  // namespace

Result<SyncProbe> SyncProbe::create(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Status::io_error("create " + path, errno);
  SyncProbe probe(path, fd);
  const int err = ::posix_fallocate(fd, 0, kBlockBytes * kBlocks);
  if (err != 0) return Status::io_error("posix_fallocate " + path, err);
  // Write every block once, so later probes overwrite written blocks.
  const std::array<char, kBlockBytes> zeros{};
  for (unsigned b = 0; b < kBlocks; ++b) {
    if (::pwrite(fd, zeros.data(), zeros.size(), b * kBlockBytes) !=
        static_cast<ssize_t>(kBlockBytes)) {
      return Status::io_error("pwrite " + path, errno);
    }
  }
  if (::fsync(fd) != 0) return Status::io_error("fsync " + path, errno);
  return probe;
}

SyncProbe::SyncProbe(SyncProbe&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      next_block_(other.next_block_) {}

SyncProbe::~SyncProbe() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(path_.c_str());
}

Result<double> SyncProbe::probe_us() {
  std::array<char, kBlockBytes> block;
  block.fill(static_cast<char>(next_block_));
  const off_t offset = static_cast<off_t>(next_block_ % kBlocks) * kBlockBytes;
  ++next_block_;
  const auto start = std::chrono::steady_clock::now();
  if (::pwrite(fd_, block.data(), block.size(), offset) != static_cast<ssize_t>(kBlockBytes)) {
    return Status::io_error("pwrite " + path_, errno);
  }
  if (::fdatasync(fd_) != 0) return Status::io_error("fdatasync " + path_, errno);
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace ordo::bench
