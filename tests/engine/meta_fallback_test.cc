// A meta slot written whole (its checksum matches) whose fields cannot be
// right: open uses the other slot and says so in DatabaseInfo::recovery, in
// both commit protocols, writable and read-only; with neither slot usable,
// open fails naming both problems.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"

namespace ordo {
namespace {

constexpr uint64_t kPage = 4096;
// docs/FORMAT.md: meta field offsets.
constexpr size_t kOffHighWater = 24;
constexpr size_t kOffFileBytes = 32;
constexpr size_t kOffDefaultRootPage = 40;
constexpr size_t kOffLogEpoch = 200;
constexpr size_t kChecksumOffset = 248;

enum class Damage {
  kHighWaterPastTheFile,       // high-water (and the file length it records) 1000x the file
  kHighWaterPastItsFileBytes,  // high-water past the file length the meta itself records
  kRootPastTheHighWater,       // default tree root at or past the high-water mark
};

std::string name(Damage d) {
  switch (d) {
    case Damage::kHighWaterPastTheFile:
      return "HighWaterPastTheFile";
    case Damage::kHighWaterPastItsFileBytes:
      return "HighWaterPastItsFileBytes";
    case Damage::kRootPastTheHighWater:
      return "RootPastTheHighWater";
  }
  return "?";
}

uint64_t load_u64(const std::vector<std::byte>& page, size_t off) {
  uint64_t v;
  std::memcpy(&v, page.data() + off, 8);
  return v;
}
void store_u64(std::vector<std::byte>& page, size_t off, uint64_t v) {
  std::memcpy(page.data() + off, &v, 8);
}

class MetaFallbackTest : public ::testing::TestWithParam<std::tuple<CommitProtocol, Damage>> {
 protected:
  std::string path() const { return dir_.file("db.ordo"); }
  CommitProtocol protocol() const { return std::get<0>(GetParam()); }
  Damage damage() const { return std::get<1>(GetParam()); }

  // Two commits after creation: txn 1 ("one") in slot 1, txn 2 ("two") in slot 0.
  void make_db() {
    Options o;
    o.extent_bytes = 1 << 20;
    o.commit_protocol = protocol();
    auto db = testing::open_db(path(), o);
    ASSERT_NE(db, nullptr);
    for (const char* key : {"one", "two"}) {
      auto w = db->begin_write();
      ASSERT_TRUE(w.is_ok());
      for (int i = 0; i < 200; ++i) {
        ASSERT_TRUE(w->put(w->default_tree(), std::string(key) + std::to_string(i), key).is_ok());
      }
      ASSERT_TRUE(w->commit().is_ok());
    }
    ASSERT_EQ(db->info().txn_id, 2u);
  }

  // Rewrites meta slot `slot` as `damage` says, with a checksum that matches.
  void damage_slot(int slot, Damage damage) {
    std::vector<std::byte> page = io::testing::pread_file(path(), slot * kPage, kPage);
    ASSERT_EQ(page.size(), kPage);
    const uint64_t file_pages = io::testing::read_file(path()).size() / kPage;
    const uint64_t high_water = load_u64(page, kOffHighWater);
    switch (damage) {
      case Damage::kHighWaterPastTheFile:
        store_u64(page, kOffHighWater, 1000 * file_pages);
        store_u64(page, kOffFileBytes, 1000 * file_pages * kPage);
        break;
      case Damage::kHighWaterPastItsFileBytes:
        store_u64(page, kOffHighWater, 1000 * file_pages);
        break;
      case Damage::kRootPastTheHighWater:
        store_u64(page, kOffDefaultRootPage, high_water + 3);
        break;
    }
    store_u64(page, kChecksumOffset, XXH3_64bits(page.data(), kChecksumOffset));
    const int fd = ::open(path().c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, page.data(), page.size(), static_cast<off_t>(slot * kPage)),
              static_cast<ssize_t>(kPage));
    ::close(fd);
  }

  Result<std::unique_ptr<Database>> open(bool read_only) {
    Options o;
    o.read_only = read_only;
    o.commit_protocol = protocol();
    o.verify_checksums = true;
    return testing::open_database(path(), o);
  }

  // Open sees txn 1 only, and names slot 0 (txn 2) and what is wrong with it.
  void expect_fell_back(Database& db) {
    const DatabaseInfo info = db.info();
    EXPECT_EQ(info.txn_id, 1u);
    EXPECT_EQ(info.current_meta, 1);
    EXPECT_NE(info.recovery.find("meta 0 (txn 2) is unusable"), std::string::npos) << info.recovery;
    EXPECT_NE(info.recovery.find("using meta 1 (txn 1)"), std::string::npos) << info.recovery;
    const char* why = damage() == Damage::kHighWaterPastTheFile ? "truncated"
                      : damage() == Damage::kHighWaterPastItsFileBytes
                          ? "high-water past the file length it records"
                          : "default tree root";
    EXPECT_NE(info.recovery.find(why), std::string::npos) << info.recovery;
    EXPECT_FALSE(info.metas[0].valid);
    EXPECT_FALSE(info.metas[0].problem.empty());
    EXPECT_TRUE(info.metas[1].valid) << info.metas[1].problem;
    auto r = db.begin_read();
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->get(r->default_tree(), "one7")->str(), "one");
    EXPECT_TRUE(r->get(r->default_tree(), "two7").status().is_not_found());
  }

