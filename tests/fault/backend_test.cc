// FaultLog and FaultBackend: crash images of every variant against hand-built
// expectations, the crash-point list, and injected failures returning what a real
// backend returns while leaving the file untouched.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <set>
#include <vector>

#include "io_test_util.h"
#include "ordo/io/testing/fault_backend.h"
#include "ordo/io/testing/fault_log.h"

namespace ordo::io::testing {
namespace {

constexpr uint64_t kPage = 4096;
using Bytes = std::vector<std::byte>;

// `pages` pages, page k filled with fills[k] (0 for zeros).
Bytes pages_of(std::initializer_list<char> fills) {
  Bytes out;
  for (char c : fills) out.insert(out.end(), kPage, static_cast<std::byte>(c));
  return out;
}

// Sets bytes [from, to) of `image` to `c`.
void fill(Bytes& image, uint64_t from, uint64_t to, char c) {
  for (uint64_t i = from; i < to; ++i) image[i] = static_cast<std::byte>(c);
}

// A temp file with `initial` bytes, a log started on it and a FaultBackend over POSIX.
class FaultBackendTest : public ::testing::Test {
 protected:
  void open_file(const Bytes& initial) {
    fd_ = ::open(dir_.file("f").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(fd_, 0);
    ASSERT_EQ(::pwrite(fd_, initial.data(), initial.size(), 0),
              static_cast<ssize_t>(initial.size()));
    log_ = std::make_shared<FaultLog>();
    auto backend = fault_backend_factory(log_)(fd_);
    ASSERT_TRUE(backend.is_ok()) << backend.status().to_string();
    backend_ = std::move(backend).value();
  }
  void TearDown() override {
    backend_.reset();
    if (fd_ >= 0) ::close(fd_);
  }

  // Writes one page filled with `c` at page `page_no`.
  Status write_page(uint64_t page_no, char c, bool sync_after = false) {
    buffers_.push_back(pages_of({c}));
    WriteSpan span{page_no * kPage, buffers_.back().data(), kPage};
    return backend_->write(std::span<const WriteSpan>(&span, 1), sync_after);
  }

  // Ops: 0 W p0=a, 1 S, 2 W p1=b, 3 W p2=c (grows the file), 4 W p0=d.
  void write_scenario() {
    ASSERT_TRUE(write_page(0, 'a', true).is_ok());
    ASSERT_TRUE(write_page(1, 'b').is_ok());
    ASSERT_TRUE(write_page(2, 'c').is_ok());
    ASSERT_TRUE(write_page(0, 'd').is_ok());
  }

  Bytes image(size_t after_ops, CrashVariant v) {
    auto img = log_->image({after_ops, std::move(v)});
    EXPECT_TRUE(img.is_ok()) << img.status().to_string();
    return img.is_ok() ? std::move(img).value() : Bytes();
  }

  Bytes file_bytes(uint64_t offset, size_t size) {
    return pread_file(dir_.file("f"), offset, size);
  }

  TempDir dir_;
  int fd_ = -1;
  std::shared_ptr<FaultLog> log_;
  std::unique_ptr<WriteBackend> backend_;
  std::vector<Bytes> buffers_;
};

TEST_F(FaultBackendTest, RecordsEveryWriteAndSyncInOrder) {
  open_file(pages_of({'i', 'i'}));
  EXPECT_EQ(backend_->name(), "fault");
  EXPECT_EQ(log_->initial_image(), pages_of({'i', 'i'}));
  // One call, spans out of order: recorded sorted by offset, one op each.
  Bytes b = pages_of({'b'}), c = pages_of({'c'});
  WriteSpan spans[] = {{2 * kPage, c.data(), kPage}, {kPage, b.data(), kPage}};
  ASSERT_TRUE(backend_->write(spans, true).is_ok());
  ASSERT_TRUE(backend_->sync().is_ok());
  ASSERT_EQ(log_->op_count(), 4u);
  EXPECT_EQ(log_->op(0).kind, FaultOp::Kind::kWrite);
  EXPECT_EQ(log_->op(0).offset_bytes, kPage);
  EXPECT_EQ(log_->op(0).data, b);
  EXPECT_EQ(log_->op(0).file_bytes, 2 * kPage);
  EXPECT_EQ(log_->op(1).offset_bytes, 2 * kPage);
  EXPECT_EQ(log_->op(1).file_bytes, 3 * kPage);
  EXPECT_EQ(log_->op(2).kind, FaultOp::Kind::kSync);
  EXPECT_EQ(log_->op(3).kind, FaultOp::Kind::kSync);
  EXPECT_EQ(log_->write_count(), 2u);
  EXPECT_EQ(log_->sync_count(), 2u);
  EXPECT_EQ(log_->failed_count(), 0u);
  EXPECT_EQ(file_bytes(0, 3 * kPage), pages_of({'i', 'b', 'c'}));
}

TEST_F(FaultBackendTest, ImagesOfEveryVariant) {
  open_file(pages_of({'i', 'i'}));
  ASSERT_NO_FATAL_FAILURE(write_scenario());
  ASSERT_EQ(log_->op_count(), 5u);
  EXPECT_EQ(log_->pending_write_count(5), 3u);  // b, c, d after the sync at op 1

  EXPECT_EQ(image(0, CrashVariant::prefix(0)), pages_of({'i', 'i'}));
  EXPECT_EQ(image(1, CrashVariant::prefix(0)), pages_of({'i', 'i'}));
  EXPECT_EQ(image(1, CrashVariant::prefix(1)), pages_of({'a', 'i'}));
  EXPECT_EQ(image(2, CrashVariant::prefix(0)), pages_of({'a', 'i'}));

  // Durable: a,i (8192 bytes, the length at the sync). Pending: b@1, c@2, d@0.
  EXPECT_EQ(image(5, CrashVariant::prefix(0)), pages_of({'a', 'i'}));
  EXPECT_EQ(image(5, CrashVariant::prefix(1)), pages_of({'a', 'b'}));
  EXPECT_EQ(image(5, CrashVariant::prefix(2)), pages_of({'a', 'b', 'c'}));
  EXPECT_EQ(image(5, CrashVariant::prefix(3)), pages_of({'d', 'b', 'c'}));
  EXPECT_EQ(image(5, CrashVariant::drop_one(0)), pages_of({'d', 'i', 'c'}));
  EXPECT_EQ(image(5, CrashVariant::drop_one(1)), pages_of({'d', 'b'}));  // growth lost
  EXPECT_EQ(image(5, CrashVariant::drop_one(2)), pages_of({'a', 'b', 'c'}));

  // d torn: its first four sectors landed over a.
  Bytes torn_d = pages_of({'a', 'b', 'c'});
  fill(torn_d, 0, 4 * 512, 'd');
  EXPECT_EQ(image(5, CrashVariant::torn(2, uint64_t{0b00001111})), torn_d);
  // d torn, every other sector.
  Bytes alt_d = pages_of({'a', 'b', 'c'});
  for (int k = 0; k < 8; k += 2) fill(alt_d, k * 512, (k + 1) * 512, 'd');
  EXPECT_EQ(image(5, CrashVariant::torn(2, alternate_sectors(8))), alt_d);
  // c torn past the durable length: only its last sector landed, zeros before it.
  Bytes torn_c = pages_of({'a', 'b', 0});
  fill(torn_c, 2 * kPage + 7 * 512, 3 * kPage, 'c');
  EXPECT_EQ(image(5, CrashVariant::torn(1, uint64_t{0b10000000})), torn_c);
  // c torn with no sector landed: the file keeps its durable length.
  EXPECT_EQ(image(5, CrashVariant::torn(1, uint64_t{0})), pages_of({'a', 'b'}));

  ASSERT_TRUE(backend_->sync().is_ok());
  EXPECT_EQ(image(6, CrashVariant::prefix(0)), pages_of({'d', 'b', 'c'}));
  // Asked out of order (the cache goes backwards): still right.
  EXPECT_EQ(image(2, CrashVariant::prefix(0)), pages_of({'a', 'i'}));
  EXPECT_EQ(image(6, CrashVariant::prefix(0)), pages_of({'d', 'b', 'c'}));
}

TEST_F(FaultBackendTest, GrowthAfterTheLastSyncMayBeLost) {
  open_file(pages_of({'i'}));
  ASSERT_TRUE(write_page(0, 'a', true).is_ok());   // ops 0, 1; length 4096
  ASSERT_EQ(::ftruncate(fd_, 4 * kPage), 0);       // growth, as fallocate does
  ASSERT_TRUE(write_page(3, 'e', false).is_ok());  // op 2
  ASSERT_TRUE(backend_->sync().is_ok());           // op 3; length 16384
  EXPECT_EQ(log_->op(2).file_bytes, 4 * kPage);
  EXPECT_EQ(image(3, CrashVariant::prefix(0)), pages_of({'a'}));
  EXPECT_EQ(image(3, CrashVariant::prefix(1)), pages_of({'a', 0, 0, 'e'}));
  EXPECT_EQ(image(4, CrashVariant::prefix(0)), pages_of({'a', 0, 0, 'e'}));
  // Growth with no write in it is durable once a sync follows.
  ASSERT_EQ(::ftruncate(fd_, 6 * kPage), 0);
  EXPECT_EQ(image(4, CrashVariant::prefix(0)), pages_of({'a', 0, 0, 'e'}));
  ASSERT_TRUE(backend_->sync().is_ok());  // op 4; length 24576
  EXPECT_EQ(image(5, CrashVariant::prefix(0)), pages_of({'a', 0, 0, 'e', 0, 0}));
}

// Any subset of the pending writes, and one of them torn at any byte.
TEST_F(FaultBackendTest, ImagesOfSubsetsWithAWriteTornAtAnyByte) {
  open_file(pages_of({'i', 'i'}));
  ASSERT_NO_FATAL_FAILURE(write_scenario());
  // Pending: b@1, c@2, d@0 over the durable a,i.
  EXPECT_EQ(log_->pending_write_ops(5), (std::vector<size_t>{2, 3, 4}));
  EXPECT_EQ(log_->pending_write_ops(3), (std::vector<size_t>{2}));
  EXPECT_EQ(image(5, CrashVariant::subset({})), pages_of({'a', 'i'}));
  EXPECT_EQ(image(5, CrashVariant::subset({false, false, true})), pages_of({'d', 'i'}));
  EXPECT_EQ(image(5, CrashVariant::subset({true, false, true})), pages_of({'d', 'b'}));
  EXPECT_EQ(image(5, CrashVariant::subset({false, true})), pages_of({'a', 'i', 'c'}));
  // d landed in bytes [100, 3001) only, b whole, c lost.
  Bytes torn_d = pages_of({'a', 'b'});
  fill(torn_d, 100, 3001, 'd');
  EXPECT_EQ(image(5, CrashVariant::subset_torn({true, false, false}, 2, 100, 3001)), torn_d);
  // c torn to its last byte: the file extends to cover it.
  Bytes torn_c = pages_of({'a', 'i', 0});
  fill(torn_c, 3 * kPage - 1, 3 * kPage, 'c');
  EXPECT_EQ(image(5, CrashVariant::subset_torn({}, 1, kPage - 1, kPage)), torn_c);
  // Out of range: more flags than pending writes, a torn range past the write.
  EXPECT_TRUE(log_->image({5, CrashVariant::subset({true, true, true, true})})
                  .status()
                  .is_invalid_argument());
  EXPECT_TRUE(log_->image({5, CrashVariant::subset_torn({true, true, true}, 2, 0, kPage + 1)})
                  .status()
                  .is_invalid_argument());
  EXPECT_EQ(CrashVariant::subset_torn({true, false}, 1, 3, 9).to_string(),
            "subset(10, torn 1 [3, 9))");
}

TEST_F(FaultBackendTest, ImageRejectsVariantsThatNameNoPendingWrite) {
  open_file(pages_of({'i'}));
  ASSERT_TRUE(write_page(0, 'a', true).is_ok());
  ASSERT_TRUE(write_page(1, 'b').is_ok());
  EXPECT_TRUE(log_->image({3, CrashVariant::prefix(1)}).is_ok());
  EXPECT_TRUE(log_->image({3, CrashVariant::prefix(2)}).status().is_invalid_argument());
  EXPECT_TRUE(log_->image({3, CrashVariant::drop_one(1)}).status().is_invalid_argument());
  EXPECT_TRUE(log_->image({3, CrashVariant::torn(1, uint64_t{1})}).status().is_invalid_argument());
  EXPECT_TRUE(log_->image({4, CrashVariant::prefix(0)}).status().is_invalid_argument());
  EXPECT_TRUE(log_->image({2, CrashVariant::prefix(1)}).status().is_invalid_argument());
}

TEST_F(FaultBackendTest, CrashPointsListEveryVariantOnce) {
  open_file(pages_of({'i', 'i'}));
  ASSERT_NO_FATAL_FAILURE(write_scenario());
  ASSERT_TRUE(backend_->sync().is_ok());  // ops: W S W W W S
  const std::vector<bool> half = first_half_sectors(8), alt = alternate_sectors(8);
  using V = CrashVariant;
  // One row per after_ops.
  // clang-format off
  const std::vector<CrashPoint> expected = {
      {0, V::prefix(0)},
      {1, V::prefix(1)}, {1, V::torn(0, half)}, {1, V::torn(0, alt)},
      {2, V::prefix(0)},
      {3, V::prefix(1)}, {3, V::torn(0, half)}, {3, V::torn(0, alt)},
      {4, V::prefix(2)}, {4, V::drop_one(0)}, {4, V::torn(1, half)}, {4, V::torn(1, alt)},
      {5, V::prefix(3)}, {5, V::drop_one(0)}, {5, V::drop_one(1)}, {5, V::torn(2, half)},
      {5, V::torn(2, alt)},
      {6, V::prefix(0)},
  };
  // clang-format on
  EXPECT_EQ(log_->crash_points(), expected);

  // From the middle of an epoch, the first point lists every prefix.
  const std::vector<CrashPoint> from4 = log_->crash_points(4);
  ASSERT_GE(from4.size(), 3u);
  EXPECT_EQ(from4[0], (CrashPoint{4, V::prefix(0)}));
  EXPECT_EQ(from4[1], (CrashPoint{4, V::prefix(1)}));
  EXPECT_EQ(from4[2], (CrashPoint{4, V::prefix(2)}));
  EXPECT_EQ(from4.size(), 6u + 5u + 1u);
  EXPECT_TRUE(log_->crash_points(7).empty());
}

// What deduplication leaves out never loses a distinct image.
TEST_F(FaultBackendTest, CrashPointsCoverEveryImageOfTheFullEnumeration) {
  open_file(pages_of({'i', 'i'}));
  ASSERT_NO_FATAL_FAILURE(write_scenario());
  ASSERT_TRUE(write_page(3, 'e', true).is_ok());
  ASSERT_TRUE(write_page(1, 'f').is_ok());
  std::set<Bytes> listed, all;
  for (const CrashPoint& p : log_->crash_points()) listed.insert(image(p.after_ops, p.variant));
  for (size_t k = 0; k <= log_->op_count(); ++k) {
    const size_t n = log_->pending_write_count(k);
    for (size_t j = 0; j <= n; ++j) all.insert(image(k, CrashVariant::prefix(j)));
    for (size_t i = 0; i < n; ++i) {
      all.insert(image(k, CrashVariant::drop_one(i)));
      all.insert(image(k, CrashVariant::torn(i, first_half_sectors(8))));
      all.insert(image(k, CrashVariant::torn(i, alternate_sectors(8))));
    }
  }
  // Only the last pending write is torn in the list; every other image must be there.
  for (const Bytes& img : listed) EXPECT_TRUE(all.count(img));
  size_t missing = 0;
  for (size_t k = 0; k <= log_->op_count(); ++k) {
    const size_t n = log_->pending_write_count(k);
    for (size_t j = 0; j <= n; ++j) missing += !listed.count(image(k, CrashVariant::prefix(j)));
    for (size_t i = 0; i < n; ++i) missing += !listed.count(image(k, CrashVariant::drop_one(i)));
    if (n > 0) {
      missing += !listed.count(image(k, CrashVariant::torn(n - 1, first_half_sectors(8))));
      missing += !listed.count(image(k, CrashVariant::torn(n - 1, alternate_sectors(8))));
    }
  }
  EXPECT_EQ(missing, 0u);
}

TEST_F(FaultBackendTest, InjectedWriteEioStopsTheCallAndWritesNothing) {
  open_file(pages_of({'i', 'i', 'i'}));
  log_->fail_write_at(1, EIO);  // the second write op from now
  Bytes a = pages_of({'a'}), b = pages_of({'b'}), c = pages_of({'c'});
  WriteSpan spans[] = {
      {2 * kPage, c.data(), kPage}, {0, a.data(), kPage}, {kPage, b.data(), kPage}};
  Status s = backend_->write(spans, true);
  EXPECT_TRUE(s.is_io_error()) << s.to_string();
  EXPECT_EQ(s.errno_value(), EIO);
  // Sorted: page 0 written, page 1 failed, page 2 and the sync never issued.
  ASSERT_EQ(log_->op_count(), 2u);
  EXPECT_FALSE(log_->op(0).failed());
  EXPECT_EQ(log_->op(1).error, EIO);
  EXPECT_EQ(log_->op(1).offset_bytes, kPage);
  EXPECT_EQ(log_->write_count(), 1u);
  EXPECT_EQ(log_->failed_count(), 1u);
  EXPECT_EQ(log_->sync_count(), 0u);
  EXPECT_EQ(file_bytes(0, 3 * kPage), pages_of({'a', 'i', 'i'}));
  // The failed op is no pending write.
  EXPECT_EQ(log_->pending_write_count(2), 1u);
  EXPECT_EQ(image(2, CrashVariant::prefix(1)), pages_of({'a', 'i', 'i'}));
  // One-shot: the next write goes through.
  ASSERT_TRUE(write_page(1, 'b').is_ok());
  EXPECT_EQ(file_bytes(kPage, kPage), pages_of({'b'}));
}

TEST_F(FaultBackendTest, InjectedSyncEioIsNoDurabilityPoint) {
  open_file(pages_of({'i'}));
  log_->fail_sync_at(0, EIO);
  Status s = write_page(0, 'a', true);
  EXPECT_TRUE(s.is_io_error()) << s.to_string();
  EXPECT_EQ(s.errno_value(), EIO);
  ASSERT_EQ(log_->op_count(), 2u);
  EXPECT_EQ(log_->op(1).kind, FaultOp::Kind::kSync);
  EXPECT_EQ(log_->op(1).error, EIO);
  EXPECT_EQ(log_->sync_count(), 0u);
  // Nothing is durable: the write is still pending after the failed sync.
  EXPECT_EQ(log_->pending_write_count(2), 1u);
  EXPECT_EQ(image(2, CrashVariant::prefix(0)), pages_of({'i'}));
  Status again = backend_->sync();
  EXPECT_TRUE(again.is_ok()) << again.to_string();
  EXPECT_EQ(image(3, CrashVariant::prefix(0)), pages_of({'a'}));
}

TEST_F(FaultBackendTest, EnospcAfterBytesIsFullUntilCleared) {
  open_file(pages_of({'i', 'i', 'i', 'i'}));
  log_->enospc_after_bytes(2 * kPage);
  ASSERT_TRUE(write_page(0, 'a').is_ok());
  ASSERT_TRUE(write_page(1, 'b').is_ok());
  Status s = write_page(2, 'c');
  EXPECT_TRUE(s.is_full()) << s.to_string();
  EXPECT_EQ(log_->op(2).error, ENOSPC);
  Status again = write_page(3, 'd');
  EXPECT_TRUE(again.is_full()) << again.to_string();
  EXPECT_EQ(file_bytes(0, 4 * kPage), pages_of({'a', 'b', 'i', 'i'}));
  EXPECT_EQ(log_->failed_count(), 2u);
  // Syncs still work on a full disk.
  EXPECT_TRUE(backend_->sync().is_ok());
  log_->clear_failures();
  ASSERT_TRUE(write_page(2, 'c').is_ok());
  EXPECT_EQ(file_bytes(0, 4 * kPage), pages_of({'a', 'b', 'c', 'i'}));
}

TEST_F(FaultBackendTest, InjectedNoSpaceErrnosAreFull) {
  open_file(pages_of({'i'}));
  log_->fail_write_at(0, ENOSPC);
  log_->fail_write_at(1, EDQUOT);
  log_->fail_sync_at(0, ENOSPC);
  EXPECT_TRUE(write_page(0, 'a').is_full());
  EXPECT_TRUE(write_page(0, 'a').is_full());
  EXPECT_TRUE(backend_->sync().is_full());
  EXPECT_EQ(log_->failed_count(), 3u);
  EXPECT_EQ(file_bytes(0, kPage), pages_of({'i'}));
}

TEST_F(FaultBackendTest, BadSpansAreInvalidArgumentAndRecordNothing) {
  open_file(pages_of({'i'}));
  Bytes a = pages_of({'a'});
  WriteSpan overlap[] = {{0, a.data(), kPage}, {kPage / 2, a.data(), kPage}};
  EXPECT_TRUE(backend_->write(overlap, true).is_invalid_argument());
  WriteSpan null_data{0, nullptr, 10};
  EXPECT_TRUE(
      backend_->write(std::span<const WriteSpan>(&null_data, 1), false).is_invalid_argument());
  EXPECT_EQ(log_->op_count(), 0u);
}

TEST_F(FaultBackendTest, StartForgetsOpsButKeepsArmedFailures) {
  open_file(pages_of({'i'}));
  ASSERT_TRUE(write_page(0, 'a', true).is_ok());
  log_->fail_write_at(0, EIO);
  ASSERT_TRUE(log_->start(fd_).is_ok());
  EXPECT_EQ(log_->op_count(), 0u);
  EXPECT_EQ(log_->initial_image(), pages_of({'a'}));
  EXPECT_TRUE(write_page(0, 'b').is_io_error());
}

}  // namespace
}  // namespace ordo::io::testing
