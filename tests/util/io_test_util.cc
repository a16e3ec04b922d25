#include "io_test_util.h"

#include <fcntl.h>
#include <liburing.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace ordo::io::testing {

std::vector<std::byte> random_bytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> bytes(size);
  for (std::byte& b : bytes) b = static_cast<std::byte>(rng() & 0xff);
  return bytes;
}

namespace {

// Adds one span of `size` random bytes at `offset` to `set`.
void add_span(SpanSet& set, std::mt19937& rng, uint64_t offset, size_t size) {
  set.buffers.push_back(random_bytes(size, static_cast<uint32_t>(rng())));
  set.spans.push_back(WriteSpan{offset, set.buffers.back().data(), size});
}

}  // namespace

SpanSet make_scattered_spans(uint32_t seed, uint64_t start_offset) {
  std::mt19937 rng(seed);
  auto between = [&rng](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  SpanSet set;
  set.buffers.reserve(4000);  // spans point into the buffers: no reallocation
  uint64_t offset = start_offset;
  // One run longer than IOV_MAX: 2500 adjacent spans of 1-64 bytes.
  for (int i = 0; i < 2500; ++i) {
    const size_t size = between(1, 64);
    add_span(set, rng, offset, size);
    offset += size;
  }
  // 300 isolated spans: more runs than SQ and CQ entries.
  for (int i = 0; i < 300; ++i) {
    offset += between(1, 4096);
    const size_t size = between(1, 4096);
    add_span(set, rng, offset, size);
    offset += size;
  }
  // 100 groups of 2-5 adjacent spans.
  for (int g = 0; g < 100; ++g) {
    offset += between(1, 8192);
    for (uint64_t n = between(2, 5); n > 0; --n) {
      const size_t size = between(512, 8192);
      add_span(set, rng, offset, size);
      offset += size;
    }
  }
  set.image.assign(offset, std::byte{0});
  for (const WriteSpan& span : set.spans) {
    std::copy_n(static_cast<const std::byte*>(span.data), span.size_bytes,
                set.image.begin() + static_cast<ptrdiff_t>(span.offset_bytes));
  }
  std::shuffle(set.spans.begin(), set.spans.end(), rng);
  return set;
}

std::vector<std::byte> pread_file(const std::string& path, uint64_t offset, size_t size) {
  std::vector<std::byte> out(size);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  size_t done = 0;
  while (done < size) {
    const ssize_t n =
        ::pread(fd, out.data() + done, size - done, static_cast<off_t>(offset + done));
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return out;
}

int64_t file_size(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

std::vector<std::byte> read_file(const std::string& path) {
  const int64_t size = file_size(path);
  return size < 0 ? std::vector<std::byte>() : pread_file(path, 0, static_cast<size_t>(size));
}

bool write_file(const std::string& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return out.good();
}

bool uring_available() {
  io_uring ring;
  if (io_uring_queue_init(8, &ring, 0) != 0) return false;
  io_uring_queue_exit(&ring);
  return true;
}

int run_in_child(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) ::_exit(body());
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

int run_with_file_size_limit(const std::string& path, BackendKind kind, uint64_t limit_bytes,
                             const std::function<int(WriteBackend&)>& body) {
  return run_in_child([&]() -> int {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit = {limit_bytes, limit_bytes};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return kChildSetupFailed;
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return kChildSetupFailed;
    auto backend = make_backend(fd, kind);
    if (!backend.is_ok()) return kChildSetupFailed;
    return body(*backend.value());
  });
}

ScopedEnv::ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
  if (const char* old = std::getenv(name_.c_str())) saved_ = old;
  if (value) {
    ::setenv(name_.c_str(), value->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

ScopedEnv::~ScopedEnv() {
  if (saved_) {
    ::setenv(name_.c_str(), saved_->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

std::string kind_label(BackendKind kind) {
  switch (kind) {
    case BackendKind::kAuto:
      return "Auto";
    case BackendKind::kUring:
      return "Uring";
    case BackendKind::kPosix:
      return "Posix";
  }
  return "Unknown";
}

}  // namespace ordo::io::testing
