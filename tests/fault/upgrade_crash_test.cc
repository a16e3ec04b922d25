// Database::upgrade over the fault backend: for every crash point of the
// upgrade of the version 2 fixture (tests/engine/data/v2_small.ordo, through
// version 3 to 4), the crash image either opens as version 4 with the
// fixture's whole content, or is refused (as version 2 or 3) and upgrades
// again to it. Never a third outcome.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "crash_image.h"
#include "database_opener.h"
#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/io/testing/fault_backend.h"
#include "ordo/io/testing/fault_log.h"
#include "v2_fixture.h"
#include "v3_fixture.h"

namespace ordo {
namespace {

using io::testing::CrashPoint;
using io::testing::FaultLog;
using testing::read_state;
using testing::State;

using testing::copy_v2_fixture;
using testing::kV2FixtureTxn;

constexpr uint64_t kLogBytes = 64 << 10;  // a small area: few writes to enumerate

// What the image holds, opened as `db`: version 4, the upgrade's txn
// `want_txn` (after the fixture's last commit) and the fixture's content, a
// clean check.
void expect_upgraded(Database& db, const State& want, uint64_t want_txn, const std::string& point) {
  const DatabaseInfo info = db.info();
  EXPECT_EQ(info.format_version, 4u) << point;
  EXPECT_EQ(info.txn_id, want_txn) << point;
  auto txn = db.begin_read();
  ASSERT_TRUE(txn.is_ok()) << point << ": " << txn.status().to_string();
  EXPECT_EQ(read_state(*txn), want) << point;
  auto report = txn->check();
  ASSERT_TRUE(report.is_ok()) << point << ": " << report.status().to_string();
  EXPECT_TRUE(report->clean()) << point << ": " << report->problems[0].what;
}

// Opens crash image `image` (of crash point `at`) into `*db`. An image that
// is refused as not yet upgraded (VersionMismatch naming `ordo upgrade`) is
// written to `again`, upgraded anew (to txn `want_txn`, `log_bytes` as for
// Database::upgrade), opened, and counted in `*upgraded_again`.
void open_or_upgrade_again(const std::vector<std::byte>& image, const std::string& again,
                           uint64_t log_bytes, uint64_t want_txn, const std::string& at,
                           std::unique_ptr<Database>* db, size_t* opened, size_t* upgraded_again) {
  auto first = testing::open_crash_image(image);
  if (first.is_ok()) {
    *db = std::move(*first);
    ++*opened;
    return;
  }
  ASSERT_TRUE(first.status().is_version_mismatch()) << at << ": " << first.status().to_string();
  EXPECT_NE(first.status().message().find("ordo upgrade"), std::string::npos) << at;
  std::ofstream(again, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(image.data()),
             static_cast<std::streamsize>(image.size()));
  auto redo = Database::upgrade(again, log_bytes);
  ASSERT_TRUE(redo.is_ok()) << at << ": " << redo.status().to_string();
  EXPECT_TRUE(redo->upgraded) << at;
  EXPECT_EQ(redo->txn_id, want_txn) << at;
  auto reopened = Database::open(again);
  ASSERT_TRUE(reopened.is_ok()) << at << ": " << reopened.status().to_string();
  *db = std::move(*reopened);
  ++*upgraded_again;
}

TEST(UpgradeCrashTest, EveryCrashImageOpensUpgradedOrUpgradesAgain) {
  io::testing::TempDir dir;
  const std::string reference = dir.file("reference.ordo");
  copy_v2_fixture(reference);
  ASSERT_TRUE(Database::upgrade(reference, kLogBytes).is_ok());
  State want;
  {
    auto db = Database::open(reference);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    auto txn = (*db)->begin_read();
    ASSERT_TRUE(txn.is_ok());
    want = read_state(*txn);
  }
  ASSERT_EQ(want.size(), 3u);

  const std::string path = dir.file("db.ordo");
  copy_v2_fixture(path);
  auto log = std::make_shared<FaultLog>();
  auto up = DatabaseOpener::upgrade(path, kLogBytes, io::testing::fault_backend_factory(log));
  ASSERT_TRUE(up.is_ok()) << up.status().to_string();
  ASSERT_TRUE(up->upgraded);
  // Version 3: the log area, the new meta, the old slot; version 4: the new
  // branch pages, the new meta, the old slot.
  ASSERT_GE(log->sync_count(), 6u);

  size_t opened = 0, upgraded_again = 0;
  for (const CrashPoint& point : log->crash_points()) {
    const std::string at = point.to_string();
    auto image = log->image(point);
    ASSERT_TRUE(image.is_ok()) << at << ": " << image.status().to_string();
    std::unique_ptr<Database> db;
    open_or_upgrade_again(*image, dir.file("again.ordo"), kLogBytes, kV2FixtureTxn + 1, at, &db,
                          &opened, &upgraded_again);
    if (::testing::Test::HasFatalFailure()) return;
    expect_upgraded(*db, want, kV2FixtureTxn + 1, at);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf("upgrade: %zu crash images opened as version 4, %zu upgraded again (%zu I/O ops)\n",
              opened, upgraded_again, log->op_count());
  EXPECT_GT(opened, 0u);
  EXPECT_GT(upgraded_again, 0u);
}

// A sync that fails (EIO) at each step: the log area's, the version 3 meta's
// (its slot is put back: no open takes a meta the disk may not hold), the
// version 2 slot's, the new branch pages', the version 4 meta's, the version 3
// slot's (the upgrade is durable already). The call fails; the file then
// opens as version 4 or is refused as version 2 or 3, and a second upgrade
// finishes the work.
TEST(UpgradeFailureTest, AFailedSyncLeavesAFileThatUpgradesAgain) {
  for (size_t nth_sync = 0; nth_sync < 6; ++nth_sync) {
    SCOPED_TRACE("failing sync " + std::to_string(nth_sync));
    io::testing::TempDir dir;
    const std::string path = dir.file("db.ordo");
    copy_v2_fixture(path);
    auto log = std::make_shared<FaultLog>();
    log->fail_sync_at(nth_sync, EIO);
    auto up = DatabaseOpener::upgrade(path, kLogBytes, io::testing::fault_backend_factory(log));
    EXPECT_TRUE(up.status().is_io_error()) << up.status().to_string();
    auto db = Database::open(path);
    if (nth_sync < 5) {
      EXPECT_TRUE(db.status().is_version_mismatch()) << db.status().to_string();
    } else {
      ASSERT_TRUE(db.is_ok()) << db.status().to_string();
      EXPECT_EQ((*db)->info().format_version, 4u);
      db = Status::invalid_argument("closed");
    }
    auto again = Database::upgrade(path, kLogBytes);
    ASSERT_TRUE(again.is_ok()) << again.status().to_string();
    EXPECT_EQ(again->upgraded, nth_sync < 5);
    EXPECT_EQ(again->txn_id, kV2FixtureTxn + 1);
    db = Database::open(path);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    EXPECT_EQ((*db)->info().txn_id, kV2FixtureTxn + 1);
  }
}

// The same for the version 3 fixture (tests/engine/data/v3_deep.ordo, four
// levels deep): a crash while its branches are rewritten, while the version 4
// meta is written or while the version 3 slot is zeroed leaves a file that
// opens as version 4 with every entry, or is refused as version 3 and
// upgrades again.
TEST(UpgradeCrashTest, EveryCrashImageOfTheVersionThreeStepOpensOrUpgradesAgain) {
  io::testing::TempDir dir;
  const std::string path = dir.file("db.ordo");
  testing::copy_v3_fixture(path);
  const auto want = testing::v3_fixture_content();
  auto log = std::make_shared<FaultLog>();
  auto up = DatabaseOpener::upgrade(path, 0, io::testing::fault_backend_factory(log));
  ASSERT_TRUE(up.is_ok()) << up.status().to_string();
  ASSERT_GE(log->sync_count(), 3u);  // the branch pages, the new meta, the old slot
  size_t opened = 0, upgraded_again = 0;
  for (const CrashPoint& point : log->crash_points()) {
    const std::string at = point.to_string();
    auto image = log->image(point);
    ASSERT_TRUE(image.is_ok()) << at << ": " << image.status().to_string();
    std::unique_ptr<Database> db;
    open_or_upgrade_again(*image, dir.file("again.ordo"), 0, testing::kV3FixtureTxn + 1, at, &db,
                          &opened, &upgraded_again);
    if (::testing::Test::HasFatalFailure()) return;
    expect_upgraded(*db, want, testing::kV3FixtureTxn + 1, at);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf("upgrade from 3: %zu crash images opened as version 4, %zu upgraded again\n", opened,
              upgraded_again);
  EXPECT_GT(opened, 0u);
  EXPECT_GT(upgraded_again, 0u);
}

}  // namespace
}  // namespace ordo
