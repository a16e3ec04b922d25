// Replicas in one process facing faults of their own machine: a full disk
// under the Raft log, a write backlog over its budget, the Raft log's byte
// budget, a replica removed from the cluster.
#include <gtest/gtest.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
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
// last one's log index, or 0 after a failure (reported). A put is the same
// whole value each time, so one that leadership moving left unapplied (a
// loaded machine may elect the replica whose disk fills) is sent again to
// the next leader, up to 5 times.
uint64_t put_20_mib(Cluster& c) {
  const std::string value(512 << 10, 'v');
  uint64_t last = 0;
  for (int i = 0; i < 40; ++i) {
    WriteResult w;
    for (int attempt = 0; attempt < 5; ++attempt) {
      w = c.put("", "k" + std::to_string(i), value + std::to_string(i));
      if (w.outcome == Outcome::kApplied) break;
      std::printf("put %d, attempt %d: %s\n", i, attempt, w.status.to_string().c_str());
      std::this_thread::sleep_for(200ms);  // the failed leader steps down meanwhile
      c.wait_leader();
    }
    if (w.outcome != Outcome::kApplied) {
      ADD_FAILURE() << "put " << i << ": " << w.status.to_string();
      return 0;
    }
    last = w.index;
  }
  return last;
}

// Replica 3, whose disk these tests fill, waits ten election timeouts before
// it stands: elected, it would find its disk full as a leader, which is not
// what they test, and while it waits for room no leader has every member's agreement.
void replica_3_rarely_leads(ReplicaOptions& o) {
  if (o.id == 3) o.election_timeout_ms *= 10;
}

// libraft preallocates its log segments (8 MiB each, one ahead): on a
// 20 MiB file system the third segment does not fit, so the follower's
// Raft log write fails once about 8 MiB are written.
TEST(ReplicaFaults, FollowerWithAFullRaftDiskRestartsRaftAndCatchesUp) {
  Cluster c(3, replica_3_rarely_leads);
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

// A tmpfs of `size` under each replica's Raft log (kept in `disks`).
// IOError with errno EPERM when mount(2) is not permitted (it needs root).
Status mount_raft_disks(Cluster& c, const std::string& size,
                        std::vector<std::unique_ptr<ordo::testing::TmpfsMount>>& disks) {
  for (uint64_t id : {1, 2, 3}) {
    disks.push_back(std::make_unique<ordo::testing::TmpfsMount>(c.options(id).dir + "/raft", size));
    if (!disks.back()->mounted()) {
      const int err = disks.back()->error();
      return Status::io_error(err == EPERM
                                  ? "mount(2) of a tmpfs is not permitted here (EPERM: needs root)"
                                  : "mount a tmpfs: " + base::errno_text(err),
                              err);
    }
  }
  return Status::ok();
}

// Fills the file system at `dir` with a file `dir`/filler, written until
// the disk is full; its bytes, or 0 (reported) when it could not be made.
uint64_t fill_disk(const std::string& dir) {
  const std::string path = dir + "/filler";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    ADD_FAILURE() << "create " << path << ": " << base::errno_text(errno);
    return 0;
  }
  const std::string block(64 << 10, 'f');
  uint64_t bytes = 0;
  while (std::fwrite(block.data(), 1, block.size(), f) == block.size()) bytes += block.size();
  (void)std::fflush(f);
  std::fclose(f);
  return bytes;
}

