// Replicas in one process over 127.0.0.1: replication, follower writes,
// linearizable reads, failover, restart replay, snapshot install and
// membership.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <set>
#include <thread>

#include "cluster.h"
#include "ordo/base/errno_status.h"
#include "ordo/sys/socket.h"
#include "tmpfs_mount.h"

namespace ordo::replica {
namespace {

using namespace testing_cluster;

uint64_t other_than(Cluster& c, uint64_t leader) {
  for (uint64_t id : c.open_ids()) {
    if (id != leader) return id;
  }
  return 0;
}

TEST(ReplicaOpen, RejectsBadOptions) {
  ordo::testing::TempDir tmp;
  ReplicaOptions o;
  o.id = 0;
  o.address = "127.0.0.1:" + std::to_string(free_raft_port());
  o.dir = tmp.file("d");
  EXPECT_TRUE(Replica::open(o).status().is_invalid_argument());
  o.id = 1;
  o.address = "nowhere:1";
  EXPECT_TRUE(Replica::open(o).status().is_invalid_argument());
  o.address = "127.0.0.1:" + std::to_string(free_raft_port());
  o.bootstrap = {Member{2, "127.0.0.1:9", true}};
  Result<std::unique_ptr<Replica>> r = Replica::open(o);
  ASSERT_TRUE(r.status().is_invalid_argument());
  EXPECT_NE(r.status().message().find("does not hold replica 1"), std::string::npos);
  // Options that cannot work are refused, each naming the problem.
  {
    ReplicaOptions b = o;
    b.bootstrap = {Member{1, b.address, true}};
    auto refused = [&](const ReplicaOptions& x, const std::string& what) {
      Result<std::unique_ptr<Replica>> opened = Replica::open(x);
      EXPECT_TRUE(opened.status().is_invalid_argument())
          << what << ": " << opened.status().to_string();
      EXPECT_NE(opened.status().message().find(what), std::string::npos)
          << opened.status().to_string();
    };
    ReplicaOptions x = b;
    x.db_options.read_only = true;
    refused(x, "read_only");
    x = b;
    x.bootstrap = {Member{1, b.address, false}};
    refused(x, "non-voter");
    x = b;
    x.bootstrap.push_back(Member{2, "127.0.0.1:65535", true});
    refused(x, "65535");
    x = b;
    x.heartbeat_timeout_ms = 5;
    refused(x, "heartbeat_timeout_ms");
    x = b;
    x.election_timeout_ms = 4000000000u;
    refused(x, "election_timeout_ms");
  }
  o.bootstrap.clear();
  o.dir = "";
  EXPECT_TRUE(Replica::open(o).status().is_invalid_argument());
  o.dir = tmp.file("d");
  o.election_timeout_ms = 10;
  EXPECT_TRUE(Replica::open(o).status().is_invalid_argument());
}

TEST(ReplicaOpen, DirectoryOfAnotherIdAndBusyPort) {
  ordo::testing::TempDir tmp;
  ReplicaOptions o;
  o.id = 1;
  o.address = "127.0.0.1:" + std::to_string(free_raft_port());
  o.dir = tmp.file("d");
  o.bootstrap = {Member{1, o.address, true}};
  {
    auto r = Replica::open(o);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    // The same ports while it runs: the snapshot port is taken.
    ReplicaOptions twin = o;
    twin.dir = tmp.file("twin");
    auto busy = Replica::open(twin);
    EXPECT_TRUE(busy.status().is_io_error()) << busy.status().to_string();
  }
  {
    // The Raft port taken by another socket: the error names the address and a reason.
    const uint16_t port = free_raft_port();
    Result<int> listening = sys::listen_on(sys::HostPort{"127.0.0.1", port}, 4, sys::Blocking::kNo);
    ASSERT_TRUE(listening.is_ok()) << listening.status().to_string();
    const int taken = *listening;
    ReplicaOptions raft_busy = o;
    raft_busy.address = "127.0.0.1:" + std::to_string(port);
    raft_busy.bootstrap = {Member{1, raft_busy.address, true}};
    raft_busy.dir = tmp.file("raft-busy");
    auto busy = Replica::open(raft_busy);
    ::close(taken);
    ASSERT_TRUE(busy.status().is_io_error()) << busy.status().to_string();
    // The transport's own record of its listen, not libraft's text, says so.
    EXPECT_EQ(busy.status().errno_value(), EADDRINUSE) << busy.status().to_string();
    const std::string m = busy.status().message();
    EXPECT_NE(m.find(raft_busy.address), std::string::npos) << m;
    EXPECT_NE(m.find("in use"), std::string::npos) << m;
    EXPECT_NE(m.back(), ' ') << m;
    std::printf("%s\n", busy.status().to_string().c_str());
  }
  o.id = 2;
  o.bootstrap = {Member{2, o.address, true}};
  auto other = Replica::open(o);
  ASSERT_TRUE(other.status().is_invalid_argument());
  EXPECT_NE(other.status().message().find("belongs to replica 1"), std::string::npos);
}

TEST(ReplicaCluster, SingleMemberWritesAndRejectsBadBatches) {
  Cluster c(1);
  c.open_all();
  ASSERT_EQ(c.wait_leader(), 1u);
  Replica& r = c.at(1);
  WriteBatch empty;
  WriteResult w = r.write(empty, 1s);
  EXPECT_EQ(w.outcome, Outcome::kFailed);
  EXPECT_TRUE(w.status.is_invalid_argument());
  WriteBatch system;
  system.put(kSystemTree, "applied_index", "x");
  w = r.write(system, 1s);
  EXPECT_EQ(w.outcome, Outcome::kFailed);
  EXPECT_TRUE(w.status.is_invalid_argument());
  WriteBatch big_key;
  big_key.put("", std::string(5000, 'k'), "v");
  EXPECT_TRUE(r.write(big_key, 1s).status.is_invalid_argument());

  WriteBatch ok;
  ok.put("", "a", "1");
  ok.put("t", "b", "2");
  w = r.write(ok, 5s);
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
  EXPECT_TRUE(w.status.is_ok());
  auto view = r.read(ReadMode::kLinearizable, 5s);
  ASSERT_TRUE(view.is_ok()) << view.status().to_string();
  EXPECT_EQ(*view->get("", "a"), "1");
  EXPECT_EQ(*view->get("t", "b"), "2");
  EXPECT_TRUE(view->get("t", "zz").status().is_not_found());
  EXPECT_TRUE(view->get("nope", "b").status().is_not_found());
}

TEST(ReplicaCluster, ThreeReplicasReplicateAndOnlyTheLeaderWrites) {
  Cluster c(3);
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  Replica& l = c.at(leader);

  uint64_t last_index = 0;
  std::set<uint64_t> ids;
  for (int i = 0; i < 30; ++i) {
    Id64 id = l.next_id64();
    EXPECT_EQ(id.node(), leader % 1024);
    EXPECT_TRUE(ids.insert(id.value).second);
    EXPECT_EQ(id.value, *ids.rbegin());  // increasing
    WriteBatch b;
    std::string key(8, '\0');
    for (int k = 0; k < 8; ++k) key[k] = static_cast<char>(id.value >> (56 - 8 * k));
    b.put("nodes", key, "n" + std::to_string(i));
    b.put("", "last", std::to_string(i));
    WriteResult w = l.write(b, 10s);
    ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
    EXPECT_GT(w.index, last_index);
    last_index = w.index;
  }

  // A follower refuses writes and names the leader.
  const uint64_t follower = other_than(c, leader);
  WriteBatch b;
  b.put("", "from-follower", "x");
  WriteResult w = c.at(follower).write(b, 5s);
  EXPECT_EQ(w.outcome, Outcome::kFailed);
  EXPECT_TRUE(w.status.is_busy()) << w.status.to_string();
  EXPECT_EQ(w.leader_id, leader);
  EXPECT_EQ(w.leader_address, c.options(leader).address);
  auto follower_read = c.at(follower).read(ReadMode::kLinearizable, 2s);
  EXPECT_TRUE(follower_read.status().is_busy());

  // The leader's linearizable read sees the last acknowledged write.
  {
    auto view = l.read(ReadMode::kLinearizable, 5s);
    ASSERT_TRUE(view.is_ok()) << view.status().to_string();
    EXPECT_EQ(*view->get("", "last"), "29");
    EXPECT_GE(view->applied_index(), last_index);
  }

  // Every replica applies everything; local reads agree.
  for (uint64_t id : c.open_ids()) {
    ASSERT_TRUE(c.wait_applied(id, last_index)) << "replica " << id;
    EXPECT_TRUE(c.at(id).wait_ready(10s).is_ok());
    auto view = c.at(id).read(ReadMode::kLocal, 1s);
    ASSERT_TRUE(view.is_ok());
    EXPECT_EQ(*view->get("", "last"), "29") << "replica " << id;
    EXPECT_TRUE(view->get("", "from-follower").status().is_not_found());
  }
  Contents expected = contents_of(l);
  EXPECT_EQ(expected["nodes"].size(), 30u);
  for (uint64_t id : c.open_ids()) EXPECT_EQ(contents_of(c.at(id)), expected) << "replica " << id;

  ReplicaStatus s = l.status();
  EXPECT_EQ(s.role, Role::kLeader);
  EXPECT_EQ(s.members.size(), 3u);
  EXPECT_GE(s.last_log_index, last_index);
  EXPECT_GE(s.term, 1u);
}

// The applied index written into the file is the entry's log index, also
// with barrier entries (which advance Raft's applied index without an
// apply) between the writes.
TEST(ReplicaCluster, AppliedIndexIsTheEntryIndexAcrossBarriers) {
  Cluster c(3);
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  Replica& l = c.at(leader);
  uint64_t previous = 0;
  for (int i = 0; i < 5; ++i) {
    WriteBatch b;
    b.put("", "k", std::to_string(i));
    WriteResult w = l.write(b, 10s);
    ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
    if (previous != 0) {
      EXPECT_EQ(w.index, previous + 2) << "one barrier between writes";
    }
    previous = w.index;
    auto view = l.read(ReadMode::kLinearizable, 10s);  // a barrier entry
    ASSERT_TRUE(view.is_ok()) << view.status().to_string();
    EXPECT_EQ(view->applied_index(), w.index);
    EXPECT_EQ(l.status().applied_index, w.index);
  }
  for (uint64_t id : c.open_ids()) {
    ASSERT_TRUE(c.wait_applied(id, previous));
    auto view = c.at(id).read(ReadMode::kLocal, 1s);
    ASSERT_TRUE(view.is_ok());
    EXPECT_EQ(view->applied_index(), previous) << "replica " << id;
  }
}

TEST(ReplicaCluster, FailoverAndTheOldLeaderCatchesUpWithoutDoubleApplies) {
  Cluster c(3);
  c.open_all();
  const uint64_t first = c.wait_leader();
  ASSERT_NE(first, 0u);
  int acknowledged = 0;
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(c.put("", "k" + std::to_string(acknowledged), "v").outcome, Outcome::kApplied);
    ++acknowledged;
  }
  c.close(first);
  const uint64_t second = c.wait_leader();
  ASSERT_NE(second, 0u);
  ASSERT_NE(second, first);
  for (int i = 0; i < 20; ++i) {
    WriteResult w = c.put("", "k" + std::to_string(acknowledged), "v");
    ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
    ++acknowledged;
    WriteResult counter = c.put("", "counter", std::to_string(acknowledged));
    ASSERT_EQ(counter.outcome, Outcome::kApplied);
  }
  c.open(first);
  ASSERT_NE(c.wait_leader(), 0u);
  const uint64_t leader = c.wait_leader();
  auto leader_view = c.at(leader).read(ReadMode::kLinearizable, 10s);
  ASSERT_TRUE(leader_view.is_ok()) << leader_view.status().to_string();
  const uint64_t target = leader_view->applied_index();
  leader_view = Status::busy("released");  // end the view
  ASSERT_TRUE(c.wait_applied(first, target));