  io::testing::TempDir dir_;
};

TEST_P(MetaFallbackTest, OpenUsesTheOtherSlotAndSaysWhy) {
  make_db();
  damage_slot(0, damage());
  const std::vector<std::byte> before = io::testing::read_file(path());
  {
    auto db = open(/*read_only=*/true);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    expect_fell_back(**db);
  }
  EXPECT_EQ(io::testing::read_file(path()), before) << "a read-only open wrote to the file";
  {
    auto db = open(/*read_only=*/false);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    expect_fell_back(**db);
    // The next commit is txn 2 again, into slot 0: the file is whole again.
    auto w = (*db)->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "three", "3").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto db = open(/*read_only=*/false);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  EXPECT_EQ((*db)->info().txn_id, 2u);
  EXPECT_TRUE((*db)->info().recovery.empty()) << (*db)->info().recovery;
  auto r = (*db)->begin_read();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->get(r->default_tree(), "three")->str(), "3");
  EXPECT_EQ(r->get(r->default_tree(), "one7")->str(), "one");
  auto report = r->check();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  for (const CheckProblem& p : report->problems) ADD_FAILURE() << p.page_number << ": " << p.what;
}

TEST_P(MetaFallbackTest, BothSlotsUnusableIsCorruptionNamingBoth) {
  make_db();
  damage_slot(0, damage());
  damage_slot(1, damage());
  for (bool read_only : {true, false}) {
    const Status s = open(read_only).status();
    EXPECT_TRUE(s.is_corruption()) << s.to_string();
    EXPECT_NE(s.message().find("meta 0: "), std::string::npos) << s.to_string();
    EXPECT_NE(s.message().find("meta 1: "), std::string::npos) << s.to_string();
    EXPECT_NE(s.message().find("txn 2"), std::string::npos) << s.to_string();
    EXPECT_NE(s.message().find("txn 1"), std::string::npos) << s.to_string();
  }
}

// An older slot that is unusable does not matter: the newest is used, nothing is said.
TEST_P(MetaFallbackTest, UnusableOlderSlotIsPassedOverSilently) {
  make_db();
  damage_slot(1, damage());
  auto db = open(/*read_only=*/false);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  EXPECT_EQ((*db)->info().txn_id, 2u);
  EXPECT_TRUE((*db)->info().recovery.empty()) << (*db)->info().recovery;
  EXPECT_FALSE((*db)->info().metas[1].valid);
}

INSTANTIATE_TEST_SUITE_P(
    Protocols, MetaFallbackTest,
    ::testing::Combine(::testing::Values(CommitProtocol::kOneSync, CommitProtocol::kTwoSync),
                       ::testing::Values(Damage::kHighWaterPastTheFile,
                                         Damage::kHighWaterPastItsFileBytes,
                                         Damage::kRootPastTheHighWater)),
    [](const auto& param_info) {
      return std::string(std::get<0>(param_info.param) == CommitProtocol::kOneSync ? "OneSync"
                                                                                   : "TwoSync") +
             name(std::get<1>(param_info.param));
    });

// A slot holding a log epoch of the other parity was not written there by a
// checkpoint.
TEST(MetaFallbackParityTest, EpochOfTheOtherParityMakesTheSlotUnusable) {
  io::testing::TempDir dir;
  const std::string path = dir.file("db.ordo");
  Options o;
  o.commit_protocol = CommitProtocol::kTwoSync;  // every commit a checkpoint
  {
    auto db = testing::open_db(path, o);
    ASSERT_NE(db, nullptr);
    for (int t = 0; t < 2; ++t) {
      auto w = db->begin_write();
      ASSERT_TRUE(w->put(w->default_tree(), "k" + std::to_string(t), "v").is_ok());
      ASSERT_TRUE(w->commit().is_ok());
    }
  }
  std::vector<std::byte> page = io::testing::pread_file(path, 0, kPage);  // slot 0: txn 2
  store_u64(page, kOffLogEpoch, 3);
  store_u64(page, kChecksumOffset, XXH3_64bits(page.data(), kChecksumOffset));
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, page.data(), page.size(), 0), static_cast<ssize_t>(kPage));
  ::close(fd);
  auto db = testing::open_db(path, o);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(db->info().txn_id, 1u);
  EXPECT_NE(db->info().recovery.find("holds only even epochs"), std::string::npos)
      << db->info().recovery;
}

}  // namespace
}  // namespace ordo