uint64_t free_bytes(const std::string& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return 0;
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

// A follower's Raft disk fills up (another file takes the room), frees a
// little (less than the log segment libraft preallocates: Raft waits for
// room and says so in disk_wait), then frees to the level it had before:
// Raft restarts in the same process and the follower catches up.
TEST(ReplicaFaults, FollowerWhoseRaftDiskFillsAndFreesResumesInProcess) {
  Cluster c(3);
  std::vector<std::unique_ptr<ordo::testing::TmpfsMount>> disks;
  const Status mounted = mount_raft_disks(c, "48m", disks);
  if (mounted.errno_value() == EPERM) GTEST_SKIP() << mounted.message();
  ASSERT_TRUE(mounted.is_ok()) << mounted.to_string();
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  const uint64_t follower = leader == 3 ? 2 : 3;
  const std::string raft_dir = c.options(follower).dir + "/raft";
  const std::string value(256 << 10, 'v');
  ASSERT_EQ(c.put("", "before", value).outcome, Outcome::kApplied);
  const uint64_t free_before = free_bytes(raft_dir);
  ASSERT_GT(fill_disk(raft_dir), 0u);

  // Writes go on (a majority has room) until the follower's log fails.
  uint64_t last = 0;
  for (int i = 0; i < 200 && c.at(follower).status().disk_errors == 0; ++i) {
    WriteResult w = c.put("", "k" + std::to_string(i), value);
    ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
    last = w.index;
  }
  ASSERT_GT(c.at(follower).status().disk_errors, 0u) << "the follower's disk never filled";
  std::printf("disk_error: %s\n", c.at(follower).status().disk_error.c_str());
  EXPECT_LT(c.at(follower).status().applied_index, last);

  // Room for less than a log segment: Raft waits (no restart that would
  // fail again) and says for what.
  const std::string filler = raft_dir + "/filler";
  const uint64_t filled = std::filesystem::file_size(filler);
  ASSERT_EQ(::truncate(filler.c_str(), static_cast<off_t>(filled - (4 << 20))), 0)
      << base::errno_text(errno);
  std::string wait;
  ASSERT_TRUE(eventually([&] {
    wait = c.at(follower).status().disk_wait;
    return !wait.empty();
  })) << "disk_error '"
      << c.at(follower).status().disk_error << "'";
  std::printf("disk_wait: %s\n", wait.c_str());
  EXPECT_NE(wait.find("8388608 bytes needed free in " + raft_dir), std::string::npos) << wait;
  const uint64_t restarts = c.at(follower).status().raft_restarts;
  // A write asked of it meanwhile never reaches Raft: certainly not done
  // (Busy: ordo-node sends its client to another member), never unknown.
  WriteBatch refused_batch;
  refused_batch.put("", "refused", "1");
  const WriteResult refused = c.at(follower).write(refused_batch, 2s);
  EXPECT_EQ(refused.outcome, Outcome::kFailed) << refused.status.to_string();
  EXPECT_TRUE(refused.status.is_busy()) << refused.status.to_string();
  EXPECT_NE(refused.status.message().find("not proposed"), std::string::npos)
      << refused.status.to_string();
  std::this_thread::sleep_for(2500ms);
  EXPECT_EQ(c.at(follower).status().raft_restarts, restarts) << "restarts that could not succeed";
  EXPECT_EQ(c.at(follower).status().role, Role::kUnavailable);

  ASSERT_EQ(::unlink(filler.c_str()), 0) << base::errno_text(errno);
  std::printf("free before the filler %llu, after it went %llu\n",
              static_cast<unsigned long long>(free_before),
              static_cast<unsigned long long>(free_bytes(raft_dir)));
  ASSERT_TRUE(c.wait_applied(follower, last, 20s))
      << "replica " << follower << " applied " << c.at(follower).status().applied_index << " of "
      << last << "; disk_error '" << c.at(follower).status().disk_error << "', disk_wait '"
      << c.at(follower).status().disk_wait << "'";
  // It takes new entries, and its log writes succeed again.
  WriteResult w = c.put("", "after", "1");
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
  ASSERT_TRUE(c.wait_applied(follower, w.index));
  ASSERT_TRUE(eventually([&] { return c.at(follower).status().disk_error.empty(); }, 10s))
      << c.at(follower).status().disk_error;
  EXPECT_GE(c.at(follower).status().raft_restarts, 1u);
  EXPECT_EQ(c.at(follower).status().disk_wait, "");
  expect_same_contents(c, follower, c.wait_leader());
}

// The whole data directory (database file and Raft log) on one small file
// system: whichever fills first, the follower says so and catches up once
// space returns, without a restart.
TEST(ReplicaFaults, FollowerWithAFullDataDirectoryCatchesUpWhenSpaceReturns) {
  Cluster c(3, replica_3_rarely_leads);
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
  const Status mounted = mount_raft_disks(c, "20m", disks);
  if (mounted.errno_value() == EPERM) GTEST_SKIP() << mounted.message();
  ASSERT_TRUE(mounted.is_ok()) << mounted.to_string();
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