  Contents expected = contents_of(c.at(leader));
  EXPECT_EQ(expected[""].size(), static_cast<size_t>(acknowledged) + 1);  // + "counter"
  EXPECT_EQ(expected[""]["counter"], std::to_string(acknowledged));
  for (uint64_t id : c.open_ids()) {
    ASSERT_TRUE(c.wait_applied(id, target));
    EXPECT_EQ(c.at(id).status().applied_index, target) << "replica " << id;
    EXPECT_EQ(contents_of(c.at(id)), expected) << "replica " << id;
    // No entry applied twice or skipped: among the changes each replica
    // applied (the old leader's since it reopened, which covers the second
    // leader's term), every key of that term once and "counter" 20 times.
    std::map<std::string, int> puts;
    for (const Change& ch : applied_changes(c.at(id))) ++puts[ch.key];
    EXPECT_EQ(puts["counter"], 20) << "replica " << id;
    for (int k = 20; k < acknowledged; ++k) {
      EXPECT_EQ(puts["k" + std::to_string(k)], 1) << "replica " << id << " key k" << k;
    }
    for (const auto& [key, n] : puts) {
      if (key != "counter") {
        EXPECT_EQ(n, 1) << "replica " << id << " key " << key;
      }
    }
  }
}

// Writers at once make the leader apply several entries per pass of its
// loop, in one commit: each writer reads its own write on the leader as soon
// as it is acknowledged, and every replica ends with each write applied once.
TEST(ReplicaCluster, ConcurrentWritesAppliedTogetherAreReadAfterTheirAcknowledgement) {
  Cluster c(3);
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  constexpr int kWriters = 8;
  constexpr int kWrites = 40;
  std::atomic<int> unseen{0};
  std::atomic<int> failed{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kWrites; ++i) {
        const std::string key = "w" + std::to_string(w) + "-" + std::to_string(i);
        WriteBatch b;
        b.put("", key, std::to_string(i));
        WriteResult r = c.at(leader).write(b, 10s);
        if (r.outcome != Outcome::kApplied) {
          failed.fetch_add(1);
          continue;
        }
        auto view = c.at(leader).read(ReadMode::kLocal, 1s);
        Result<std::string> v = view.is_ok() ? view->get("", key) : view.status();
        if (!v.is_ok() || *v != std::to_string(i)) unseen.fetch_add(1);
      }
    });
  }
  for (std::thread& t : writers) t.join();
  ASSERT_EQ(failed.load(), 0);
  EXPECT_EQ(unseen.load(), 0);
  auto view = c.at(leader).read(ReadMode::kLinearizable, 10s);
  ASSERT_TRUE(view.is_ok()) << view.status().to_string();
  const uint64_t target = view->applied_index();
  view = Status::busy("released");  // end the view
  Contents expected = contents_of(c.at(leader));
  EXPECT_EQ(expected[""].size(), static_cast<size_t>(kWriters * kWrites));
  for (uint64_t id : c.open_ids()) {
    ASSERT_TRUE(c.wait_applied(id, target));
    EXPECT_EQ(contents_of(c.at(id)), expected) << "replica " << id;
    std::map<std::string, int> puts;
    for (const Change& ch : applied_changes(c.at(id))) ++puts[ch.key];
    EXPECT_EQ(puts.size(), static_cast<size_t>(kWriters * kWrites)) << "replica " << id;
    for (const auto& [key, n] : puts) EXPECT_EQ(n, 1) << "replica " << id << " key " << key;
  }
}

