// The snapshot pieces alone: the record codec, copy digests and checks, the
// snapshot server and fetch, and a restore that must refuse a damaged copy.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "applied_index.h"
#include "copy_verify.h"
#include "ordo/replica.h"
#include "snapshot_fetch.h"
#include "snapshot_record.h"
#include "snapshot_server.h"
#include "state_machine.h"
#include "temp_dir.h"
#include "test_ports.h"

namespace ordo::replica {
namespace {

using ordo::testing::TempDir;

// Flips one byte of the file at `offset`.
void damage(const std::string& path, uint64_t offset) {
  int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char c = 0;
  ASSERT_EQ(::pread(fd, &c, 1, static_cast<off_t>(offset)), 1);
  c = static_cast<char>(c ^ 0x5a);
  ASSERT_EQ(::pwrite(fd, &c, 1, static_cast<off_t>(offset)), 1);
  ::close(fd);
}

// A state machine in `dir` that applied `entries` batches of 20 puts each.
std::unique_ptr<ReplicaStateMachine> filled_machine(const std::string& dir, int entries) {
  StateMachineOptions o;
  o.dir = dir;
  o.fetch_timeout = std::chrono::milliseconds(5000);
  auto sm = ReplicaStateMachine::open(o);
  EXPECT_TRUE(sm.is_ok()) << sm.status().to_string();
  for (int e = 1; e <= entries; ++e) {
    WriteBatch b;
    for (int i = 0; i < 20; ++i) {
      b.put("t", "key" + std::to_string(e) + "-" + std::to_string(i), std::string(100, 'a' + e % 26));
    }
    ApplyOutcome out = (*sm)->apply(static_cast<uint64_t>(e), b.encode());
    EXPECT_FALSE(out.retry);
    EXPECT_TRUE(out.status.is_ok()) << out.status.to_string();
  }
  return std::move(*sm);
}

TEST(SnapshotRecord, RoundTripAndRejects) {
  SnapshotRecord r{1234, copy_name_for(1234), 8192, 0xdeadbeefcafef00dull};
  std::string bytes = r.encode();
  Result<SnapshotRecord> d = SnapshotRecord::decode(bytes);
  ASSERT_TRUE(d.is_ok()) << d.status().to_string();
  EXPECT_EQ(d->applied_index, 1234u);
  EXPECT_EQ(d->copy_name, "copy-00000000000000001234.ordo");
  EXPECT_EQ(d->size_bytes, 8192u);
  EXPECT_EQ(d->xxh3, 0xdeadbeefcafef00dull);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_TRUE(SnapshotRecord::decode(std::string_view(bytes.data(), n)).status().is_invalid_argument()) << n;
  }
  EXPECT_TRUE(SnapshotRecord::decode(bytes + "x").status().is_invalid_argument());
  SnapshotRecord evil = r;
  evil.copy_name = "../../etc/passwd";
  EXPECT_TRUE(SnapshotRecord::decode(evil.encode()).status().is_invalid_argument());
}

TEST(SnapshotRecord, CopyNames) {
  EXPECT_TRUE(is_copy_name(copy_name_for(0)));
  EXPECT_TRUE(is_copy_name(copy_name_for(~uint64_t{0})));
  EXPECT_FALSE(is_copy_name("copy-0000000000000000123a.ordo"));
  EXPECT_FALSE(is_copy_name("copy-../0000000000000001.ordo"));
  EXPECT_FALSE(is_copy_name("data.ordo"));
  EXPECT_FALSE(is_copy_name(""));
}

TEST(CopyVerify, DamagedCopyIsRejected) {
  TempDir tmp;
  auto sm = filled_machine(tmp.path(), 30);
  Result<std::string> rec_bytes = sm->snapshot();
  ASSERT_TRUE(rec_bytes.is_ok()) << rec_bytes.status().to_string();
  Result<SnapshotRecord> rec = SnapshotRecord::decode(*rec_bytes);
  ASSERT_TRUE(rec.is_ok());
  EXPECT_EQ(rec->applied_index, 30u);
  const std::string path = sm->copies_dir() + "/" + rec->copy_name;
  ASSERT_TRUE(verify_copy(path, rec->size_bytes, rec->xxh3).is_ok());
  ASSERT_TRUE(check_copy(path).is_ok());

  EXPECT_TRUE(verify_copy(path, rec->size_bytes + 1, rec->xxh3).is_corruption());
  // A damaged page inside the copy: the digest and the page check both see it.
  damage(path, 3 * 4096 + 100);
  EXPECT_TRUE(verify_copy(path, rec->size_bytes, rec->xxh3).is_corruption());
  Status checked = check_copy(path);
  EXPECT_FALSE(checked.is_ok());
  EXPECT_TRUE(verify_copy(tmp.file("missing"), 1, 1).is_not_found());
}

TEST(SnapshotServer, ServesCopiesAndNothingElse) {
  TempDir tmp;
  auto sm = filled_machine(tmp.path(), 5);
  Result<std::string> rec_bytes = sm->snapshot();
  ASSERT_TRUE(rec_bytes.is_ok());
  SnapshotRecord rec = *SnapshotRecord::decode(*rec_bytes);
  std::ofstream(tmp.file("secret")) << "not a copy";

  const uint16_t port = testing_ports::free_port_pair();
  auto server = SnapshotServer::start(HostPort{"127.0.0.1", port}, sm->copies_dir());
  ASSERT_TRUE(server.is_ok()) << server.status().to_string();
  const HostPort at{"127.0.0.1", port};
  const auto timeout = std::chrono::milliseconds(5000);

  ASSERT_TRUE(fetch_copy(at, rec.copy_name, tmp.file("fetched"), timeout).is_ok());
  EXPECT_TRUE(verify_copy(tmp.file("fetched"), rec.size_bytes, rec.xxh3).is_ok());
  EXPECT_TRUE(fetch_copy(at, copy_name_for(999), tmp.file("x"), timeout).is_not_found());
  EXPECT_FALSE(std::filesystem::exists(tmp.file("x")));
  EXPECT_TRUE(fetch_copy(at, "../secret", tmp.file("y"), timeout).is_invalid_argument());

  // A raw request for a path outside the copies is answered "no copy".
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  const char req[] = "../secret\n";
  ASSERT_EQ(::send(fd, req, sizeof req - 1, 0), static_cast<ssize_t>(sizeof req - 1));
  unsigned char header[8];
  ASSERT_EQ(::recv(fd, header, 8, MSG_WAITALL), 8);
  for (unsigned char b : header) EXPECT_EQ(b, 0xff);
  ::close(fd);
}

TEST(SnapshotRestore, DamagedCopyOnTheLeaderIsNotInstalled) {
  TempDir leader_dir, follower_dir;
  auto leader = filled_machine(leader_dir.path(), 40);
  Result<std::string> rec_bytes = leader->snapshot();
  ASSERT_TRUE(rec_bytes.is_ok());
  SnapshotRecord rec = *SnapshotRecord::decode(*rec_bytes);

  const uint16_t port = testing_ports::free_port_pair();  // Raft port; +1 serves copies
  auto server = SnapshotServer::start(HostPort{"127.0.0.1", static_cast<uint16_t>(port + 1)},
                                      leader->copies_dir());
  ASSERT_TRUE(server.is_ok());
  const std::string leader_raft = "127.0.0.1:" + std::to_string(port);

  auto follower = filled_machine(follower_dir.path(), 3);
  damage(leader->copies_dir() + "/" + rec.copy_name, 2 * 4096 + 10);
  Status s = follower->restore(*rec_bytes, leader_raft);
  EXPECT_TRUE(s.is_corruption()) << s.to_string();
  EXPECT_EQ(follower->applied_index(), 3u);
  EXPECT_EQ(follower->snapshots_installed(), 0u);
  EXPECT_FALSE(std::filesystem::exists(follower->copies_dir() + "/" + rec.copy_name));
  EXPECT_FALSE(std::filesystem::exists(follower->copies_dir() + "/" + rec.copy_name + ".tmp"));
  {
    auto view = follower->begin_view();
    ASSERT_TRUE(view.is_ok());
    EXPECT_EQ(view->applied_index, 3u);
  }

  // Repaired on the leader (a fresh copy), the same record installs.
  std::filesystem::remove(leader->copies_dir() + "/" + rec.copy_name);
  Result<std::string> again = leader->snapshot();
  ASSERT_TRUE(again.is_ok());
  s = follower->restore(*again, leader_raft);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(follower->applied_index(), 40u);
  EXPECT_EQ(follower->snapshots_installed(), 1u);
  {
    auto view = follower->begin_view();
    ASSERT_TRUE(view.is_ok());
    EXPECT_EQ(view->applied_index, 40u);
    auto tree = view->txn.open_tree("t");
    ASSERT_TRUE(tree.is_ok());
    auto v = view->txn.get(*tree, "key40-19");
    ASSERT_TRUE(v.is_ok());
    EXPECT_EQ(v->str(), std::string(100, 'a' + 40 % 26));
  }
  // Entries at or below the installed index are skipped as done.
  WriteBatch b;
  b.put("t", "late", "x");
  ApplyOutcome out = follower->apply(40, b.encode());
  EXPECT_TRUE(out.status.is_ok());
  auto view = follower->begin_view();
  ASSERT_TRUE(view.is_ok());
  auto tree = view->txn.open_tree("t");
  ASSERT_TRUE(tree.is_ok());
  EXPECT_TRUE(view->txn.get(*tree, "late").status().is_not_found());
}

// A file behind its own newest snapshot (e.g. ordo commits lost to a power
// cut): the copy in dir/copies is installed without any leader.
TEST(SnapshotRestore, FileBehindItsOwnCopyInstallsItLocally) {
  TempDir a_dir, b_dir;
  auto a = filled_machine(a_dir.path(), 25);
  Result<std::string> rec_bytes = a->snapshot();
  ASSERT_TRUE(rec_bytes.is_ok());
  SnapshotRecord rec = *SnapshotRecord::decode(*rec_bytes);
  auto b = filled_machine(b_dir.path(), 0);
  std::filesystem::copy_file(a->copies_dir() + "/" + rec.copy_name, b->copies_dir() + "/" + rec.copy_name);
  Status s = b->restore(*rec_bytes, "");
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(b->applied_index(), 25u);
  // Already at the record: nothing to do, even with no copy and no leader.
  std::filesystem::remove(b->copies_dir() + "/" + rec.copy_name);
  EXPECT_TRUE(b->restore(*rec_bytes, "").is_ok());
  // Behind a record whose copy is missing, with no leader known: NotFound.
  SnapshotRecord ahead = rec;
  ahead.applied_index = 99;
  ahead.copy_name = copy_name_for(99);
  EXPECT_TRUE(b->restore(ahead.encode(), "").is_not_found());
  EXPECT_EQ(b->applied_index(), 25u);
  EXPECT_TRUE(b->restore("garbage", "").is_invalid_argument());
}

TEST(StateMachine, DeterministicFailureCommitsTheIndexOnly) {
  TempDir tmp;
  auto sm = filled_machine(tmp.path(), 2);
  WriteBatch bad;
  bad.put("t", "ok-key", "v");
  bad.create_tree("");  // invalid in every replica alike
  ApplyOutcome out = sm->apply(3, bad.encode());
  EXPECT_FALSE(out.retry);
  EXPECT_TRUE(out.status.is_invalid_argument()) << out.status.to_string();
  EXPECT_EQ(sm->applied_index(), 3u);
  ApplyOutcome garbage = sm->apply(4, std::string("\x07zz", 3));
  EXPECT_FALSE(garbage.retry);
  EXPECT_TRUE(garbage.status.is_invalid_argument());
  auto view = sm->begin_view();
  ASSERT_TRUE(view.is_ok());
  EXPECT_EQ(view->applied_index, 4u);
  auto tree = view->txn.open_tree("t");
  ASSERT_TRUE(tree.is_ok());
  EXPECT_TRUE(view->txn.get(*tree, "ok-key").status().is_not_found());
}

}  // namespace
}  // namespace ordo::replica
