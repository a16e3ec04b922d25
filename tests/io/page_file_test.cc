// PageFile: create/open/lock, growth in extents, the read mapping, writes and stats,
// read-only followers, and the error codes of each.
#include "ordo/io/page_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "io_test_util.h"

namespace ordo::io {
namespace {

using testing::file_size;
using testing::pread_file;
using testing::random_bytes;
using testing::TempDir;

constexpr uint64_t kMiB = 1 << 20;

bool all_zero(const std::byte* data, size_t size) {
  return std::all_of(data, data + size, [](std::byte b) { return b == std::byte{0}; });
}

// Bytes allocated on disk for `path`.
uint64_t allocated_bytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_blocks) * 512 : 0;
}

// Creates `path` with `size` bytes of `content` (repeated / cut to size).
void write_raw_file(const std::string& path, const std::vector<std::byte>& content) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, content.data(), content.size(), 0), static_cast<ssize_t>(content.size()));
  ::close(fd);
}

class PageFileTest : public ::testing::TestWithParam<BackendKind> {
 protected:
  void SetUp() override {
    if (GetParam() == BackendKind::kUring && !testing::uring_available()) {
      GTEST_SKIP() << "io_uring_queue_init fails on this machine";
    }
    options_.backend = GetParam();
    options_.extent_bytes = 1 * kMiB;
    options_.max_extent_bytes = 2 * kMiB;
    options_.map_reserve_bytes = 64 * kMiB;
  }

  std::unique_ptr<PageFile> open_ok(const FileOptions& options) {
    Result<std::unique_ptr<PageFile>> file = PageFile::open(path_, options);
    EXPECT_TRUE(file.is_ok()) << file.status().to_string();
    return file.is_ok() ? std::move(file).value() : nullptr;
  }

  FileOptions read_only_options() const {
    FileOptions options = options_;
    options.read_only = true;
    return options;
  }

  TempDir dir_;
  std::string path_ = dir_.file("db.ordo");
  FileOptions options_;
  const size_t page_bytes_ = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
};

TEST_P(PageFileTest, CreatesEmptyFileAndReopens) {
  {
    auto file = open_ok(options_);
    ASSERT_NE(file, nullptr);
    EXPECT_TRUE(file->created());
    EXPECT_EQ(file->file_bytes(), 0u);
    EXPECT_EQ(file->path(), path_);
    EXPECT_EQ(file->backend_name(), GetParam() == BackendKind::kUring ? "io_uring" : "posix");
    EXPECT_EQ(file->data(0, 1), nullptr);
    EXPECT_EQ(file_size(path_), 0);
  }
  {
    auto file = open_ok(options_);  // still empty: still "created"
    ASSERT_NE(file, nullptr);
    EXPECT_TRUE(file->created());
    ASSERT_TRUE(file->grow_to(1).is_ok());
  }
  auto file = open_ok(options_);
  ASSERT_NE(file, nullptr);
  EXPECT_FALSE(file->created());
  EXPECT_EQ(file->file_bytes(), 1 * kMiB);
  EXPECT_NE(file->data(0, 1 * kMiB), nullptr);
}

TEST_P(PageFileTest, MissingFileIsNotFound) {
  FileOptions no_create = options_;
  no_create.create_if_missing = false;
  Result<std::unique_ptr<PageFile>> file = PageFile::open(path_, no_create);
  ASSERT_FALSE(file.is_ok());
  EXPECT_TRUE(file.status().is_not_found()) << file.status().to_string();
  EXPECT_NE(file.status().message().find(path_), std::string::npos);
  EXPECT_EQ(file_size(path_), -1);

  Result<std::unique_ptr<PageFile>> reader = PageFile::open(path_, read_only_options());
  ASSERT_FALSE(reader.is_ok());
  EXPECT_TRUE(reader.status().is_not_found()) << reader.status().to_string();
  EXPECT_EQ(file_size(path_), -1);
}