TEST(ReplicaCluster, RestartReplaysNothingTwice) {
  Cluster c(3);
  c.open_all();
  ASSERT_NE(c.wait_leader(), 0u);
  uint64_t last = 0;
  for (int i = 0; i < 25; ++i) {
    WriteResult w = c.put("t", "k" + std::to_string(i), std::to_string(i));
    ASSERT_EQ(w.outcome, Outcome::kApplied);
    last = w.index;
  }
  std::map<uint64_t, uint64_t> txn_before;
  std::map<uint64_t, Contents> before;
  for (uint64_t id : c.open_ids()) {
    ASSERT_TRUE(c.wait_applied(id, last));
    txn_before[id] = txn_id_of(c.at(id));
    before[id] = contents_of(c.at(id));
  }
  for (uint64_t id : std::vector<uint64_t>{1, 2, 3}) c.close(id);
  c.open_all();
  for (uint64_t id : c.open_ids()) {
    EXPECT_EQ(c.at(id).status().applied_index, last) << "replica " << id;
  }
  ASSERT_NE(c.wait_leader(), 0u);
  for (uint64_t id : c.open_ids()) {
    ASSERT_TRUE(c.at(id).wait_ready(10s).is_ok());
    EXPECT_EQ(c.at(id).status().applied_index, last) << "replica " << id;
    EXPECT_EQ(txn_id_of(c.at(id)), txn_before[id]) << "replica " << id << " re-applied entries";
    EXPECT_EQ(contents_of(c.at(id)), before[id]);
  }
  WriteResult w = c.put("t", "after", "restart");
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
  EXPECT_GT(w.index, last);
}

