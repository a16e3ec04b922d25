// Database::upgrade: the version 2 fixture (tests/engine/data/v2_small.ordo,
// made by the tool of the last version 2 commit; v2_small.txt says how)
// converted to version 3, then 4, with every entry of its dump
// (v2_small.dump), and every error the call documents.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "dump_format.h"
#include "engine_test_util.h"
#include "ordo/io/page_file.h"
#include "v2_fixture.h"
#include "v3_fixture.h"

namespace ordo {
namespace {

using testing::read_state;
using testing::State;

using testing::kV2Fixture;
using testing::kV2FixtureDump;
using testing::kV2FixtureHighWater;
using testing::kV2FixtureTxn;
using UpgradeTest = testing::V2FixtureTest;

constexpr uint64_t kPageSize = 4096;

std::string read_bytes(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path, std::ios::binary).rdbuf();
  return s.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The fixture's content as its dump holds it.
State dumped_content() {
  State out;
  std::FILE* in = std::fopen(kV2FixtureDump.c_str(), "rb");
  EXPECT_NE(in, nullptr) << kV2FixtureDump;
  if (in == nullptr) return out;
  tool::DumpReader reader(in);
  tool::DumpHeader header;
  for (;;) {
    auto more = reader.next_block(&header);
    EXPECT_TRUE(more.is_ok()) << more.status().to_string();
    if (!more.is_ok() || !*more) break;
    auto& tree = out[header.database.value_or("")];
    std::string key, value;
    for (;;) {
      auto record = reader.next_record(&key, &value);
      EXPECT_TRUE(record.is_ok()) << record.status().to_string();
      if (!record.is_ok() || !*record) break;
      tree[key] = value;
    }
  }
  std::fclose(in);
  return out;
}

TEST(UpgradeFixtureTest, FixtureIsSmallAndItsDumpHasEveryKind) {
  EXPECT_LT(std::filesystem::file_size(kV2Fixture), 1u << 20);
  const State want = dumped_content();
  ASSERT_EQ(want.size(), 3u);  // the default tree, users, events; scratch was dropped
  EXPECT_EQ(want.at("").size(), 200u);
  EXPECT_EQ(want.at("users").size(), 150u);
  EXPECT_EQ(want.at("events").size(), 100u);
  EXPECT_EQ(want.at("users").at("user:077").size(), 5000u);  // an overflow run
  EXPECT_EQ(want.at("").at("key0005"), "rewritten-5");
}

TEST_F(UpgradeTest, VersionTwoIsRefusedByOpenNamingTheUpgrade) {
  auto db = Database::open(path_);
  ASSERT_TRUE(db.status().is_version_mismatch()) << db.status().to_string();
  EXPECT_NE(db.status().message().find("ordo upgrade"), std::string::npos);
  EXPECT_EQ(read_bytes(path_), read_bytes(kV2Fixture));  // the failed open wrote nothing
}

TEST_F(UpgradeTest, KeepsEveryEntryAndAddsTheLogAtTheHighWaterMark) {
  auto up = Database::upgrade(path_);
  ASSERT_TRUE(up.is_ok()) << up.status().to_string();
  EXPECT_TRUE(up->upgraded);
  // Version 3 to 4 is a txn of its own: new branch pages past the log area.
  EXPECT_EQ(up->txn_id, kV2FixtureTxn + 1);
  EXPECT_EQ(up->page_size_bytes, kPageSize);
  EXPECT_EQ(up->log_first_page, kV2FixtureHighWater);
  EXPECT_EQ(up->log_bytes, 4u << 20);
  EXPECT_EQ(up->file_bytes, std::filesystem::file_size(path_));
  EXPECT_GT(up->file_bytes, (kV2FixtureHighWater << 12) + (4u << 20));
  EXPECT_TRUE(up->recovery.empty()) << up->recovery;
  // Every page before the log area is the version 2 file's, but the metas.
  const std::string before = read_bytes(kV2Fixture), after = read_bytes(path_);
  EXPECT_EQ(after.substr(2 * kPageSize, before.size() - 2 * kPageSize),
            before.substr(2 * kPageSize));
  EXPECT_EQ(after.substr(before.size(), 4u << 20), std::string(4u << 20, '\0'));
  const uint64_t new_pages =
      up->file_bytes / kPageSize - kV2FixtureHighWater - (4u << 20) / kPageSize;

  auto db = Database::open(path_);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  const DatabaseInfo info = (*db)->info();
  EXPECT_EQ(info.format_version, 4u);
  EXPECT_EQ(info.txn_id, kV2FixtureTxn + 1);
  EXPECT_TRUE(info.recovery.empty()) << info.recovery;
  EXPECT_EQ(info.log.first_page, kV2FixtureHighWater);
  EXPECT_EQ(info.log.area_bytes, 4u << 20);
  // The kept version 2 meta was in slot 0 (txn 8): the version 3 checkpoint
  // went to slot 1 (epoch 1), the version 4 one to slot 0 (epoch 2), and slot 1
  // is zeros.
  EXPECT_EQ(info.current_meta, 0);
  EXPECT_FALSE(info.metas[1].valid);
  EXPECT_EQ(after.substr(kPageSize, kPageSize), std::string(kPageSize, '\0'));
  auto txn = (*db)->begin_read();
  ASSERT_TRUE(txn.is_ok());
  EXPECT_EQ(read_state(*txn), dumped_content());
  auto report = txn->check();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_TRUE(report->clean()) << report->problems[0].what;
  EXPECT_EQ(report->log_pages, (4u << 20) / kPageSize);
  EXPECT_EQ(report->high_water_pages, kV2FixtureHighWater + (4u << 20) / kPageSize + new_pages);
  EXPECT_EQ(report->entries, 450u);
  EXPECT_GT(report->free_pages, 0u);  // the dropped tree's pages
  EXPECT_GT(report->overflow_pages, 0u);
}

TEST_F(UpgradeTest, CommitsAfterTheUpgradeSurviveReopen) {
  ASSERT_TRUE(Database::upgrade(path_, 64 << 10).is_ok());
  State want = dumped_content();
  {
    auto db = Database::open(path_);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    auto w = (*db)->begin_write();
    ASSERT_TRUE(w.is_ok());
    auto users = w->open_tree("users");
    ASSERT_TRUE(users.is_ok());
    ASSERT_TRUE(w->put(*users, "user:200", std::string(2000, 'z')).is_ok());
    ASSERT_TRUE(w->del(w->default_tree(), "key0001").is_ok());
    auto fresh = w->create_tree("fresh");
    ASSERT_TRUE(fresh.is_ok());
    ASSERT_TRUE(w->put(*fresh, "k", "v").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
    want["users"]["user:200"] = std::string(2000, 'z');
    want[""].erase("key0001");
    want["fresh"]["k"] = "v";
  }
  auto db = Database::open(path_);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  EXPECT_EQ((*db)->info().txn_id, kV2FixtureTxn + 2);
  auto txn = (*db)->begin_read();
  ASSERT_TRUE(txn.is_ok());
  EXPECT_EQ(read_state(*txn), want);
  testing::expect_check_clean(*txn);
}

TEST_F(UpgradeTest, UpgradingAgainChangesNothing) {
  ASSERT_TRUE(Database::upgrade(path_, 128 << 10).is_ok());
  const std::string once = read_bytes(path_);
  auto again = Database::upgrade(path_);  // another log size asks for nothing either
  ASSERT_TRUE(again.is_ok()) << again.status().to_string();
  EXPECT_FALSE(again->upgraded);
  EXPECT_EQ(again->txn_id, kV2FixtureTxn + 1);
  EXPECT_EQ(again->log_first_page, kV2FixtureHighWater);
  EXPECT_EQ(again->log_bytes, 128u << 10);
  EXPECT_EQ(read_bytes(path_), once);
}

TEST_F(UpgradeTest, LogBytesOutOfRangeIsRefusedBeforeAnyWrite) {
  for (uint64_t bytes : {uint64_t{4096}, uint64_t{(64 << 10) + 100}, uint64_t{2} << 30}) {
    auto up = Database::upgrade(path_, bytes);
    EXPECT_TRUE(up.status().is_invalid_argument()) << bytes << ": " << up.status().to_string();
    EXPECT_NE(up.status().message().find("log_bytes"), std::string::npos);
  }
  EXPECT_EQ(read_bytes(path_), read_bytes(kV2Fixture));
}

TEST_F(UpgradeTest, AFileHeldByAWriterIsBusy) {
  io::FileOptions fo;
  fo.create_if_missing = false;
  auto writer = io::PageFile::open(path_, fo);  // the writer lock a writable open takes
  ASSERT_TRUE(writer.is_ok()) << writer.status().to_string();
  auto up = Database::upgrade(path_);
  EXPECT_TRUE(up.status().is_busy()) << up.status().to_string();
  writer = Status::invalid_argument("closed");
  EXPECT_EQ(read_bytes(path_), read_bytes(kV2Fixture));
  EXPECT_TRUE(Database::upgrade(path_).is_ok());
}

TEST_F(UpgradeTest, AVersionThreeFileOpenForWritingIsBusy) {
  const std::string v3 = dir_.file("v3.ordo");
  auto db = Database::open(v3);
  ASSERT_TRUE(db.is_ok());
  EXPECT_TRUE(Database::upgrade(v3).status().is_busy());
}

TEST_F(UpgradeTest, FilesThatAreNoVersionTwoDatabaseGiveOpensErrors) {
  EXPECT_TRUE(Database::upgrade(dir_.file("missing.ordo")).status().is_not_found());
  EXPECT_FALSE(std::filesystem::exists(dir_.file("missing.ordo")));

  const std::string text = dir_.file("text.ordo");
  write_bytes(text, std::string(3 * kPageSize, 'x'));
  EXPECT_TRUE(Database::upgrade(text).status().is_not_ordo_file());
  write_bytes(text, "short");
  EXPECT_TRUE(Database::upgrade(text).status().is_not_ordo_file());
  write_bytes(text, "");
  EXPECT_TRUE(Database::upgrade(text).status().is_not_ordo_file());

  // Truncated before the pages its metas reach.
  const std::string fixture = read_bytes(kV2Fixture);
  write_bytes(path_, fixture.substr(0, 4 * kPageSize));
  auto truncated = Database::upgrade(path_);
  EXPECT_TRUE(truncated.status().is_corruption()) << truncated.status().to_string();
  EXPECT_NE(truncated.status().message().find("truncated"), std::string::npos)
      << truncated.status().to_string();
  // Shorter than one page, starting with the magic.
  write_bytes(path_, fixture.substr(0, 100));
  EXPECT_TRUE(Database::upgrade(path_).status().is_corruption());

  // Both metas damaged.
  std::string damaged = fixture;
  damaged[20] ^= 1;
  damaged[kPageSize + 20] ^= 1;
  write_bytes(path_, damaged);
  auto bad = Database::upgrade(path_);
  EXPECT_TRUE(bad.status().is_corruption()) << bad.status().to_string();
  EXPECT_EQ(read_bytes(path_), damaged);

  // Version 1: not what the upgrade converts.
  std::string v1 = fixture;
  for (size_t slot : {size_t{0}, size_t{kPageSize}}) {
    v1[slot + 8] = 1;
    const uint64_t sum = XXH3_64bits(v1.data() + slot, 184);
    std::memcpy(v1.data() + slot + 184, &sum, 8);  // little-endian host
  }
  write_bytes(path_, v1);
  auto old = Database::upgrade(path_);
  EXPECT_TRUE(old.status().is_version_mismatch()) << old.status().to_string();
  EXPECT_EQ(read_bytes(path_), v1);
}

// The newest version 2 meta is a one-sync commit whose pages do not verify (a
// crash during it): the upgrade keeps the commit before, as a version 2 open
// would have.
TEST_F(UpgradeTest, AnIncompleteOneSyncCommitIsNotKept) {
  std::string file = read_bytes(kV2Fixture);
  // Slot 0 holds txn 8: flag it one-sync (flags at 176) and reseal it.
  file[176] = 1;
  const uint64_t sum = XXH3_64bits(file.data(), 184);
  std::memcpy(file.data() + 184, &sum, 8);
  // Damage a tree page txn 8 wrote (header: type at 0, txn id at 8).
  bool damaged = false;
  for (size_t pg = 2; pg < kV2FixtureHighWater && !damaged; ++pg) {
    const char* p = file.data() + pg * kPageSize;
    uint64_t txn = 0;
    std::memcpy(&txn, p + 8, 8);
    if ((p[0] == 2 || p[0] == 3) && txn == kV2FixtureTxn) {
      file[pg * kPageSize + kPageSize - 1] ^= 0x5a;
      damaged = true;
    }
  }
  ASSERT_TRUE(damaged);
  write_bytes(path_, file);
  auto up = Database::upgrade(path_);
  ASSERT_TRUE(up.is_ok()) << up.status().to_string();
  EXPECT_EQ(up->txn_id, kV2FixtureTxn);  // txn 7, then the version 4 step's txn
  EXPECT_NE(up->recovery.find("was not durable"), std::string::npos) << up->recovery;
  auto db = Database::open(path_);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  EXPECT_EQ((*db)->info().txn_id, kV2FixtureTxn);
  auto txn = (*db)->begin_read();
  ASSERT_TRUE(txn.is_ok());
  const State got = read_state(*txn);
  ASSERT_TRUE(got.count("scratch"));  // txn 8 dropped it
  EXPECT_EQ(got.at("scratch").size(), 60u);
  testing::expect_check_clean(*txn);
}

}  // namespace
}  // namespace ordo

namespace ordo {
namespace {

using testing::copy_v3_fixture;
using testing::kV3Fixture;
using testing::kV3FixtureTxn;

// Version 3 to 4: branch cells gain their child's entry count.
class UpgradeV3Test : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("db.ordo");
    copy_v3_fixture(path_);
  }
  testing::TempDir dir_;
  std::string path_;
};

TEST_F(UpgradeV3Test, VersionThreeIsRefusedByOpenNamingTheUpgrade) {
  auto db = Database::open(path_);
  ASSERT_TRUE(db.status().is_version_mismatch()) << db.status().to_string();
  EXPECT_NE(db.status().message().find("ordo upgrade"), std::string::npos);
  EXPECT_NE(db.status().message().find("format version 3"), std::string::npos);
  EXPECT_EQ(read_bytes(path_), read_bytes(kV3Fixture));
}

TEST_F(UpgradeV3Test, KeepsEveryEntryAndCountsEveryBranch) {
  auto up = Database::upgrade(path_);
  ASSERT_TRUE(up.is_ok()) << up.status().to_string();
  EXPECT_TRUE(up->upgraded);
  EXPECT_EQ(up->txn_id, kV3FixtureTxn + 1);
  EXPECT_TRUE(up->recovery.empty()) << up->recovery;
  // Leaves stay where they were: only metas changed below the old end.
  const std::string before = read_bytes(kV3Fixture), after = read_bytes(path_);
  ASSERT_GT(after.size(), before.size());
  EXPECT_EQ(after.substr(2 * kPageSize, before.size() - 2 * kPageSize),
            before.substr(2 * kPageSize));

  auto db = Database::open(path_);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  EXPECT_EQ((*db)->info().format_version, 4u);
  EXPECT_EQ((*db)->info().txn_id, kV3FixtureTxn + 1);
  const auto want = testing::v3_fixture_content();
  {
    auto txn = (*db)->begin_read();
    ASSERT_TRUE(txn.is_ok());
    EXPECT_EQ(read_state(*txn), want);
    auto stats = txn->tree_stats(txn->default_tree());
    ASSERT_TRUE(stats.is_ok());
    EXPECT_EQ(stats->depth, 4u);
    testing::expect_check_clean(*txn);  // every branch count checked against its child
    // Positions and counts over the rewritten branches.
    const auto& keys = want.at("");
    auto n = txn->count(txn->default_tree(), KeyRange::all());
    ASSERT_TRUE(n.is_ok());
    EXPECT_EQ(*n, keys.size());
    uint64_t i = 0;
    for (const auto& [key, value] : keys) {
      auto c = txn->at(txn->default_tree(), i);
      ASSERT_TRUE(c.is_ok()) << i << ": " << c.status().to_string();
      ASSERT_EQ(c->key().str(), key);
      auto r = txn->rank(txn->default_tree(), key);
      ASSERT_TRUE(r.is_ok());
      ASSERT_EQ(*r, i++);
    }
  }
  // The old branch pages are free: a later commit may reuse them.
  auto w = (*db)->begin_write();
  ASSERT_TRUE(w.is_ok());
  ASSERT_TRUE(w->put(w->default_tree(), "new", "value").is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  auto txn = (*db)->begin_read();
  ASSERT_TRUE(txn.is_ok());
  testing::expect_check_clean(*txn);
  auto again = Database::upgrade(path_);
  ASSERT_TRUE(again.status().is_busy() || (again.is_ok() && !again->upgraded))
      << again.status().to_string();
}

TEST_F(UpgradeV3Test, UpgradingAgainChangesNothing) {
  ASSERT_TRUE(Database::upgrade(path_).is_ok());
  const std::string once = read_bytes(path_);
  auto again = Database::upgrade(path_);
  ASSERT_TRUE(again.is_ok()) << again.status().to_string();
  EXPECT_FALSE(again->upgraded);
  EXPECT_EQ(again->txn_id, kV3FixtureTxn + 1);
  EXPECT_EQ(read_bytes(path_), once);
}

// A damaged branch page of the only state: the upgrade names it and writes no meta.
TEST_F(UpgradeV3Test, ADamagedBranchIsNamedAndNothingIsUpgraded) {
  std::string file = read_bytes(kV3Fixture);
  size_t branch = 0;
  for (size_t pg = 2; pg * kPageSize < file.size() && branch == 0; ++pg) {
    uint64_t txn = 0;
    std::memcpy(&txn, file.data() + pg * kPageSize + 8, 8);
    if (file[pg * kPageSize] == 2 && txn == kV3FixtureTxn) branch = pg;
  }
  ASSERT_NE(branch, 0u);
  file[branch * kPageSize + kPageSize - 1] ^= 0x5a;
  write_bytes(path_, file);
  auto up = Database::upgrade(path_);
  ASSERT_TRUE(up.status().is_corruption()) << up.status().to_string();
  auto db = Database::open(path_);
  EXPECT_TRUE(db.status().is_version_mismatch()) << db.status().to_string();
}

// A version 3 file whose last commits are log records after its checkpoint
// (tests/engine/data/v3_logged.txt): the upgrade takes the last of them.
std::map<std::string, std::string> logged_fixture_content() {
  std::map<std::string, std::string> out;
  char k[32];
  for (int i = 0; i < 300; ++i) {
    std::snprintf(k, sizeof k, "key%05d", i);
    out[std::string(600, 'k') + k] =
        i % 30 < 3 ? "t" + std::to_string(i % 30) : "v" + std::to_string(i);
  }
  return out;
}

TEST_F(UpgradeV3Test, LoggedCommitsAfterTheCheckpointAreKept) {
  const std::string logged = std::string(ORDO_TEST_DATA) + "/v3_logged.ordo";
  std::filesystem::copy_file(logged, path_, std::filesystem::copy_options::overwrite_existing);
  auto up = Database::upgrade(path_);
  ASSERT_TRUE(up.is_ok()) << up.status().to_string();
  EXPECT_TRUE(up->upgraded);
  EXPECT_EQ(up->txn_id, 5u);  // txns 2..4 logged, then the upgrade's
  auto db = Database::open(path_);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  EXPECT_EQ((*db)->info().txn_id, 5u);
  auto txn = (*db)->begin_read();
  ASSERT_TRUE(txn.is_ok());
  const State got = read_state(*txn);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.at(""), logged_fixture_content());
  testing::expect_check_clean(*txn);
}

// The same file after a crash of the machine that lost a page of the last
// logged commit: only a version 3 open could replay the log, so the upgrade
// refuses and says so, changing nothing.
TEST_F(UpgradeV3Test, LoggedCommitsWhosePagesAreLostAreRefused) {
  std::string file = read_bytes(std::string(ORDO_TEST_DATA) + "/v3_logged.ordo");
  bool lost = false;
  for (size_t pg = 2; (pg + 1) * kPageSize <= file.size() && !lost; ++pg) {
    uint64_t txn = 0;
    std::memcpy(&txn, file.data() + pg * kPageSize + 8, 8);
    if ((file[pg * kPageSize] == 2 || file[pg * kPageSize] == 3) && txn == 4) {
      std::fill(file.begin() + pg * kPageSize, file.begin() + (pg + 1) * kPageSize, '\0');
      lost = true;
    }
  }
  ASSERT_TRUE(lost);
  write_bytes(path_, file);
  auto up = Database::upgrade(path_);
  ASSERT_TRUE(up.status().is_corruption()) << up.status().to_string();
  EXPECT_NE(up.status().message().find("the log holds 3 commits"), std::string::npos)
      << up.status().to_string();
  EXPECT_EQ(read_bytes(path_), file);  // below the old end: not a byte changed
}

}  // namespace
}  // namespace ordo