TEST_P(PageFileTest, WritesReadBackThroughMappingAndPread) {
  const uint32_t seed = 77;
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto file = open_ok(options_);
  ASSERT_NE(file, nullptr);
  testing::SpanSet set = testing::make_scattered_spans(seed, 4096);
  ASSERT_TRUE(file->grow_to(set.image.size()).is_ok());
  ASSERT_TRUE(file->write(set.spans, /*sync_after=*/true).is_ok());
  const std::byte* mapped = file->data(0, set.image.size());
  ASSERT_NE(mapped, nullptr);
  EXPECT_EQ(std::memcmp(mapped, set.image.data(), set.image.size()), 0);
  EXPECT_TRUE(pread_file(path_, 0, set.image.size()) == set.image);

  uint64_t bytes = 0;
  for (const WriteSpan& span : set.spans) bytes += span.size_bytes;
  FileStats stats = file->stats();
  // Kernel submissions: the scattered set needs several (more runs than the ring or
  // than one pwritev takes).
  const uint64_t calls = stats.write_calls;
  EXPECT_GE(calls, 2u);
  EXPECT_EQ(stats.spans_written, set.spans.size());
  EXPECT_EQ(stats.bytes_written, bytes);
  EXPECT_EQ(stats.syncs, 1u);
  EXPECT_EQ(stats.growths, 1u);

  const std::vector<std::byte> page = random_bytes(page_bytes_, 5);
  const std::vector<WriteSpan> one = {{0, page.data(), page.size()}};
  ASSERT_TRUE(file->write(one, /*sync_after=*/false).is_ok());
  EXPECT_EQ(std::memcmp(file->data(0, page.size()), page.data(), page.size()), 0);
  stats = file->stats();
  EXPECT_EQ(stats.write_calls, calls + 1);  // one io_uring_enter, or one pwritev
  EXPECT_EQ(stats.bytes_written, bytes + page.size());
  EXPECT_EQ(stats.syncs, 1u);
  ASSERT_TRUE(file->sync().is_ok());
  EXPECT_EQ(file->stats().syncs, 2u);
  EXPECT_EQ(file->stats().write_calls, calls + 2);
}

// read_at reads with pread: the bytes written, fewer at the end of the
// file, none past it, and still no signal after the file shrank under a
// mapping that covered more.
TEST_P(PageFileTest, ReadAtStopsAtTheEndOfTheFile) {
  auto file = open_ok(options_);
  ASSERT_NE(file, nullptr);
  const std::vector<std::byte> page = random_bytes(page_bytes_, 9);
  ASSERT_TRUE(file->grow_to(4 * page_bytes_).is_ok());
  const std::vector<WriteSpan> one = {{page_bytes_, page.data(), page.size()}};
  ASSERT_TRUE(file->write(one, /*sync_after=*/false).is_ok());
  std::vector<std::byte> out(page.size());
  auto got = file->read_at(page_bytes_, out);
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(*got, page.size());
  EXPECT_TRUE(out == page);

  const uint64_t len = file->file_bytes();
  ASSERT_EQ(::truncate(path_.c_str(), static_cast<off_t>(page_bytes_ + 100)), 0);
  got = file->read_at(page_bytes_, out);
  ASSERT_TRUE(got.is_ok());
  EXPECT_EQ(*got, 100u);
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + 100, page.begin()));
  got = file->read_at(len - page_bytes_, out);
  ASSERT_TRUE(got.is_ok());
  EXPECT_EQ(*got, 0u);
}