TEST(ReplicaCluster, LaggingReplicaInstallsASnapshot) {
  Cluster c(3, [](ReplicaOptions& o) {
    o.snapshot_threshold = 256;
    o.snapshot_trailing = 64;
  });
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  const uint64_t lagging = other_than(c, leader);
  c.close(lagging);

  // Writers in parallel so that Raft batches the appends.
  std::atomic<int> applied{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        WriteBatch b;
        b.put("bulk", "w" + std::to_string(t) + "-" + std::to_string(i), std::string(200, 'x'));
        if (i % 50 == 0) b.put("other", "t" + std::to_string(t), std::to_string(i));
        // Through whichever replica leads: a slow copy on the leader's Raft
        // thread (sanitizer builds) may cost it the leadership.
        if (c.write(b).outcome == Outcome::kApplied) applied.fetch_add(1);
      }
    });
  }
  for (auto& w : writers) w.join();
  ASSERT_EQ(applied.load(), 1200);
  uint64_t leader_now = c.wait_leader();
  ASSERT_NE(leader_now, 0u);
  EXPECT_GE(c.at(leader_now).status().snapshots_taken, 1u);

  c.open(lagging);
  leader_now = c.wait_leader();
  ASSERT_NE(leader_now, 0u);
  auto view = c.at(leader_now).read(ReadMode::kLinearizable, 10s);
  ASSERT_TRUE(view.is_ok());
  const uint64_t target = view->applied_index();
  view = Status::busy("released");
  const bool caught_up = c.wait_applied(lagging, target, 30s);
  ReplicaStatus s = c.at(lagging).status();
  ASSERT_TRUE(caught_up) << "applied " << s.applied_index << " of " << target << ", log "
                         << s.last_log_index << ", role " << role_name(s.role) << ", leader "
                         << s.leader_id << ", snapshots installed " << s.snapshots_installed;
  EXPECT_GE(s.snapshots_installed, 1u);
  EXPECT_GT(s.snapshot_index, 0u);
  Contents expected = contents_of(c.at(leader_now));
  EXPECT_EQ(expected["bulk"].size(), 1200u);
  EXPECT_EQ(contents_of(c.at(lagging)), expected);

  // Nothing stays in the copies directories: copies exist only in transit.
  for (uint64_t id : c.open_ids()) {
    EXPECT_TRUE(std::filesystem::is_empty(c.options(id).dir + "/copies")) << "replica " << id;
  }

  // Writes go on, and it follows them.
  WriteResult w = c.put("bulk", "after", "install");
  ASSERT_EQ(w.outcome, Outcome::kApplied);
  ASSERT_TRUE(c.wait_applied(lagging, w.index));
  auto lv = c.at(lagging).read(ReadMode::kLocal, 1s);
  ASSERT_TRUE(lv.is_ok());
  EXPECT_EQ(*lv->get("bulk", "after"), "install");
}

