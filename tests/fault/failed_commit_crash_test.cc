// Crash enumeration with injected failures: txn F (after kBefore committed
// txns) has each of its I/O ops in turn fail, every write op and every sync
// op, with EIO or ENOSPC, once or on every op from there on, in each commit
// protocol, with and without spills (a small txn memory budget), alone or as
// a Database::batch group. After each failure:
// - the call returned an error, and the handle is poisoned exactly when the
//   failure was a sync or an EIO;
// - a snapshot taken before, a new read-only handle and the failing handle
//   all read the state of txn F-1;
// - every crash image from the failed op on opens on F-1 (or on F for a
//   crash before the error returned, or while the disk fails every sync),
//   with exactly that state and a clean check;
// - the disk heals: the failing handle retries, or a reopen does when it is
//   poisoned; every crash image of the retry opens on F-1 or the retry, and
//   the old snapshot still reads F-1.
// The numbers of failure points and crash states verified are printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

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
using testing::State;
using testing::Workload;

constexpr int kBefore = 3;  // txns committed before the one that fails
// Crash images checked per failure and per retry (spread over its points);
// fewer for the txns that spill, whose images are 2 MiB and more.
constexpr size_t kImagesPerFailure = 24;
constexpr size_t kSpillImagesPerFailure = 6;
// Of a txn that spills, every kSpillStride-th write op fails in turn.
constexpr size_t kSpillStride = 97;

enum class OpKind { kWrite, kSync };

struct Failure {
  OpKind kind;
  size_t nth;  // of that kind, counted from the failing txn's begin
  int err;
  bool persistent;

  std::string to_string() const {
    return std::string(kind == OpKind::kWrite ? "write " : "sync ") + std::to_string(nth) +
           (err == EIO ? " EIO" : " ENOSPC") + (persistent ? " from then on" : " once");
  }
  void arm(FaultLog& log) const {
    if (kind == OpKind::kWrite) {
      persistent ? log.fail_writes_from(nth, err) : log.fail_write_at(nth, err);
    } else {
      persistent ? log.fail_syncs_from(nth, err) : log.fail_sync_at(nth, err);
    }
  }
};

struct Variant {
  CommitProtocol protocol;
  bool spill;
  bool batch;

  std::string to_string() const {
    return std::string(protocol == CommitProtocol::kOneSync   ? "one-sync"
                       : protocol == CommitProtocol::kTwoSync ? "two-sync"
                                                              : "log") +
           (spill ? ", spills" : "") + (batch ? ", batch" : "");
  }
  Options options() const {
    Options o;
    o.commit_protocol = protocol;
    o.verify_checksums = true;
    o.extent_bytes = 64 << 10;  // commits grow the file
    o.max_extent_bytes = 64 << 10;
    if (spill) o.txn_memory_budget_bytes = 1 << 20;  // the least allowed
    return o;
  }
};

struct Totals {
  size_t failure_points = 0;
  size_t states = 0;
};

std::unique_ptr<Database> open_faulty(const std::string& path, const Variant& setup,
                                      const std::shared_ptr<FaultLog>& log) {
  auto db = DatabaseOpener::open(path, setup.options(), io::testing::fault_backend_factory(log));
  EXPECT_TRUE(db.is_ok()) << db.status().to_string();
  return db.is_ok() ? std::move(db).value() : nullptr;
}

// The state of a new snapshot of `db`.
State read_snapshot(Database& db) {
  auto r = db.begin_read();
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.is_ok() ? testing::read_state(*r) : State{};
}

// Txn n of the workload; with `bulk`, also 14,000 small values in tree
// "bulk" (about 1.4 MiB of leaves: past the 1 MiB budget, so leaves spill).
Status fill(WriteTxn& w, Workload& workload, int n, State& state, bool bulk) {
  if (bulk) {
    auto t = w.create_tree("bulk");
    if (!t.is_ok()) return t.status();
    for (int i = 0; i < 14000; ++i) {
      std::string key = std::to_string(n) + "-" + std::to_string(i);
      std::string value(80, static_cast<char>('a' + (n + i) % 26));
      ORDO_RETURN_IF_ERROR(w.put(*t, key, value));
      state["bulk"][key] = std::move(value);
    }
  }
  return workload.write_txn(w, n, state);
}

