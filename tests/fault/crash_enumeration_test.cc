// Crash enumeration: a scripted workload of 60 txns (inserts, overwrites,
// deletes, overflow values, tree create/drop, file growth across extent
// boundaries) runs over the fault-injecting backend; then, for every crash
// point the log offers (after each write and sync, every prefix of the unsynced
// writes, each one dropped, torn pages), the crash image is reopened and must
// hold exactly the state of the last txn whose commit returned, or for the txn
// in flight the one before or the one in flight; Txn::check must be clean.
// Every commit protocol. The number of crash states verified is printed;
// testing::CrashSample says which share of the states a run verifies.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "crash_image.h"
#include "crash_workload.h"
#include "database_opener.h"
#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/io/testing/fault_backend.h"
#include "ordo/io/testing/fault_log.h"

namespace ordo {
namespace {

using io::testing::CrashPoint;
using io::testing::FaultLog;
using testing::read_state;
using testing::State;
using testing::without_empty;
using testing::Workload;

constexpr int kTxns = 60;

const char* protocol_name(CommitProtocol p) {
  return p == CommitProtocol::kOneSync   ? "one-sync"
         : p == CommitProtocol::kTwoSync ? "two-sync"
                                         : "log";
}

class CrashEnumerationTest : public ::testing::TestWithParam<CommitProtocol> {};

TEST_P(CrashEnumerationTest, EveryCrashStateRecoversACommittedState) {
  const uint64_t seed = testing::test_seed(1234);
  io::testing::TempDir dir;
  const std::string path = dir.file("workload.ordo");
  auto log = std::make_shared<FaultLog>();
  Options options;
  options.commit_protocol = GetParam();
  options.extent_bytes = 64 << 10;  // the file crosses many extent boundaries
  options.max_extent_bytes = 64 << 10;
  // A small log: it fills every few txns (a checkpoint), and the larger txns
  // commit by a checkpoint of their own.
  options.log_bytes = 128 << 10;
  auto db = DatabaseOpener::open(path, options, io::testing::fault_backend_factory(log));
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();

  Workload workload(seed);
  std::vector<State> states(1);  // states[n]: after txn n; states[0] empty
  states[0][""] = {};
  std::vector<size_t> done_at(1, log->op_count());  // op count when txn n's commit returned
  for (int n = 1; n <= kTxns; ++n) {
    State next = states.back();
    Status s = workload.run_txn(**db, n, next);
    ASSERT_TRUE(s.is_ok()) << "txn " << n << ": " << s.to_string();
    states.push_back(without_empty(next));
    done_at.push_back(log->op_count());
  }
  const uint64_t file_growths = (*db)->stats().file_growths;
  db = Status::invalid_argument("closed");
  ASSERT_GT(file_growths, 3u);

  // From the first txn on: a crash while the file is being created leaves no
  // database, which open reports (BadFileTest covers empty files).
  std::vector<CrashPoint> points = log->crash_points(done_at[0]);
  // With the log, the writes pending between checkpoints make about 140,000
  // points.
  testing::CrashSample sample(seed, 3);
  size_t verified = 0, rolled_forward = 0;
  for (const CrashPoint& point : points) {
    if (!sample.take(*log, point)) continue;
    // The last txn whose commit returned before this op was issued.
    int completed = 0;
    while (completed < kTxns && done_at[completed + 1] <= point.after_ops) ++completed;
    auto image = log->image(point);
    ASSERT_TRUE(image.is_ok()) << point.to_string();
    const int highest = completed < kTxns ? completed + 1 : completed;
    const int found =
        testing::expect_recovers(*image, point.to_string(), states, completed, highest);
    ASSERT_GE(found, 0);
    if (found == completed + 1) rolled_forward++;
    ++verified;
  }
  std::printf(
      "%s: %zu crash states verified (%zu recovered the txn in flight) over %d txns, "
      "%zu I/O ops\n",
      protocol_name(GetParam()), verified, rolled_forward, kTxns, log->op_count());
  EXPECT_GE(points.size(), GetParam() == CommitProtocol::kLog ? 80000u : 5000u);
  EXPECT_GE(verified, points.size() / sample.every());
}

INSTANTIATE_TEST_SUITE_P(Protocols, CrashEnumerationTest,
                         ::testing::Values(CommitProtocol::kTwoSync, CommitProtocol::kOneSync,
                                           CommitProtocol::kLog),
                         [](const auto& test_info) {
                           return test_info.param == CommitProtocol::kOneSync   ? "OneSync"
                                  : test_info.param == CommitProtocol::kTwoSync ? "TwoSync"
                                                                                : "Log";
                         });

}  // namespace
}  // namespace ordo