TEST(ReplicaCluster, AddAndRemoveAMember) {
  Cluster c(3);
  c.open_all();
  uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(c.put("", "k" + std::to_string(i), "v").outcome, Outcome::kApplied);

  const uint64_t added = c.add_slot(4);
  c.open(added);  // no bootstrap list: waits to be added
  Member m{added, c.options(added).address, true};
  // Not on a follower.
  EXPECT_TRUE(c.at(other_than(c, leader)).add_member(m, 5s).is_busy());
  Status s = c.at(leader).add_member(m, 20s);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_TRUE(c.at(leader).add_member(m, 5s).is_invalid_argument());

  ReplicaStatus st = c.at(leader).status();
  // The status is refreshed every few ms by the Raft thread.
  for (int i = 0; i < 100 && st.members.size() != 4; ++i) {
    std::this_thread::sleep_for(20ms);
    st = c.at(leader).status();
  }
  // The voter role is assigned once the new member caught up.
  auto voters = [&] {
    size_t n = 0;
    for (const Member& member : st.members) n += member.voter ? 1 : 0;
    return n;
  };
  for (int i = 0; i < 250 && voters() != 4; ++i) {
    std::this_thread::sleep_for(20ms);
    st = c.at(leader).status();
  }
  ASSERT_EQ(st.members.size(), 4u);
  EXPECT_EQ(voters(), 4u);

  WriteResult w = c.put("", "with-four", "yes");
  ASSERT_EQ(w.outcome, Outcome::kApplied);
  ASSERT_TRUE(c.wait_applied(added, w.index));
  EXPECT_EQ(contents_of(c.at(added)), contents_of(c.at(leader)));

  // Remove it again: writes go on with three.
  leader = c.wait_leader();
  s = c.at(leader).remove_member(added, 20s);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_TRUE(c.at(leader).remove_member(99, 5s).is_invalid_argument());
  c.close(added);
  w = c.put("", "with-three", "yes");
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
  st = c.at(c.wait_leader()).status();
  for (int i = 0; i < 100 && st.members.size() != 3; ++i) {
    std::this_thread::sleep_for(20ms);
    st = c.at(c.wait_leader()).status();
  }
  EXPECT_EQ(st.members.size(), 3u);
}

}  // namespace
}  // namespace ordo::replica

