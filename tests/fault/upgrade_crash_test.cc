// Database::upgrade over the fault backend: for every crash point of the
// upgrade of the version 2 fixture (tests/engine/data/v2_small.ordo), the
// crash image either opens as version 3 with the fixture's whole content, or
// is refused as version 2 and upgrades again to it. Never a third outcome.
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

namespace ordo {
namespace {

using io::testing::CrashPoint;
using io::testing::FaultLog;
using testing::read_state;
using testing::State;

using testing::copy_v2_fixture;
using testing::kV2FixtureTxn;

constexpr uint64_t kLogBytes = 64 << 10;  // a small area: few writes to enumerate

// What the image holds, opened as `db`: version 3, the fixture's last
// commit and content, a clean check.
void expect_upgraded(Database& db, const State& want, const std::string& point) {
  const DatabaseInfo info = db.info();
  EXPECT_EQ(info.format_version, 3u) << point;
  EXPECT_EQ(info.txn_id, kV2FixtureTxn) << point;
  auto txn = db.begin_read();
  ASSERT_TRUE(txn.is_ok()) << point << ": " << txn.status().to_string();
  EXPECT_EQ(read_state(*txn), want) << point;
  auto report = txn->check();
  ASSERT_TRUE(report.is_ok()) << point << ": " << report.status().to_string();
  EXPECT_TRUE(report->clean()) << point << ": " << report->problems[0].what;
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
  ASSERT_GE(log->sync_count(), 3u);  // the log area, the new meta, the old slot

  size_t opened = 0, upgraded_again = 0;
  for (const CrashPoint& point : log->crash_points()) {
    const std::string at = point.to_string();
    auto image = log->image(point);
    ASSERT_TRUE(image.is_ok()) << at << ": " << image.status().to_string();
    auto db = testing::open_crash_image(*image);
    if (db.is_ok()) {
      ++opened;
    } else {
      ASSERT_TRUE(db.status().is_version_mismatch()) << at << ": " << db.status().to_string();
      EXPECT_NE(db.status().message().find("ordo upgrade"), std::string::npos) << at;
      const std::string again = dir.file("again.ordo");
      std::ofstream(again, std::ios::binary | std::ios::trunc)
          .write(reinterpret_cast<const char*>(image->data()),
                 static_cast<std::streamsize>(image->size()));
      auto redo = Database::upgrade(again, kLogBytes);
      ASSERT_TRUE(redo.is_ok()) << at << ": " << redo.status().to_string();
      EXPECT_TRUE(redo->upgraded) << at;
      EXPECT_EQ(redo->txn_id, kV2FixtureTxn) << at;
      db = Database::open(again);
      ASSERT_TRUE(db.is_ok()) << at << ": " << db.status().to_string();
      ++upgraded_again;
    }
    expect_upgraded(**db, want, at);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf("upgrade: %zu crash images opened as version 3, %zu upgraded again (%zu I/O ops)\n",
              opened, upgraded_again, log->op_count());
  EXPECT_GT(opened, 0u);
  EXPECT_GT(upgraded_again, 0u);
}

// A sync that fails (EIO) at each step: the log area's, the new meta's (its
// slot is put back: no open takes a meta the disk may not hold), the old
// slot's (the upgrade is durable already). The call fails; the file then
// opens as version 3 or is refused as version 2, and a second upgrade
// finishes the work.
TEST(UpgradeFailureTest, AFailedSyncLeavesAFileThatUpgradesAgain) {
  for (size_t nth_sync : {size_t{0}, size_t{1}, size_t{2}}) {
    SCOPED_TRACE("failing sync " + std::to_string(nth_sync));
    io::testing::TempDir dir;
    const std::string path = dir.file("db.ordo");
    copy_v2_fixture(path);
    auto log = std::make_shared<FaultLog>();
    log->fail_sync_at(nth_sync, EIO);
    auto up = DatabaseOpener::upgrade(path, kLogBytes, io::testing::fault_backend_factory(log));
    EXPECT_TRUE(up.status().is_io_error()) << up.status().to_string();
    auto db = Database::open(path);
    if (nth_sync < 2) {
      EXPECT_TRUE(db.status().is_version_mismatch()) << db.status().to_string();
    } else {
      ASSERT_TRUE(db.is_ok()) << db.status().to_string();
      EXPECT_EQ((*db)->info().format_version, 3u);
      db = Status::invalid_argument("closed");
    }
    auto again = Database::upgrade(path, kLogBytes);
    ASSERT_TRUE(again.is_ok()) << again.status().to_string();
    EXPECT_EQ(again->upgraded, nth_sync < 2);
    EXPECT_EQ(again->txn_id, kV2FixtureTxn);
    db = Database::open(path);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    EXPECT_EQ((*db)->info().txn_id, kV2FixtureTxn);
  }
}

}  // namespace
}  // namespace ordo