TEST_P(PageFileTest, GrowsInPreallocatedExtents) {
  auto file = open_ok(options_);
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(file->grow_to(1).is_ok());
  EXPECT_EQ(file->file_bytes(), 1 * kMiB);
  EXPECT_EQ(file_size(path_), static_cast<int64_t>(1 * kMiB));
  EXPECT_GE(allocated_bytes(path_), 1 * kMiB);
  const std::byte* first = file->data(0, 1 * kMiB);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(all_zero(first, 1 * kMiB));
  EXPECT_EQ(file->data(0, 1 * kMiB + 1), nullptr);

  const std::vector<std::byte> page = random_bytes(page_bytes_, 9);
  const std::vector<WriteSpan> spans = {{0, page.data(), page.size()}};
  ASSERT_TRUE(file->write(spans, true).is_ok());
  ASSERT_EQ(std::memcmp(first, page.data(), page.size()), 0);

  ASSERT_TRUE(file->grow_to(1 * kMiB).is_ok());  // already long enough
  EXPECT_EQ(file->stats().growths, 1u);
  // Step = clamp(1 MiB / 8, 1 MiB, 2 MiB) = 1 MiB.
  ASSERT_TRUE(file->grow_to(1 * kMiB + 1).is_ok());
  EXPECT_EQ(file->file_bytes(), 2 * kMiB);
  ASSERT_TRUE(file->grow_to(16 * kMiB).is_ok());
  EXPECT_EQ(file->file_bytes(), 16 * kMiB);
  // Step = clamp(16 MiB / 8, 1 MiB, 2 MiB) = 2 MiB: 16 MiB + 1 rounds up to 18 MiB.
  ASSERT_TRUE(file->grow_to(16 * kMiB + 1).is_ok());
  EXPECT_EQ(file->file_bytes(), 18 * kMiB);
  EXPECT_EQ(file_size(path_), static_cast<int64_t>(18 * kMiB));
  EXPECT_GE(allocated_bytes(path_), 18 * kMiB);
  EXPECT_EQ(file->stats().growths, 4u);

  // Old pointers still valid and unchanged; the new region reads zeros.
  EXPECT_EQ(file->data(0, page.size()), first);
  EXPECT_EQ(std::memcmp(first, page.data(), page.size()), 0);
  const std::byte* tail = file->data(1 * kMiB, 17 * kMiB);
  ASSERT_NE(tail, nullptr);
  EXPECT_EQ(tail, first + 1 * kMiB);
  EXPECT_TRUE(all_zero(tail, 17 * kMiB));
}

TEST_P(PageFileTest, GrowthIsCappedByTheReservation) {
  FileOptions options = options_;
  options.extent_bytes = 3 * kMiB;
  options.max_extent_bytes = 3 * kMiB;
  options.map_reserve_bytes = 4 * kMiB;
  auto file = open_ok(options);
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(file->grow_to(1).is_ok());
  EXPECT_EQ(file->file_bytes(), 3 * kMiB);
  ASSERT_TRUE(file->grow_to(3 * kMiB + 1).is_ok());  // 6 MiB capped to 4 MiB
  EXPECT_EQ(file->file_bytes(), 4 * kMiB);
  const Status status = file->grow_to(4 * kMiB + 1);
  EXPECT_TRUE(status.is_full()) << status.to_string();
  EXPECT_NE(status.message().find("map_reserve_bytes"), std::string::npos);
  EXPECT_EQ(file->file_bytes(), 4 * kMiB);
  EXPECT_EQ(file_size(path_), static_cast<int64_t>(4 * kMiB));
}

TEST_P(PageFileTest, FileLongerThanReservationIsFull) {
  ASSERT_EQ(::truncate(path_.c_str(), 0), -1);  // no file yet
  { auto created = open_ok(options_); }
  ASSERT_EQ(::truncate(path_.c_str(), 8 * kMiB), 0);
  FileOptions options = options_;
  options.map_reserve_bytes = 4 * kMiB;
  Result<std::unique_ptr<PageFile>> file = PageFile::open(path_, options);
  ASSERT_FALSE(file.is_ok());
  EXPECT_TRUE(file.status().is_full()) << file.status().to_string();
  EXPECT_NE(file.status().message().find("map_reserve_bytes"), std::string::npos);
  // The failed open released its lock.
  EXPECT_NE(open_ok(options_), nullptr);
}

TEST_P(PageFileTest, PartialLastPageIsNotMapped) {
  const std::vector<std::byte> content = random_bytes(2 * page_bytes_ + 1000, 11);
  write_raw_file(path_, content);
  auto file = open_ok(options_);
  ASSERT_NE(file, nullptr);
  EXPECT_FALSE(file->created());
  EXPECT_EQ(file->file_bytes(), content.size());
  const std::byte* data = file->data(0, 2 * page_bytes_);
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(std::memcmp(data, content.data(), 2 * page_bytes_), 0);
  EXPECT_EQ(file->data(0, 2 * page_bytes_ + 1), nullptr);
  EXPECT_EQ(file->data(2 * page_bytes_, 1), nullptr);
  EXPECT_NE(file->data(2 * page_bytes_, 0), nullptr);
  EXPECT_EQ(file->data(std::numeric_limits<uint64_t>::max(), 1), nullptr);
  EXPECT_EQ(file->data(1, std::numeric_limits<size_t>::max()), nullptr);
  // Growth maps the rest, including the formerly partial page.
  ASSERT_TRUE(file->grow_to(content.size() + 1).is_ok());
  EXPECT_EQ(file->file_bytes(), 1 * kMiB);
  data = file->data(0, content.size());
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(std::memcmp(data, content.data(), content.size()), 0);
}

