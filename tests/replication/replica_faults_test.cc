// Replicas in one process facing faults of their own machine: a full disk
// under the Raft log, a write backlog over its budget, the Raft log's byte
// budget, a replica removed from the cluster.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "cluster.h"
#include "ordo/base/errno_status.h"
#include "tmpfs_mount.h"

namespace ordo::replica {
namespace {

using namespace testing_cluster;

// Polls `done` every 20 ms until it holds or `timeout` passed.
template <typename F>
bool eventually(F done, std::chrono::milliseconds timeout = kWait) {
  for (auto until = Clock::now() + timeout; Clock::now() < until;) {
    if (done()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return done();
}

// Waits until replica `id` applied what `leader` applied (a new leader's
// barrier may follow the last write), then compares their contents.
void expect_same_contents(Cluster& c, uint64_t id, uint64_t leader) {
  ASSERT_TRUE(c.wait_applied(id, c.at(leader).status().applied_index)) << "replica " << id;
  const Contents mine = contents_of(c.at(id));
  const Contents theirs = contents_of(c.at(leader));
  if (mine == theirs) return;
  // The values are large: name the keys that differ.
  std::string diff;
  for (const auto* side : {&mine, &theirs}) {
    const Contents& other = side == &mine ? theirs : mine;
    for (const auto& [tree, entries] : *side) {
      for (const auto& [k, v] : entries) {
        auto t = other.find(tree);
        if (t == other.end() || !t->second.contains(k) || t->second.at(k) != v) {
          diff += (side == &mine ? " replica " : " leader ") + tree + "/" + k;
        }
      }
    }
  }
  ADD_FAILURE() << "replica " << id << " and leader " << leader << " differ:" << diff;
}

// 40 puts of 512 KiB values (k0..k39, 20 MiB in all), each applied; the
// last one's log index, or 0 after a failure (reported).
uint64_t put_20_mib(Cluster& c) {
  const std::string value(512 << 10, 'v');
  uint64_t last = 0;
  for (int i = 0; i < 40; ++i) {
    WriteResult w = c.put("", "k" + std::to_string(i), value + std::to_string(i));
    if (w.outcome != Outcome::kApplied) {
      ADD_FAILURE() << "put " << i << ": " << w.status.to_string();
      return 0;
    }
    last = w.index;
  }
  return last;
}

// libraft preallocates its log segments (8 MiB each, one ahead): on a
// 20 MiB file system the third segment does not fit, so the follower's
// Raft log write fails once about 8 MiB are written.
TEST(ReplicaFaults, FollowerWithAFullRaftDiskRestartsRaftAndCatchesUp) {
  Cluster c(3);
  ordo::testing::TmpfsMount small(c.options(3).dir + "/raft", "20m");
  if (!small.mounted() && small.error() == EPERM) {
    GTEST_SKIP() << "mount(2) of a tmpfs is not permitted here (EPERM: needs root)";
  }
  ASSERT_TRUE(small.mounted()) << base::errno_text(small.error());
  c.open_all();
  ASSERT_NE(c.wait_leader(), 0u);

  const uint64_t last = put_20_mib(c);
  ASSERT_NE(last, 0u);
  std::string error;
  ASSERT_TRUE(eventually([&] {
    error = c.at(3).status().disk_error;
    return !error.empty();
  })) << "replica 3 applied "
      << c.at(3).status().applied_index << " of " << last;
  std::printf("disk_error: %s\n", error.c_str());
  ReplicaStatus st = c.at(3).status();
  EXPECT_GE(st.disk_errors, 1u);
  EXPECT_LT(st.applied_index, last);

  ASSERT_TRUE(small.resize("512m")) << base::errno_text(errno);
  // No more writes: the restarts alone bring it to the end.
  ASSERT_TRUE(c.wait_applied(3, last, 15s))
      << "replica 3 applied " << c.at(3).status().applied_index << " of " << last << "; disk_error "
      << c.at(3).status().disk_error;
  ASSERT_TRUE(eventually([&] { return c.at(3).status().disk_error.empty(); }))
      << c.at(3).status().disk_error;
  st = c.at(3).status();
  EXPECT_GE(st.raft_restarts, 1u);
  EXPECT_NE(st.role, Role::kUnavailable);
  // It takes new entries again.
  WriteResult w = c.put("", "after", "1");
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
  ASSERT_TRUE(c.wait_applied(3, w.index));
  const uint64_t leader = c.wait_leader();
  expect_same_contents(c, 3, leader);
}

// The whole data directory (database file and Raft log) on one small file
// system: whichever fills first, the follower says so and catches up once
// space returns, without a restart.
TEST(ReplicaFaults, FollowerWithAFullDataDirectoryCatchesUpWhenSpaceReturns) {
  Cluster c(3);
  ordo::testing::TmpfsMount small(c.options(3).dir, "24m");
  if (!small.mounted() && small.error() == EPERM) {
    GTEST_SKIP() << "mount(2) of a tmpfs is not permitted here (EPERM: needs root)";
  }
  ASSERT_TRUE(small.mounted()) << base::errno_text(small.error());
  c.open_all();
  ASSERT_NE(c.wait_leader(), 0u);
  const uint64_t last = put_20_mib(c);
  ASSERT_NE(last, 0u);
  ASSERT_TRUE(eventually([&] {
    ReplicaStatus st = c.at(3).status();
    return !st.disk_error.empty() || !st.apply_error.empty();
  })) << "replica 3 applied "
      << c.at(3).status().applied_index << " of " << last;
  ReplicaStatus st = c.at(3).status();
  std::printf("disk_error: '%s', apply_error: '%s'\n", st.disk_error.c_str(),
              st.apply_error.c_str());
  ASSERT_TRUE(small.resize("512m")) << base::errno_text(errno);
  ASSERT_TRUE(c.wait_applied(3, last, 15s))
      << "replica 3 applied " << c.at(3).status().applied_index << " of " << last;
  ASSERT_TRUE(eventually([&] {
    ReplicaStatus now = c.at(3).status();
    return now.disk_error.empty() && now.apply_error.empty();
  }));
  const uint64_t leader = c.wait_leader();
  expect_same_contents(c, 3, leader);
}

// Every member's Raft log fills: the leader's append fails too, writes stop
// committing, and every member restarts Raft until space returns.
TEST(ReplicaFaults, AClusterWhoseRaftDisksAllFillRecoversWhenSpaceReturns) {
  Cluster c(3);
  std::vector<std::unique_ptr<ordo::testing::TmpfsMount>> disks;
  for (uint64_t id : {1, 2, 3}) {
    disks.push_back(
        std::make_unique<ordo::testing::TmpfsMount>(c.options(id).dir + "/raft", "20m"));
    if (!disks.back()->mounted() && disks.back()->error() == EPERM) {
      GTEST_SKIP() << "mount(2) of a tmpfs is not permitted here (EPERM: needs root)";
    }
    ASSERT_TRUE(disks.back()->mounted()) << base::errno_text(disks.back()->error());
  }
  c.open_all();
  ASSERT_NE(c.wait_leader(), 0u);
  const std::string value(512 << 10, 'v');
  int applied = 0;
  WriteResult w;
  for (int i = 0; i < 60; ++i) {
    const uint64_t leader = c.wait_leader(5s);
    if (leader == 0) break;
    WriteBatch b;
    b.put("", "k" + std::to_string(i), value);
    w = c.at(leader).write(b, 3s);
    if (w.outcome != Outcome::kApplied) break;
    ++applied;
  }
  ASSERT_NE(w.outcome, Outcome::kApplied) << "60 writes of 512 KiB fit on 20 MiB disks";
  std::printf("after %d writes: %s\n", applied, w.status.to_string().c_str());
  for (uint64_t id : {1, 2, 3}) {
    EXPECT_TRUE(eventually([&] { return c.at(id).status().disk_errors > 0; }, 10s))
        << "replica " << id;
  }
  for (auto& disk : disks) ASSERT_TRUE(disk->resize("512m")) << base::errno_text(errno);
  // Writes commit again, on every member.
  w = c.put("", "after", "1");
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
  for (uint64_t id : {1, 2, 3}) {
    ASSERT_TRUE(c.wait_applied(id, w.index, 15s)) << "replica " << id;
    EXPECT_TRUE(eventually([&] { return c.at(id).status().disk_error.empty(); }))
        << "replica " << id << ": " << c.at(id).status().disk_error;
  }
  const uint64_t leader = c.wait_leader();
  for (uint64_t id : {1, 2, 3}) expect_same_contents(c, id, leader);
}

TEST(ReplicaFaults, SnapshotsByBytesBoundTheRaftLog) {
  constexpr uint64_t kThreshold = 1 << 20;
  constexpr uint64_t kTrailing = 256 << 10;
  Cluster c(3, [](ReplicaOptions& o) {
    o.snapshot_threshold_bytes = kThreshold;
    o.snapshot_trailing_bytes = kTrailing;
  });
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  const std::string value(100 << 10, 'v');
  uint64_t last = 0;
  for (int i = 0; i < 60; ++i) {
    WriteResult w = c.put("", "k" + std::to_string(i), value);
    ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
    last = w.index;
  }
  for (uint64_t id : {1, 2, 3}) {
    ASSERT_TRUE(c.wait_applied(id, last));
    ReplicaStatus st = c.at(id).status();
    // 6 MB written, a snapshot every 1 MiB: the entry count (8192) alone
    // would have taken none.
    EXPECT_GE(st.snapshots_taken, 4u) << "replica " << id;
    // What follows the last snapshot (under the threshold, plus the entry
    // that crossed it) and the trailing budget (plus one entry).
    const uint64_t entry = value.size() + 64;
    EXPECT_LE(st.raft_log_bytes, kThreshold + kTrailing + 2 * entry) << "replica " << id;
    EXPECT_GT(st.raft_log_entries, 0u) << "replica " << id;
  }
}

TEST(ReplicaFaults, TheLeaderRefusesWritesOverTheUnappliedBudget) {
  Cluster c(3, [](ReplicaOptions& o) { o.max_unapplied_bytes = 1 << 20; });
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  ASSERT_EQ(c.put("", "first", "1").outcome, Outcome::kApplied);
  // No majority: nothing commits, the proposals pile up.
  for (uint64_t id : {1, 2, 3}) {
    if (id != leader) c.close(id);
  }
  const std::string value(300 << 10, 'v');
  WriteResult refused;
  refused.outcome = Outcome::kUnknown;
  for (int i = 0; i < 10 && refused.outcome != Outcome::kFailed; ++i) {
    WriteBatch b;
    b.put("", "k" + std::to_string(i), value);
    refused = c.at(leader).write(b, 50ms);
  }
  ASSERT_EQ(refused.outcome, Outcome::kFailed) << refused.status.to_string();
  EXPECT_NE(refused.status.message().find("too much unapplied data"), std::string::npos)
      << refused.status.to_string();
  // status() is refreshed every 20 ms.
  ASSERT_TRUE(eventually([&] { return c.at(leader).status().proposals_refused >= 1; }));
  ReplicaStatus st = c.at(leader).status();
  EXPECT_GT(st.unapplied_bytes, 0u);
  EXPECT_LE(st.unapplied_bytes, (1u << 20) + value.size() + 64);
}

TEST(ReplicaFaults, ARemovedMemberRefusesReadsAndWrites) {
  Cluster c(3);
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  WriteResult w = c.put("", "k", "1");
  ASSERT_EQ(w.outcome, Outcome::kApplied);
  const uint64_t gone = leader == 3 ? 2 : 3;
  ASSERT_TRUE(c.wait_applied(gone, w.index));
  Status s = c.at(leader).remove_member(gone, 20s);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  ASSERT_TRUE(eventually([&] { return c.at(gone).status().role == Role::kRemoved; }))
      << "role " << role_name(c.at(gone).status().role);
  Result<ReadView> view = c.at(gone).read(ReadMode::kLocal, 1s);
  ASSERT_FALSE(view.is_ok());
  EXPECT_NE(view.status().message().find("removed from the cluster"), std::string::npos)
      << view.status().to_string();
  WriteBatch b;
  b.put("", "k", "2");
  WriteResult refused = c.at(gone).write(b, 1s);
  EXPECT_EQ(refused.outcome, Outcome::kFailed);
  EXPECT_NE(refused.status.message().find("removed from the cluster"), std::string::npos)
      << refused.status.to_string();
}

TEST(ReplicaFaults, AnAddThatDoesNotCatchUpIsUndoneAndCanBeRetried) {
  Cluster c(3);
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  ASSERT_EQ(c.put("", "k", "1").outcome, Outcome::kApplied);
  const uint64_t id = c.add_slot(4);
  // Nobody listens there yet.
  Status s = c.at(leader).add_member(Member{id, c.options(id).address, true}, 2s);
  ASSERT_TRUE(s.is_busy()) << s.to_string();
  EXPECT_NE(s.message().find("member 4 did not catch up in 1500 ms; not added"), std::string::npos)
      << s.to_string();
  ASSERT_TRUE(eventually([&] { return c.at(leader).status().members.size() == 3; }))
      << c.at(leader).status().members.size() << " members";
  c.open(id);
  s = c.at(leader).add_member(Member{id, c.options(id).address, true}, 20s);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  WriteResult w = c.put("", "k", "2");
  ASSERT_EQ(w.outcome, Outcome::kApplied);
  EXPECT_TRUE(c.wait_applied(id, w.index));
}

}  // namespace
}  // namespace ordo::replica
