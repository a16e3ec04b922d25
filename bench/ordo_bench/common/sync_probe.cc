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

}  // namespace

Result<SyncProbe> SyncProbe::create(const std::string& path, ProbeBlocks kind, unsigned blocks) {
  if (blocks == 0) return Status::invalid_argument("a sync probe needs at least one block");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Status::io_error("create " + path, errno);
  SyncProbe probe(path, fd, blocks);
  const int err = ::posix_fallocate(fd, 0, static_cast<off_t>(kBlockBytes) * blocks);
  if (err != 0) return Status::io_error("posix_fallocate " + path, err);
  // kOverwrite: write every block once, so later probes overwrite written
  // blocks. kUnwritten: leave them unwritten, the allocation made durable.
  const std::array<char, kBlockBytes> zeros{};
  for (unsigned b = 0; kind == ProbeBlocks::kOverwrite && b < blocks; ++b) {
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
      blocks_(other.blocks_),
      next_block_(other.next_block_) {}

SyncProbe::~SyncProbe() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(path_.c_str());
}

Result<double> SyncProbe::probe_us() {
  std::array<char, kBlockBytes> block;
  block.fill(static_cast<char>(next_block_));
  const off_t offset = static_cast<off_t>(next_block_ % blocks_) * kBlockBytes;
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