TEST_P(PageFileTest, SecondOpenInProcessIsBusy) {
  auto first = open_ok(options_);
  ASSERT_NE(first, nullptr);
  Result<std::unique_ptr<PageFile>> second = PageFile::open(path_, options_);
  ASSERT_FALSE(second.is_ok());
  EXPECT_TRUE(second.status().is_busy()) << second.status().to_string();
  EXPECT_EQ(second.status().message(), "database file " + path_ + " is locked by another handle");
  first.reset();
  EXPECT_NE(open_ok(options_), nullptr);
}

TEST_P(PageFileTest, OpenFromAnotherProcessIsBusy) {
  enum { kBusy = 0, kOpened = 1, kOtherError = 2 };
  const FileOptions options = options_;
  const std::string path = path_;
  auto child_open = [&]() -> int {
    Result<std::unique_ptr<PageFile>> file = PageFile::open(path, options);
    if (file.is_ok()) return kOpened;
    return file.status().is_busy() ? kBusy : kOtherError;
  };
  auto holder = open_ok(options_);
  ASSERT_NE(holder, nullptr);
  EXPECT_EQ(testing::run_in_child(child_open), kBusy);
  holder.reset();
  EXPECT_EQ(testing::run_in_child(child_open), kOpened);
}

TEST_P(PageFileTest, ReadOnlyOpenFollowsTheWriter) {
  auto writer = open_ok(options_);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->grow_to(1).is_ok());
  const std::vector<std::byte> first = random_bytes(page_bytes_, 21);
  const std::vector<WriteSpan> first_spans = {{page_bytes_, first.data(), first.size()}};
  ASSERT_TRUE(writer->write(first_spans, true).is_ok());

  auto reader = open_ok(read_only_options());
  ASSERT_NE(reader, nullptr);
  EXPECT_FALSE(reader->created());
  EXPECT_EQ(reader->backend_name(), "none");
  EXPECT_EQ(reader->file_bytes(), 1 * kMiB);
  ASSERT_NE(reader->data(page_bytes_, first.size()), nullptr);
  EXPECT_EQ(std::memcmp(reader->data(page_bytes_, first.size()), first.data(), first.size()), 0);

  // The writer grows and writes past the reader's mapping.
  ASSERT_TRUE(writer->grow_to(1 * kMiB + 1).is_ok());
  const std::vector<std::byte> second = random_bytes(page_bytes_, 22);
  const uint64_t second_offset = 1 * kMiB + 8 * page_bytes_;
  const std::vector<WriteSpan> second_spans = {{second_offset, second.data(), second.size()}};
  ASSERT_TRUE(writer->write(second_spans, true).is_ok());
  EXPECT_EQ(reader->data(second_offset, second.size()), nullptr);
  ASSERT_TRUE(reader->refresh().is_ok());
  EXPECT_EQ(reader->file_bytes(), 2 * kMiB);
  const std::byte* seen = reader->data(second_offset, second.size());
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(std::memcmp(seen, second.data(), second.size()), 0);

  // A reader cannot change the file.
  EXPECT_TRUE(reader->write(first_spans, false).is_invalid_argument());
  EXPECT_TRUE(reader->sync().is_invalid_argument());
  EXPECT_TRUE(reader->grow_to(4 * kMiB).is_invalid_argument());
  EXPECT_EQ(file_size(path_), static_cast<int64_t>(2 * kMiB));
}

TEST_P(PageFileTest, DataIsSafeWhileTheWriterGrows) {
  FileOptions options = options_;
  options.extent_bytes = 64 << 10;
  options.max_extent_bytes = 64 << 10;
  auto file = open_ok(options);
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(file->grow_to(1).is_ok());
  const std::vector<std::byte> page = random_bytes(page_bytes_, 31);
  const std::vector<WriteSpan> spans = {{0, page.data(), page.size()}};
  ASSERT_TRUE(file->write(spans, false).is_ok());

  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::thread reader([&] {
    while (!done.load()) {
      const uint64_t length = file->file_bytes() - file->file_bytes() % page_bytes_;
      const std::byte* head = file->data(0, page.size());
      const std::byte* last = file->data(length - page_bytes_, page_bytes_);
      if (head == nullptr || std::memcmp(head, page.data(), page.size()) != 0) ++bad;
      if (last == nullptr || (length > page_bytes_ && !all_zero(last, page_bytes_))) ++bad;
    }
  });
  for (int i = 1; i <= 200; ++i) {
    ASSERT_TRUE(file->grow_to(file->file_bytes() + 1).is_ok());
  }
  done = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(file->file_bytes(), 201u * (64 << 10));
}