Status run(Database& db, Workload& workload, int n, State& state, bool bulk, bool batch) {
  if (batch) {
    return db.batch([&](WriteTxn& w) { return fill(w, workload, n, state, bulk); });
  }
  auto w = db.begin_write();
  if (!w.is_ok()) return w.status();
  ORDO_RETURN_IF_ERROR(fill(*w, workload, n, state, bulk));
  return w->commit();
}

// Crash points of `log` from `from_op` on, at most `limit` of them spread
// evenly, the last one always: each recovers a state in [lowest, highest],
// or in [settled_lowest, highest] at or past `settled_op`. Returns the states
// verified.
size_t verify_images(const FaultLog& log, size_t from_op, const std::vector<State>& states,
                     int lowest, int highest, size_t settled_op, int settled_lowest,
                     const std::string& what, size_t limit) {
  const std::vector<CrashPoint> points = log.crash_points(from_op);
  const size_t stride = std::max<size_t>(1, (points.size() + limit - 1) / limit);
  size_t verified = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    if (i % stride != 0 && i + 1 != points.size()) continue;
    const CrashPoint& point = points[i];
    auto image = log.image(point);
    EXPECT_TRUE(image.is_ok()) << what << ", " << point.to_string();
    if (!image.is_ok()) return verified;
    const int low = point.after_ops >= settled_op ? settled_lowest : lowest;
    if (testing::expect_recovers(*image, what + ", " + point.to_string(), states, low, highest) <
        0) {
      return verified;
    }
    ++verified;
  }
  return verified;
}

// One failure of txn kBefore + 1. False when that txn has no such op (it
// committed): the caller has run out of ops of this kind.
bool run_failure(const Variant& setup, const Failure& failure, uint64_t seed, Totals& totals) {
  const std::string what = setup.to_string() + ", " + failure.to_string();
  SCOPED_TRACE(what);
  // In memory when /dev/shm is there: the fault backend syncs for real.
  std::error_code ec;
  testing::TempDir dir(std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : "/tmp");
  const std::string path = dir.file("failing.ordo");
  auto log = std::make_shared<FaultLog>();
  auto db = open_faulty(path, setup, log);
  if (!db) return false;
  Workload workload(seed);
  std::vector<State> states(1);
  states[0][""] = {};
  for (int n = 1; n <= kBefore; ++n) {
    State next = states.back();
    EXPECT_TRUE(workload.run_txn(*db, n, next).is_ok());
    states.push_back(testing::without_empty(next));
  }
  Options ro;
  ro.read_only = true;
  auto before_db = testing::open_db(path, ro);
  auto before = before_db->begin_read();
  EXPECT_TRUE(before.is_ok());

  const int failing = kBefore + 1;
  const size_t start_op = log->op_count();
  failure.arm(*log);
  State attempted = states.back();
  const Status s = run(*db, workload, failing, attempted, setup.spill, setup.batch);
  if (s.is_ok()) {
    log->clear_failures();
    return false;
  }
  totals.failure_points++;
  EXPECT_GE(log->failed_count(), 1u);
  const bool failed_in_sync = failure.kind == OpKind::kSync;
  EXPECT_TRUE(failure.err == EIO ? s.is_io_error() : s.is_full()) << s.to_string();

  // Nobody sees the failed txn.
  EXPECT_EQ(testing::read_state(*before), states[kBefore]);
  EXPECT_EQ(read_snapshot(*testing::open_db(path, ro)), states[kBefore]);
  EXPECT_EQ(read_snapshot(*db), states[kBefore]);

  // Crash images: F-1, or F for a crash before the error returned (or at any
  // time when no sync after the failure could complete).
  std::vector<State> with_attempt = states;
  with_attempt.push_back(testing::without_empty(attempted));
  // From the failed op on: the crashes before it are those of any commit,
  // which CrashEnumerationTest covers.
  size_t failed_op = start_op;
  while (failed_op < log->op_count() && !log->op(failed_op).failed()) ++failed_op;
  const bool syncs_dead = failure.persistent && failed_in_sync;
  totals.states += verify_images(*log, failed_op, with_attempt, kBefore, failing,
                                 syncs_dead ? SIZE_MAX : log->op_count(), kBefore, what,
                                 setup.spill ? kSpillImagesPerFailure : kImagesPerFailure);

  // The disk heals. A sync failure or an EIO poisons the handle; ENOSPC from
  // a write (a page, a spill, the meta itself) leaves it usable.
  log->clear_failures();
  const bool poisoned = !db->begin_write().is_ok();
  EXPECT_EQ(poisoned, failed_in_sync || failure.err == EIO) << s.to_string();
  if (poisoned) {
    db.reset();
    db = open_faulty(path, setup, log);
    if (!db) return true;
  }
  const size_t retry_op = log->op_count();
  State retried = states.back();
  const Status r = run(*db, workload, failing, retried, setup.spill, setup.batch);
  EXPECT_TRUE(r.is_ok()) << "retry: " << r.to_string();
  std::vector<State> with_retry = states;
  with_retry.push_back(testing::without_empty(retried));
  // The retry's meta write, its sync and after: the retry or F-1 before
  // its sync returned, the retry after.
  const size_t retry_end = log->op_count();
  totals.states +=
      verify_images(*log, std::max(retry_op, retry_end - std::min<size_t>(retry_end, 3)),
                    with_retry, kBefore, failing, retry_end, failing, what + ", retry",
                    setup.spill ? kSpillImagesPerFailure : kImagesPerFailure);
  EXPECT_EQ(read_snapshot(*db), with_retry.back());
  EXPECT_EQ(testing::read_state(*before), states[kBefore]);
  testing::expect_check_clean(*before);
  return true;
}

