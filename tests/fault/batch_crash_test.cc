// Crash enumeration of group commits: rounds of Database::batch groups of
// several members (inserts, overflow values, deletes of earlier rounds' keys,
// now and then a member that fails and is dropped) run over the
// fault-injecting backend; every crash point's image is reopened and must
// hold exactly the state after one whole txn: never part of a group, and
// never less than the last group whose batch() calls had returned. Both
// commit protocols.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "batch_test_util.h"
#include "crash_image.h"
#include "database_opener.h"
#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/io/testing/fault_backend.h"
#include "ordo/io/testing/fault_log.h"

namespace ordo {
namespace {

using io::testing::CrashPoint;
using io::testing::FaultLog;

constexpr int kRounds = 12;

// One member's planned changes.
struct Change {
  testing::Model puts;
  std::vector<std::string> dels;
  bool fails = false;
};

testing::Model read_default_tree(ReadTxn& r) {
  testing::Model m;
  auto c = r.cursor(r.default_tree());
  EXPECT_TRUE(c.is_ok());
  if (!c.is_ok()) return m;
  for (Status s = c->first(); s.is_ok() && c->valid(); s = c->next()) {
    m[c->key().str()] = c->value().str();
  }
  EXPECT_TRUE(c->status().is_ok()) << c->status().to_string();
  return m;
}

class BatchCrashTest : public ::testing::TestWithParam<CommitProtocol> {};

TEST_P(BatchCrashTest, EveryCrashStateHoldsWholeGroups) {
  std::mt19937_64 rng(testing::test_seed(9090));
  io::testing::TempDir dir;
  auto log = std::make_shared<FaultLog>();
  Options options;
  options.commit_protocol = GetParam();
  options.extent_bytes = 64 << 10;  // groups cross extent boundaries
  options.max_extent_bytes = 64 << 10;
  auto opened = DatabaseOpener::open(dir.file("batch.ordo"), options,
                                     io::testing::fault_backend_factory(log));
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  Database& db = **opened;

  std::map<uint64_t, testing::Model> states;  // txn id -> contents after it
  std::map<uint64_t, size_t> done_at;         // txn id -> op count once its calls returned
  struct Group {
    uint64_t txn_id;
    std::vector<std::string> marks;  // the mark key of each member that committed
  };
  std::vector<Group> groups;
  testing::Model model;
  states[db.info().txn_id] = model;
  const size_t start_ops = log->op_count();
  done_at[db.info().txn_id] = start_ops;
  size_t members_total = 0;

  for (int round = 1; round <= kRounds; ++round) {
    const int members = 2 + static_cast<int>(rng() % 4);
    const int failing = round % 3 == 0 ? static_cast<int>(rng() % members) : -1;
    std::vector<Change> changes(members);
    std::vector<std::string> deletable;
    for (const auto& [k, v] : model) {
      if (k.rfind("mark-", 0) != 0 && rng() % 4 == 0) deletable.push_back(k);
    }
    for (int m = 0; m < members; ++m) {
      Change& c = changes[m];
      c.fails = m == failing;
      // A key of its own that no later member deletes.
      c.puts["mark-r" + std::to_string(round) + "-m" + std::to_string(m)] = "x";
      const int n = 5 + static_cast<int>(rng() % 40);
      for (int i = 0; i < n; ++i) {
        const size_t len = rng() % 15 == 0 ? 1100 + rng() % 5000 : rng() % 150;  // some overflow
        c.puts["r" + std::to_string(round) + "-m" + std::to_string(m) + "-" + std::to_string(i)] =
            std::string(len, static_cast<char>('a' + (round + m) % 26));
      }
      for (int i = 0; i < 3 && !deletable.empty(); ++i) {
        c.dels.push_back(deletable.back());  // disjoint across members
        deletable.pop_back();
      }
    }
    std::vector<uint64_t> txn_of(members, 0);
    size_t holder_done = 0;  // ops once the first call's empty commit was done
    std::vector<BatchFn> fns;
    for (int m = 0; m < members; ++m) {
      fns.push_back([&, m](WriteTxn& txn) -> Status {
        if (m == 0 && holder_done == 0) holder_done = log->op_count();
        txn_of[m] = txn.txn_id();
        for (const auto& [k, v] : changes[m].puts) {
          ORDO_RETURN_IF_ERROR(txn.put(txn.default_tree(), k, v));
        }
        for (const auto& k : changes[m].dels) ORDO_RETURN_IF_ERROR(txn.del(txn.default_tree(), k));
        return changes[m].fails ? Status::not_found("this member fails") : Status::ok();
      });
    }
    std::vector<testing::BatchOutcome> out = testing::run_as_one_group(db, fns);
    const size_t ops = log->op_count();
    Group group{0, {}};
    const testing::Model before = model;
    for (int m = 0; m < members; ++m) {
      ASSERT_EQ(out[m].status.is_ok(), !changes[m].fails) << out[m].status.to_string();
      if (changes[m].fails) continue;
      group.txn_id = txn_of[m];
      group.marks.push_back("mark-r" + std::to_string(round) + "-m" + std::to_string(m));
      for (const auto& [k, v] : changes[m].puts) model[k] = v;
      for (const auto& k : changes[m].dels) model.erase(k);
    }
    members_total += members;
    ASSERT_NE(group.txn_id, 0u);
    // The first call of run_as_one_group commits an empty txn just before.
    states[group.txn_id - 1] = before;
    done_at[group.txn_id - 1] = holder_done;
    states[group.txn_id] = model;
    done_at[group.txn_id] = ops;
    groups.push_back(group);
  }
  ASSERT_EQ(db.stats().batch_groups, 2u * kRounds);
  ASSERT_EQ(db.stats().batch_rollbacks, static_cast<uint64_t>(kRounds / 3));
  opened = Status::invalid_argument("closed");

  size_t verified = 0, in_flight = 0;
  testing::CrashSample sample(rng(), 2);
  const std::vector<CrashPoint> points = log->crash_points(start_ops);
  for (const CrashPoint& point : points) {
    if (!sample.take(*log, point)) continue;
    uint64_t acknowledged = 0;
    for (const auto& [txn, at] : done_at) {
      if (at <= point.after_ops) acknowledged = txn;
    }
    auto image = log->image(point);
    ASSERT_TRUE(image.is_ok()) << point.to_string();
    auto reopened = testing::open_crash_image(*image);
    ASSERT_TRUE(reopened.is_ok()) << point.to_string() << ": " << reopened.status().to_string();
    const uint64_t recovered = (*reopened)->info().txn_id;
    ASSERT_GE(recovered, acknowledged) << point.to_string();
    ASSERT_TRUE(states.count(recovered)) << point.to_string() << ": txn " << recovered;
    auto r = (*reopened)->begin_read();
    ASSERT_TRUE(r.is_ok()) << point.to_string();
    // Each group whole or absent: every member's key, or none.
    for (const Group& g : groups) {
      for (const std::string& k : g.marks) {
        ASSERT_EQ(r->get(r->default_tree(), k).is_ok(), recovered >= g.txn_id)
            << point.to_string() << ": key " << k << " of the group of txn " << g.txn_id
            << ", recovered txn " << recovered;
      }
    }
    ASSERT_EQ(read_default_tree(*r), states[recovered]) << point.to_string();
    auto report = r->check();
    ASSERT_TRUE(report.is_ok());
    ASSERT_TRUE(report->clean()) << point.to_string() << ": " << report->problems[0].what;
    in_flight += recovered > acknowledged;
    ++verified;
  }
  std::printf(
      "%s: %zu crash states verified over %d groups of %zu members (%zu recovered the "
      "txn in flight), %zu I/O ops\n",
      GetParam() == CommitProtocol::kOneSync ? "one-sync" : "two-sync", verified, kRounds,
      members_total, in_flight, log->op_count());
  EXPECT_GE(points.size(), 100u);
  EXPECT_GE(verified, points.size() / sample.every());
}

INSTANTIATE_TEST_SUITE_P(Protocols, BatchCrashTest,
                         ::testing::Values(CommitProtocol::kTwoSync, CommitProtocol::kOneSync),
                         [](const auto& test_info) {
                           return test_info.param == CommitProtocol::kOneSync ? "OneSync"
                                                                              : "TwoSync";
                         });

}  // namespace
}  // namespace ordo
