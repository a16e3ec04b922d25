// WriteBackend: both backends write scattered spans correctly, check every error, map
// "no room" errors to Full; make_backend() picks the backend from its kind alone.
#include "ordo/io/backend.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "io_test_util.h"

namespace ordo::io {
namespace {

using testing::file_size;
using testing::pread_file;
using testing::random_bytes;
using testing::ScopedEnv;
using testing::TempDir;

// A file descriptor closed at scope exit.
struct Fd {
  explicit Fd(int value) : fd(value) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int fd;
};

class BackendTest : public ::testing::TestWithParam<BackendKind> {
 protected:
  void SetUp() override {
    if (GetParam() == BackendKind::kUring && !testing::uring_available()) {
      GTEST_SKIP() << "io_uring_queue_init fails on this machine";
    }
  }

  // A backend of the tested kind for `fd`; fails the test if it cannot be made.
  std::unique_ptr<WriteBackend> make(int fd) {
    Result<std::unique_ptr<WriteBackend>> backend = make_backend(fd, GetParam());
    EXPECT_TRUE(backend.is_ok()) << backend.status().to_string();
    return backend.is_ok() ? std::move(backend).value() : nullptr;
  }

  std::string_view expected_name() const {
    return GetParam() == BackendKind::kUring ? "io_uring" : "posix";
  }