TEST_P(PageFileTest, NotARegularFileIsRejected) {
  const std::string fifo = dir_.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  FileOptions read_only = read_only_options();
  Result<std::unique_ptr<PageFile>> file = PageFile::open(fifo, read_only);  // must not block
  EXPECT_TRUE(file.status().is_invalid_argument()) << file.status().to_string();
  file = PageFile::open(fifo, options_);
  EXPECT_TRUE(file.status().is_invalid_argument()) << file.status().to_string();
  file = PageFile::open(dir_.path(), read_only);
  EXPECT_TRUE(file.status().is_invalid_argument()) << file.status().to_string();
  file = PageFile::open(dir_.path(), options_);  // open(O_RDWR) of a directory: EISDIR
  EXPECT_TRUE(file.status().is_io_error()) << file.status().to_string();
  EXPECT_EQ(file.status().errno_value(), EISDIR);
  EXPECT_NE(file.status().message().find("open " + dir_.path()), std::string::npos);
}

TEST_P(PageFileTest, BadOptionsAreInvalidArgument) {
  FileOptions options = options_;
  options.extent_bytes = 0;
  EXPECT_TRUE(PageFile::open(path_, options).status().is_invalid_argument());
  options = options_;
  options.max_extent_bytes = options.extent_bytes - 1;
  EXPECT_TRUE(PageFile::open(path_, options).status().is_invalid_argument());
  options = options_;
  options.map_reserve_bytes = 0;
  EXPECT_TRUE(PageFile::open(path_, options).status().is_invalid_argument());
  EXPECT_EQ(file_size(path_), -1);
}

TEST_P(PageFileTest, FileSizeLimitIsFull) {
  enum {
    kOk = 0,
    kSetup = 10,
    kShrunkStepFailed,
    kGrowNotFull,
    kLengthChanged,
    kWriteNotFull,
    kUnusable
  };
  const FileOptions options = options_;
  const std::string path = path_;
  const int code = testing::run_in_child([&]() -> int {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit = {3 * kMiB / 2, 3 * kMiB / 2};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return kSetup;
    Result<std::unique_ptr<PageFile>> opened = PageFile::open(path, options);
    if (!opened.is_ok()) return kSetup;
    PageFile& file = *opened.value();
    if (!file.grow_to(1).is_ok()) return kSetup;  // 1 MiB: within the limit
    // A whole step (to 2 MiB) is past the limit: half a step (to 1.5 MiB) fits.
    if (!file.grow_to(1 * kMiB + 1).is_ok()) return kShrunkStepFailed;
    if (file.file_bytes() != 3 * kMiB / 2) return kShrunkStepFailed;
    // Not even one more page fits.
    if (!file.grow_to(3 * kMiB / 2 + 1).is_full()) return kGrowNotFull;
    if (file.file_bytes() != 3 * kMiB / 2) return kLengthChanged;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || st.st_size != static_cast<off_t>(3 * kMiB / 2)) {
      return kLengthChanged;
    }
    const std::vector<std::byte> bytes(kMiB);
    const std::vector<WriteSpan> spans = {{3 * kMiB / 2, bytes.data(), bytes.size()}};
    if (!file.write(spans, true).is_full()) return kWriteNotFull;
    // Full leaves the file usable.
    const std::vector<WriteSpan> small = {{0, bytes.data(), 4096}};
    if (!file.write(small, true).is_ok()) return kUnusable;
    return kOk;
  });
  EXPECT_EQ(code, kOk);
}

INSTANTIATE_TEST_SUITE_P(Backends, PageFileTest,
                         ::testing::Values(BackendKind::kPosix, BackendKind::kUring),
                         [](const auto& test_info) {
                           return testing::kind_label(test_info.param);
                         });

}  // namespace
}  // namespace ordo::io