namespace ordo::replica {
namespace {

using namespace testing_cluster;

TEST(ReplicaCluster, TheLeaderRemovesItselfAndAnotherLeads) {
  Cluster c(3);
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  ASSERT_EQ(c.put("", "before", "1").outcome, Outcome::kApplied);
  Status s = c.at(leader).remove_member(leader, 20s);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  c.close(leader);
  const uint64_t next = c.wait_leader();
  ASSERT_NE(next, 0u);
  EXPECT_NE(next, leader);
  WriteResult w = c.put("", "after", "2");
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
  ReplicaStatus st = c.at(next).status();
  for (int i = 0; i < 100 && st.members.size() != 2; ++i) {
    std::this_thread::sleep_for(20ms);
    st = c.at(next).status();
  }
  EXPECT_EQ(st.members.size(), 2u);
  for (uint64_t id : c.open_ids()) {
    ASSERT_TRUE(c.wait_applied(id, w.index));
    auto view = c.at(id).read(ReadMode::kLocal, 1s);
    ASSERT_TRUE(view.is_ok());
    EXPECT_EQ(*view->get("", "before"), "1");
    EXPECT_EQ(*view->get("", "after"), "2");
  }
}

// Without a majority nothing commits: the write ends kUnknown at its
// timeout, and closing the replica ends the entry still in flight.
TEST(ReplicaCluster, NoMajorityMeansUnknownAndCloseEndsTheEntryInFlight) {
  Cluster c(3);
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  for (uint64_t id : c.open_ids()) {
    if (id != leader) c.close(id);
  }
  WriteBatch b;
  b.put("", "lonely", "x");
  WriteResult w = c.at(leader).write(b, 300ms);
  EXPECT_EQ(w.outcome, Outcome::kUnknown);
  EXPECT_TRUE(w.status.is_io_error()) << w.status.to_string();
  // The entry is still in the leader's log, uncommitted: closing ends it
  // (its completion finds the caller gone; the sanitizer runs check that
  // nothing leaks or is touched after free).
  ReplicaStatus st = c.at(leader).status();
  EXPECT_GT(st.last_log_index, st.applied_index);
  c.close(leader);
}

// A follower whose file is behind its newest snapshot at open (here: lost
// altogether, as after a crash during a snapshot install) opens, fetches a
// copy from the leader before it applies any entry, and then follows.
TEST(ReplicaCluster, FileBehindItsSnapshotAtOpenIsInstalledFromTheLeader) {
  Cluster c(3, [](ReplicaOptions& o) {
    o.snapshot_threshold = 16;
    o.snapshot_trailing = 4;
  });
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  uint64_t last = 0;
  for (int i = 0; i < 60; ++i) {
    WriteResult w = c.put("", "k" + std::to_string(i), std::to_string(i));
    ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
    last = w.index;
  }
  const uint64_t follower = other_than(c, leader);
  ASSERT_TRUE(c.wait_applied(follower, last));
  ASSERT_GE(c.at(follower).status().snapshots_taken, 1u);
  c.close(follower);
  std::filesystem::remove(c.options(follower).dir + "/data.ordo");

  c.open(follower);
  // The write makes every replica apply; the follower installs first.
  WriteResult w = c.put("", "after", "reopen");
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
  ASSERT_TRUE(c.wait_applied(follower, w.index));
  ReplicaStatus s = c.at(follower).status();
  EXPECT_EQ(s.snapshots_installed, 1u);
  const uint64_t leader_now = c.wait_leader();
  ASSERT_NE(leader_now, 0u);
  Contents expected = contents_of(c.at(leader_now));
  EXPECT_EQ(expected[""].size(), 61u);
  EXPECT_EQ(contents_of(c.at(follower)), expected);
}

// Replica 3's ordo file lies on a 16 MiB tmpfs (its Raft log on a large
// one): its applies fail with Full, status says so, and once the tmpfs
// grows it applies every committed entry with no further write.
TEST(ReplicaCluster, FollowerWithAFullDiskSaysSoAndCatchesUpWhenSpaceReturns) {
  Cluster c(3);
  ordo::testing::TmpfsMount small(c.options(3).dir, "16m");
  if (!small.mounted() && small.error() == EPERM) {
    GTEST_SKIP() << "mount(2) of a tmpfs is not permitted here (EPERM: needs root)";
  }
  ASSERT_TRUE(small.mounted()) << base::errno_text(small.error());
  ordo::testing::TmpfsMount large(c.options(3).dir + "/raft", "512m");
  ASSERT_TRUE(large.mounted()) << base::errno_text(large.error());

  c.open(1);
  c.open(2);
  ASSERT_NE(c.wait_leader(), 0u);
  c.open(3);
  ASSERT_NE(c.wait_leader(), 0u);

  const std::string value(512 << 10, 'v');
  uint64_t last = 0;
  for (int i = 0; i < 48; ++i) {
    WriteResult w = c.put("", "k" + std::to_string(i), value + std::to_string(i));
    ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
    last = w.index;
  }
  std::string error;
  for (auto until = Clock::now() + kWait; Clock::now() < until && error.empty();) {
    error = c.at(3).status().apply_error;
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_FALSE(error.empty()) << "replica 3 applied " << c.at(3).status().applied_index << " of "
                              << last;
  std::printf("apply_error: %s\n", error.c_str());
  ASSERT_LT(c.at(3).status().applied_index, last);

  ASSERT_TRUE(small.resize("256m")) << base::errno_text(errno);
  // No more writes: the retries alone bring it to the end.
  ASSERT_TRUE(c.wait_applied(3, last, 15s))
      << "replica 3 applied " << c.at(3).status().applied_index << " of " << last;
  EXPECT_EQ(c.at(3).status().apply_error, "");
  uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  EXPECT_EQ(contents_of(c.at(3)), contents_of(c.at(leader)));
  for (uint64_t id : {1, 2, 3}) c.close(id);
}

}  // namespace
}  // namespace ordo::replica