  TempDir dir_;
};

TEST_P(BackendTest, NameMatchesKind) {
  Fd fd(::open(dir_.file("f").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  ASSERT_GE(fd.fd, 0);
  auto backend = make(fd.fd);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), expected_name());
}

TEST_P(BackendTest, ShuffledSpansReadBackExactly) {
  const uint32_t seed = 20240611;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::string path = dir_.file("f");
  Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  ASSERT_GE(fd.fd, 0);
  auto backend = make(fd.fd);
  ASSERT_NE(backend, nullptr);
  const uint64_t start = 12345;
  testing::SpanSet set = testing::make_scattered_spans(seed, start);
  ASSERT_TRUE(backend->write(set.spans, /*sync_after=*/true).is_ok());
  ASSERT_EQ(file_size(path), static_cast<int64_t>(set.image.size()));
  EXPECT_TRUE(pread_file(path, 0, set.image.size()) == set.image);

  // Overwrite a second shuffled set in the same range, no sync: the new image wins.
  testing::SpanSet again = testing::make_scattered_spans(seed + 1, start);
  ASSERT_TRUE(backend->write(again.spans, /*sync_after=*/false).is_ok());
  std::vector<std::byte> expected = set.image;
  expected.resize(std::max(expected.size(), again.image.size()));
  for (const WriteSpan& span : again.spans) {
    std::memcpy(expected.data() + span.offset_bytes, span.data, span.size_bytes);
  }
  EXPECT_TRUE(pread_file(path, 0, expected.size()) == expected);
  EXPECT_TRUE(backend->sync().is_ok());
}

TEST_P(BackendTest, LargeSpanAndTinySpansTogether) {
  const std::string path = dir_.file("f");
  Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  ASSERT_GE(fd.fd, 0);
  auto backend = make(fd.fd);
  ASSERT_NE(backend, nullptr);
  const std::vector<std::byte> big = random_bytes(24 << 20, 7);
  const std::vector<std::byte> small = random_bytes(3, 8);
  const std::vector<WriteSpan> spans = {{big.size() + 1, small.data(), small.size()},
                                        {0, big.data(), big.size()}};
  ASSERT_TRUE(backend->write(spans, true).is_ok());
  EXPECT_TRUE(pread_file(path, 0, big.size()) == big);
  EXPECT_TRUE(pread_file(path, big.size() + 1, 3) == small);
  EXPECT_TRUE(pread_file(path, big.size(), 1) == std::vector<std::byte>(1));
}

TEST_P(BackendTest, BadSpansAreInvalidArgumentAndWriteNothing) {
  const std::string path = dir_.file("f");
  Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  ASSERT_GE(fd.fd, 0);
  auto backend = make(fd.fd);
  ASSERT_NE(backend, nullptr);
  char bytes[64] = {1};
  const std::vector<WriteSpan> overlap = {{0, bytes, 64}, {4096, bytes, 8}, {60, bytes, 8}};
  EXPECT_TRUE(backend->write(overlap, true).is_invalid_argument());
  const std::vector<WriteSpan> null_data = {{0, bytes, 8}, {100, nullptr, 8}};
  EXPECT_TRUE(backend->write(null_data, true).is_invalid_argument());
  const uint64_t past_end = std::numeric_limits<uint64_t>::max() - 10;
  const std::vector<WriteSpan> huge_offset = {{past_end, bytes, 8}};
  EXPECT_TRUE(backend->write(huge_offset, true).is_invalid_argument());
  EXPECT_EQ(file_size(path), 0);
  // Empty spans are fine and write nothing.
  const std::vector<WriteSpan> empty = {{0, nullptr, 0}};
  EXPECT_TRUE(backend->write(empty, true).is_ok());
  EXPECT_EQ(file_size(path), 0);
}

TEST_P(BackendTest, WriteErrorIsIOErrorWithErrno) {
  const std::string path = dir_.file("f");
  { Fd create(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)); }
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_GE(fd.fd, 0);
  auto backend = make(fd.fd);
  ASSERT_NE(backend, nullptr);
  char bytes[8] = {};
  // Several runs, so every completion of a batch is checked, not only the first.
  const std::vector<WriteSpan> spans = {{0, bytes, 8}, {100, bytes, 8}, {200, bytes, 8}};
  const Status status = backend->write(spans, true);
  EXPECT_TRUE(status.is_io_error()) << status.to_string();
  EXPECT_EQ(status.errno_value(), EBADF);
}

TEST_P(BackendTest, SyncAfterIssuesSyncAndItsErrorIsReported) {
  // fdatasync on a pipe fails with EINVAL: a sync that was issued shows up as an error.
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  Fd read_end(pipe_fds[0]);
  Fd write_end(pipe_fds[1]);
  auto backend = make(write_end.fd);
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(backend->write({}, /*sync_after=*/false).is_ok());
  const Status after = backend->write({}, /*sync_after=*/true);
  EXPECT_TRUE(after.is_io_error()) << after.to_string();
  EXPECT_EQ(after.errno_value(), EINVAL);
  const Status sync = backend->sync();
  EXPECT_TRUE(sync.is_io_error()) << sync.to_string();
  EXPECT_EQ(sync.errno_value(), EINVAL);
}

TEST_P(BackendTest, NoSpaceIsFull) {
  Fd fd(::open("/dev/full", O_WRONLY | O_CLOEXEC));
  if (fd.fd < 0) GTEST_SKIP() << "no /dev/full";
  auto backend = make(fd.fd);
  ASSERT_NE(backend, nullptr);
  char bytes[512] = {};
  const std::vector<WriteSpan> spans = {{0, bytes, 512}, {4096, bytes, 512}};
  const Status status = backend->write(spans, false);
  EXPECT_TRUE(status.is_full()) << status.to_string();
}

// Exit codes of the file size limit child.
enum FsizeChild {
  kChildOk = 0,
  kChildInLimitFailed = testing::kChildSetupFailed + 1,
  kChildNotFull
};

TEST_P(BackendTest, FileSizeLimitIsFullAfterWritingUpToIt) {
  const std::string path = dir_.file("f");
  constexpr uint64_t kLimit = 1 << 20;
  const std::vector<std::byte> bytes = random_bytes(20000, 3);
  const int code =
      testing::run_with_file_size_limit(path, GetParam(), kLimit, [&](WriteBackend& backend) {
        const std::vector<WriteSpan> inside = {{0, bytes.data(), 100}};
        if (!backend.write(inside, true).is_ok()) return kChildInLimitFailed;
        // Crosses the limit: the kernel writes up to it (a short write), then EFBIG.
        const std::vector<WriteSpan> across = {{kLimit - 10000, bytes.data(), bytes.size()}};
        if (!backend.write(across, true).is_full()) return kChildNotFull;
        const std::vector<WriteSpan> beyond = {{kLimit + 10, bytes.data(), 10}};
        if (!backend.write(beyond, false).is_full()) return kChildNotFull;
        return kChildOk;
      });
  ASSERT_EQ(code, kChildOk);
  ASSERT_EQ(file_size(path), static_cast<int64_t>(kLimit));
  EXPECT_TRUE(pread_file(path, kLimit - 10000, 10000) ==
              std::vector<std::byte>(bytes.begin(), bytes.begin() + 10000));
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendTest,
                         ::testing::Values(BackendKind::kPosix, BackendKind::kUring),
                         [](const auto& test_info) {
                           return testing::kind_label(test_info.param);
                         });

// make_backend() selection.
class MakeBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fd_ = ::open(dir_.file("f").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override { ::close(fd_); }

  // The backend name kAuto picks, or the status code name when it fails.
  std::string auto_choice() {
    Result<std::unique_ptr<WriteBackend>> backend = make_backend(fd_, BackendKind::kAuto);
    if (!backend.is_ok()) return std::string(Status::code_name(backend.status().code()));
    return std::string(backend.value()->name());
  }

  TempDir dir_;
  int fd_ = -1;
};

// kAuto is POSIX whatever the environment holds: the backend depends on its kind
// alone.
TEST_F(MakeBackendTest, AutoIsPosixWhateverTheEnvironment) {
  for (const char* value : {"posix", "uring", "", "io_uring2"}) {
    ScopedEnv env("ORDO_IO", value);
    EXPECT_EQ(auto_choice(), "posix") << "ORDO_IO=" << value;
  }
  ScopedEnv env("ORDO_IO", std::nullopt);
  EXPECT_EQ(auto_choice(), "posix");
}

TEST_F(MakeBackendTest, ExplicitKindsBuildThatBackend) {
  Result<std::unique_ptr<WriteBackend>> posix = make_backend(fd_, BackendKind::kPosix);
  ASSERT_TRUE(posix.is_ok());
  EXPECT_EQ(posix.value()->name(), "posix");
  Result<std::unique_ptr<WriteBackend>> uring = make_backend(fd_, BackendKind::kUring);
  if (testing::uring_available()) {
    ASSERT_TRUE(uring.is_ok()) << uring.status().to_string();
    EXPECT_EQ(uring.value()->name(), "io_uring");
  } else {
    EXPECT_TRUE(uring.status().is_io_error());
    EXPECT_NE(uring.status().message().find("io_uring"), std::string::npos);
  }
}

TEST_F(MakeBackendTest, BadArgumentsAreInvalidArgument) {
  EXPECT_TRUE(make_backend(-1, BackendKind::kPosix).status().is_invalid_argument());
  EXPECT_TRUE(make_backend(fd_, static_cast<BackendKind>(42)).status().is_invalid_argument());
}

}  // namespace
}  // namespace ordo::io
