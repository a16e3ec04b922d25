// WriteBackend::write_ordered: both groups land, the second never without the first, and
// on io_uring a commit-sized call is one io_uring_enter.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "io_test_util.h"
#include "ordo/io/backend.h"

namespace ordo::io {
namespace {

using testing::file_size;
using testing::pread_file;
using testing::random_bytes;
using testing::TempDir;

constexpr uint64_t kPage = 4096;

class WriteOrderedTest : public ::testing::TestWithParam<BackendKind> {
 protected:
  void SetUp() override {
    if (GetParam() == BackendKind::kUring && !testing::uring_available()) {
      GTEST_SKIP() << "io_uring_queue_init fails on this machine";
    }
    fd_ = ::open(dir_.file("f").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd_, 0);
    Result<std::unique_ptr<WriteBackend>> backend = make_backend(fd_, GetParam());
    ASSERT_TRUE(backend.is_ok()) << backend.status().to_string();
    backend_ = std::move(backend).value();
  }
  void TearDown() override {
    backend_.reset();
    if (fd_ >= 0) ::close(fd_);
  }
  bool uring() const { return GetParam() == BackendKind::kUring; }

  TempDir dir_;
  int fd_ = -1;
  std::unique_ptr<WriteBackend> backend_;
};

// A commit's shape: 10 data pages in 3 runs of adjacent pages (given out of order),
// then one meta page, then the sync.
TEST_P(WriteOrderedTest, CommitShapedCallIsOneSubmissionOnUring) {
  const std::vector<std::byte> bytes = random_bytes(11 * kPage, 7);
  const uint64_t pages[] = {9, 2, 3, 4, 12, 10, 11, 13, 20, 21};
  std::vector<WriteSpan> data;
  for (size_t i = 0; i < std::size(pages); ++i) {
    data.push_back({pages[i] * kPage, bytes.data() + i * kPage, kPage});
  }
  const WriteSpan meta{kPage, bytes.data() + 10 * kPage, kPage};
  const uint64_t before = backend_->submissions();
  ASSERT_TRUE(backend_->write_ordered(data, {&meta, 1}, /*sync_after=*/true).is_ok());
  const uint64_t used = backend_->submissions() - before;
  // io_uring: one chain, one io_uring_enter. POSIX: a pwritev per run (2-4, 9-13 and
  // 20-21), one for the meta, one fdatasync.
  EXPECT_EQ(used, uring() ? 1u : 5u);
  ASSERT_EQ(file_size(dir_.file("f")), static_cast<int64_t>(22 * kPage));
  for (size_t i = 0; i < std::size(pages); ++i) {
    EXPECT_TRUE(pread_file(dir_.file("f"), pages[i] * kPage, kPage) ==
                std::vector<std::byte>(bytes.begin() + i * kPage, bytes.begin() + (i + 1) * kPage))
        << "page " << pages[i];
  }
  EXPECT_TRUE(pread_file(dir_.file("f"), kPage, kPage) ==
              std::vector<std::byte>(bytes.begin() + 10 * kPage, bytes.end()));
}

// More runs than the ring holds: the chain does not fit, the groups go one after the
// other in several submissions, and everything still lands.
TEST_P(WriteOrderedTest, MoreRunsThanTheRingStillWritesBothGroups) {
  testing::SpanSet set = testing::make_scattered_spans(99, 2 * kPage);
  const std::vector<std::byte> meta_bytes = random_bytes(kPage, 8);
  const WriteSpan meta{0, meta_bytes.data(), kPage};
  const uint64_t before = backend_->submissions();
  ASSERT_TRUE(backend_->write_ordered(set.spans, {&meta, 1}, true).is_ok());
  EXPECT_GT(backend_->submissions() - before, 1u);
  std::vector<std::byte> image = set.image;
  std::copy(meta_bytes.begin(), meta_bytes.end(), image.begin());
  EXPECT_TRUE(pread_file(dir_.file("f"), 0, image.size()) == image);
}

TEST_P(WriteOrderedTest, EmptyGroupsAreFine) {
  const std::vector<std::byte> bytes = random_bytes(kPage, 9);
  const WriteSpan meta{0, bytes.data(), kPage};
  ASSERT_TRUE(backend_->write_ordered({}, {&meta, 1}, true).is_ok());
  ASSERT_TRUE(backend_->write_ordered({&meta, 1}, {}, false).is_ok());
  ASSERT_TRUE(backend_->write_ordered({}, {}, true).is_ok());
  EXPECT_TRUE(pread_file(dir_.file("f"), 0, kPage) == bytes);
}

// Exit codes of the file size limit child.
enum OrderedChild { kOrderedChildOk = 0, kOrderedChildNotFull = testing::kChildSetupFailed + 1 };

// When a write of the first group fails (EFBIG past RLIMIT_FSIZE), the second group,
// the meta page of a commit, is not written: whether the failing write failed at once
// or first wrote part of its bytes (a short write that ends the io_uring chain).
TEST_P(WriteOrderedTest, SecondGroupIsNotWrittenWhenTheFirstFails) {
  const std::string path = dir_.file("limited");
  constexpr uint64_t kLimit = 1 << 20;
  const std::vector<std::byte> bytes = random_bytes(3 * kPage, 4);
  const int code =
      testing::run_with_file_size_limit(path, GetParam(), kLimit, [&](WriteBackend& backend) {
        const WriteSpan meta0{0, bytes.data(), kPage};
        const WriteSpan meta1{kPage, bytes.data(), kPage};
        // Wholly past the limit: fails at once.
        const std::vector<WriteSpan> beyond = {{2 * kPage, bytes.data(), kPage},
                                               {kLimit + kPage, bytes.data(), kPage}};
        if (!backend.write_ordered(beyond, {&meta0, 1}, true).is_full())
          return kOrderedChildNotFull;
        // Across the limit: a short write, then EFBIG for the rest.
        const std::vector<WriteSpan> across = {{kLimit - kPage, bytes.data(), 2 * kPage}};
        if (!backend.write_ordered(across, {&meta1, 1}, true).is_full())
          return kOrderedChildNotFull;
        return kOrderedChildOk;
      });
  ASSERT_EQ(code, kOrderedChildOk);
  // Page 2 (before the failing write) and the part below the limit were written; neither
  // meta page was.
  EXPECT_EQ(file_size(path), static_cast<int64_t>(kLimit));
  EXPECT_TRUE(pread_file(path, 0, 2 * kPage) == std::vector<std::byte>(2 * kPage));
  EXPECT_TRUE(pread_file(path, 2 * kPage, kPage) ==
              std::vector<std::byte>(bytes.begin(), bytes.begin() + kPage));
  EXPECT_TRUE(pread_file(path, kLimit - kPage, kPage) ==
              std::vector<std::byte>(bytes.begin(), bytes.begin() + kPage));
}

INSTANTIATE_TEST_SUITE_P(Backends, WriteOrderedTest,
                         ::testing::Values(BackendKind::kPosix, BackendKind::kUring),
                         [](const auto& test_info) {
                           return testing::kind_label(test_info.param);
                         });

}  // namespace
}  // namespace ordo::io