class FailedCommitCrashTest : public ::testing::TestWithParam<Variant> {};

TEST_P(FailedCommitCrashTest, EveryFailingOpOfACommitLeavesThePreviousCommit) {
  const uint64_t seed = testing::test_seed(4321);
  const Variant setup = GetParam();
  Totals totals;
  for (int err : {EIO, ENOSPC}) {
    for (bool persistent : {false, true}) {
      for (OpKind kind : {OpKind::kWrite, OpKind::kSync}) {
        const size_t stride = setup.spill && kind == OpKind::kWrite ? kSpillStride : 1;
        for (size_t nth = 0; nth < 100000; nth += stride) {
          if (!run_failure(setup, Failure{kind, nth, err, persistent}, seed, totals)) break;
          if (::testing::Test::HasFailure()) return;
        }
      }
    }
  }
  std::printf("failed commits, %s: %zu failure points, %zu crash states verified\n",
              setup.to_string().c_str(), totals.failure_points, totals.states);
  EXPECT_GT(totals.failure_points, 30u);
}

std::vector<Variant> variants() {
  std::vector<Variant> out;
  for (CommitProtocol protocol :
       {CommitProtocol::kOneSync, CommitProtocol::kTwoSync, CommitProtocol::kLog}) {
    out.push_back(Variant{protocol, false, false});
    out.push_back(Variant{protocol, true, false});
    out.push_back(Variant{protocol, false, true});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Variants, FailedCommitCrashTest, ::testing::ValuesIn(variants()),
                         [](const auto& test_info) {
                           const Variant& v = test_info.param;
                           return std::string(v.protocol == CommitProtocol::kOneSync   ? "OneSync"
                                              : v.protocol == CommitProtocol::kTwoSync ? "TwoSync"
                                                                                       : "Log") +
                                  (v.spill   ? "Spills"
                                   : v.batch ? "Batch"
                                             : "");
                         });

}  // namespace
}  // namespace ordo
