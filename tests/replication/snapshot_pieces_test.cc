// The snapshot pieces alone: the record codec, copy digests and checks, the
// snapshot server and fetch, a restore that must refuse a damaged or old
// copy, and the install left pending at startup.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <thread>

#include "applied_index.h"
#include "cluster.h"
#include "copy_verify.h"
#include "ordo/replica.h"
#include "ordo/sys/address.h"
#include "ordo/sys/node_ports.h"
#include "ordo/sys/tls.h"
#include "snapshot_fetch.h"
#include "snapshot_record.h"
#include "snapshot_server.h"
#include "state_machine.h"
#include "temp_dir.h"
#include "tls_test_certs.h"

namespace ordo::replica {
namespace {

using ordo::testing::TempDir;

// The first tree page of a new file: after the meta pages and the log area
// (docs/FORMAT.md; 4 KiB pages, the default 4 MiB log).
constexpr uint64_t kFirstTreePage = 2 + (4 << 20) / 4096;

// Flips byte 100 of every page of the open file from kFirstTreePage on, so
// that pages in use are damaged whichever they are.
void damage_fd(int fd) {
  struct stat st;
  ASSERT_EQ(::fstat(fd, &st), 0);
  for (uint64_t at = kFirstTreePage * 4096 + 100; at < static_cast<uint64_t>(st.st_size);
       at += 4096) {
    char c = 0;
    ASSERT_EQ(::pread(fd, &c, 1, static_cast<off_t>(at)), 1);
    c = static_cast<char>(c ^ 0x5a);
    ASSERT_EQ(::pwrite(fd, &c, 1, static_cast<off_t>(at)), 1);
  }
}

void damage(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  damage_fd(fd);
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
      b.put("t", "key" + std::to_string(e) + "-" + std::to_string(i),
            std::string(100, 'a' + e % 26));
    }
    ApplyOutcome out = (*sm)->apply(static_cast<uint64_t>(e), b.encode());
    EXPECT_FALSE(out.retry);
    EXPECT_TRUE(out.status.is_ok()) << out.status.to_string();
  }
  return std::move(*sm);
}

// A copy of `sm`'s database in the file `path`; its applied index.
uint64_t copy_into(ReplicaStateMachine& sm, const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  EXPECT_GE(fd, 0);
  Result<uint64_t> applied = sm.make_copy(fd);
  ::close(fd);
  EXPECT_TRUE(applied.is_ok()) << applied.status().to_string();
  return applied.is_ok() ? *applied : 0;
}

// Files in `dir` (copies in transit must not stay behind).
// True once `done` holds, polled for up to 5 s: a server thread counts a
// copy after its last byte went out, which the client may see first.
bool eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++n;
  }
  return n;
}

// A snapshot server on a free port pair (Raft port R, copies on R + 1)
// serving `sm`'s database, optionally through `tamper` (applied to each copy
// after it is made).
struct ServedMachine {
  std::unique_ptr<SnapshotServer> server;
  std::string raft_address;
};
ServedMachine serve(ReplicaStateMachine& sm, std::function<void(int)> tamper = {},
                    std::shared_ptr<const sys::TlsContext> tls = nullptr,
                    ClusterIdSource cluster_id = {}) {
  const uint16_t port = testing_cluster::free_raft_port();
  ServedMachine out;
  out.raft_address = "127.0.0.1:" + std::to_string(port);
  auto server = SnapshotServer::start(
      sys::HostPort{"127.0.0.1", static_cast<uint16_t>(port + sys::kSnapshotAfterRaft)},
      sm.copies_dir(),
      [&sm, tamper](int fd) -> Result<uint64_t> {
        Result<uint64_t> applied = sm.make_copy(fd);
        if (applied.is_ok() && tamper) tamper(fd);
        return applied;
      },
      std::move(cluster_id), std::move(tls));
  EXPECT_TRUE(server.is_ok()) << server.status().to_string();
  if (server.is_ok()) out.server = std::move(*server);
  return out;
}

TEST(SnapshotRecord, RoundTripAndRejects) {
  SnapshotRecord r{1234, cluster_id_of("", {{1, "127.0.0.1:7001", true}})};
  std::string bytes = r.encode();
  EXPECT_EQ(bytes.size(), 8u + 4u + 8u + 16u);
  Result<SnapshotRecord> d = SnapshotRecord::decode(bytes);
  ASSERT_TRUE(d.is_ok()) << d.status().to_string();
  EXPECT_EQ(d->applied_index, 1234u);
  EXPECT_EQ(d->cluster_id, r.cluster_id);
  // Version 2 (no cluster id) still reads, with the id unknown.
  std::string v2 = bytes.substr(0, 8 + 4 + 8);
  v2[11] = 2;
  Result<SnapshotRecord> old = SnapshotRecord::decode(v2);
  ASSERT_TRUE(old.is_ok()) << old.status().to_string();
  EXPECT_EQ(old->applied_index, 1234u);
  EXPECT_FALSE(old->cluster_id.known());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_TRUE(
        SnapshotRecord::decode(std::string_view(bytes.data(), n)).status().is_invalid_argument())
        << n;
  }
  EXPECT_TRUE(SnapshotRecord::decode(bytes + "x").status().is_invalid_argument());
  // Version 1 (a record naming a kept copy) is not read.
  std::string v1 = bytes;
  v1[11] = 1;
  EXPECT_TRUE(SnapshotRecord::decode(v1).status().is_invalid_argument());
}

// A snapshot is the record of the file's applied index; it copies nothing.
TEST(StateMachine, SnapshotRecordsTheAppliedIndexAndCopiesNothing) {
  TempDir tmp;
  auto sm = filled_machine(tmp.path(), 30);
  Result<std::string> rec_bytes = sm->snapshot();
  ASSERT_TRUE(rec_bytes.is_ok()) << rec_bytes.status().to_string();
  Result<SnapshotRecord> rec = SnapshotRecord::decode(*rec_bytes);
  ASSERT_TRUE(rec.is_ok());
  EXPECT_EQ(rec->applied_index, 30u);
  EXPECT_EQ(sm->snapshot_index(), 30u);
  EXPECT_EQ(sm->snapshots_taken(), 1u);
  EXPECT_EQ(files_in(sm->copies_dir()), 0u);
}

TEST(CopyVerify, DamagedCopyIsRejected) {
  TempDir tmp;
  auto sm = filled_machine(tmp.path(), 30);
  const std::string path = tmp.file("copy.ordo");
  EXPECT_EQ(copy_into(*sm, path), 30u);
  Result<FileDigest> digest = digest_file(path);
  ASSERT_TRUE(digest.is_ok());
  ASSERT_TRUE(verify_copy(path, digest->size_bytes, digest->xxh3).is_ok());
  ASSERT_TRUE(check_copy(path).is_ok());

  EXPECT_TRUE(verify_copy(path, digest->size_bytes + 1, digest->xxh3).is_corruption());
  // Damaged pages inside the copy: the digest and the page check both see them.
  damage(path);
  EXPECT_TRUE(verify_copy(path, digest->size_bytes, digest->xxh3).is_corruption());
  EXPECT_FALSE(check_copy(path).is_ok());
  EXPECT_TRUE(verify_copy(tmp.file("missing"), 1, 1).is_not_found());
}

// A context of the certificate `who` (make_test_certs in `certs`), or null
// (reported).
std::shared_ptr<sys::TlsContext> tls_context(TempDir& certs, const std::string& who,
                                             sys::TlsRole role) {
  sys::TlsConfig c;
  c.cert_file = certs.file(who + ".pem");
  c.key_file = certs.file(who + ".key");
  c.ca_file = certs.file("ca.pem");
  Result<std::shared_ptr<sys::TlsContext>> ctx = sys::TlsContext::create(c, role);
  EXPECT_TRUE(ctx.is_ok()) << ctx.status().to_string();
  return ctx.is_ok() ? *ctx : nullptr;
}

// Both ends with TLS: the copy arrives whole; a fetcher without TLS, or
// with a certificate another CA signed, gets none.
TEST(SnapshotServer, ServesCopiesOverTlsToVerifiedPeersOnly) {
  TempDir tmp;
  ASSERT_TRUE(ordo::test::make_test_certs(tmp.path()).is_ok());
  auto context = [&](const std::string& who, sys::TlsRole role) {
    return tls_context(tmp, who, role);
  };
  auto sm = filled_machine(tmp.path(), 7);
  ServedMachine served = serve(*sm, {}, context("node", sys::TlsRole::kServer));
  ASSERT_NE(served.server, nullptr);
  const sys::HostPort at = *sys::parse_address(*snapshot_address(served.raft_address));
  const auto timeout = std::chrono::milliseconds(5000);

  auto fetcher = context("node", sys::TlsRole::kClient);
  Result<FetchedCopy> copy =
      fetch_copy(at, tmp.file("fetched"), timeout, ClusterId(), fetcher.get());
  ASSERT_TRUE(copy.is_ok()) << copy.status().to_string();
  EXPECT_EQ(copy->applied_index, 7u);
  EXPECT_TRUE(verify_copy(tmp.file("fetched"), copy->size_bytes, copy->xxh3).is_ok());

  Result<FetchedCopy> plain = fetch_copy(at, tmp.file("plain"), timeout);
  EXPECT_FALSE(plain.is_ok());
  auto stranger = context("stranger", sys::TlsRole::kClient);
  Result<FetchedCopy> refused =
      fetch_copy(at, tmp.file("refused"), timeout, ClusterId(), stranger.get());
  EXPECT_FALSE(refused.is_ok());
  EXPECT_FALSE(std::filesystem::exists(tmp.file("refused")));
  EXPECT_TRUE(eventually([&] { return served.server->copies_served() == 1u; }));
}

// Connections that never authenticate (silent, or a TLS handshake begun
// and left hanging; 3x the copy slots, and one a stranger's refused
// certificate) hold no copy slot: a member's fetch is served at once,
// plaintext and with TLS, and the refusals are counted.
TEST(SnapshotServer, UnauthenticatedConnectionsTakeNoSlotFromAMember) {
  TempDir tmp;
  ASSERT_TRUE(ordo::test::make_test_certs(tmp.path()).is_ok());
  auto context = [&](const std::string& who, sys::TlsRole role) {
    return tls_context(tmp, who, role);
  };
  auto sm = filled_machine(tmp.path(), 9);
  for (bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "plaintext");
    ServedMachine served = serve(*sm, {}, tls ? context("node", sys::TlsRole::kServer) : nullptr);
    ASSERT_NE(served.server, nullptr);
    const sys::HostPort at = *sys::parse_address(*snapshot_address(served.raft_address));
    std::vector<int> hogs;
    for (int i = 0; i < 12; ++i) {
      Result<int> fd = sys::connect_to(at, sys::deadline_in(std::chrono::milliseconds(2000)));
      ASSERT_TRUE(fd.is_ok()) << fd.status().to_string();
      // Half a TLS ClientHello: a record header that promises more.
      if (tls && i % 2 == 1) {
        ASSERT_TRUE(sys::send_all(*fd, std::string("\x16\x03\x01\x02\x00", 5),
                                  sys::deadline_in(std::chrono::milliseconds(1000)))
                        .is_ok());
      }
      hogs.push_back(*fd);
    }
    if (tls) {
      auto stranger = context("stranger", sys::TlsRole::kClient);
      EXPECT_FALSE(fetch_copy(at, tmp.file("stranger"), std::chrono::milliseconds(3000),
                              ClusterId(), stranger.get())
                       .is_ok());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // all of them accepted
    auto member = tls ? context("node", sys::TlsRole::kClient) : nullptr;
    Result<FetchedCopy> copy =
        fetch_copy(at, tmp.file(tls ? "tls" : "plain"), std::chrono::milliseconds(3000),
                   ClusterId(), member.get());
    ASSERT_TRUE(copy.is_ok()) << copy.status().to_string();
    EXPECT_EQ(copy->applied_index, 9u);
    EXPECT_EQ(served.server->copies_served(), 1u);
    if (tls) {
      EXPECT_GE(served.server->refused_connections(), 1u);  // the stranger
    }
    for (int fd : hogs) ::close(fd);
    EXPECT_TRUE(eventually([&] {
      return served.server->refused_connections() >= (tls ? 13u : 12u);
    })) << served.server->refused_connections();
  }
}

// More connections than may wait unauthenticated at once: the oldest are
// pushed out, so a steady stream of them starves nobody.
TEST(SnapshotServer, TheOldestUnauthenticatedConnectionsArePushedOut) {
  TempDir tmp;
  auto sm = filled_machine(tmp.path(), 4);
  ServedMachine served = serve(*sm);
  ASSERT_NE(served.server, nullptr);
  const sys::HostPort at = *sys::parse_address(*snapshot_address(served.raft_address));
  std::vector<int> hogs;
  for (int i = 0; i < 40; ++i) {
    Result<int> fd = sys::connect_to(at, sys::deadline_in(std::chrono::milliseconds(2000)));
    ASSERT_TRUE(fd.is_ok()) << fd.status().to_string();
    hogs.push_back(*fd);
  }
  // The first ones are closed by the server long before the 5 s deadline.
  pollfd p{hogs.front(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 3000), 1) << "the oldest connection was not pushed out";
  char c;
  EXPECT_LE(::recv(hogs.front(), &c, 1, 0), 0);
  Result<FetchedCopy> copy = fetch_copy(at, tmp.file("fetched"), std::chrono::milliseconds(3000));
  ASSERT_TRUE(copy.is_ok()) << copy.status().to_string();
  EXPECT_EQ(copy->applied_index, 4u);
  for (int fd : hogs) ::close(fd);
}

TEST(SnapshotServer, ServesAFreshCopyPerFetchAndKeepsNone) {
  TempDir tmp;
  auto sm = filled_machine(tmp.path(), 5);
  ServedMachine served = serve(*sm);
  ASSERT_NE(served.server, nullptr);
  Result<std::string> snap = snapshot_address(served.raft_address);
  ASSERT_TRUE(snap.is_ok());
  const sys::HostPort at = *sys::parse_address(*snap);
  const auto timeout = std::chrono::milliseconds(5000);

  Result<FetchedCopy> first = fetch_copy(at, tmp.file("fetched"), timeout);
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  EXPECT_EQ(first->applied_index, 5u);
  EXPECT_TRUE(verify_copy(tmp.file("fetched"), first->size_bytes, first->xxh3).is_ok());
  EXPECT_TRUE(check_copy(tmp.file("fetched")).is_ok());

  // Entries applied since: the next fetch copies them too.
  WriteBatch b;
  b.put("t", "later", "v");
  ASSERT_TRUE(sm->apply(6, b.encode()).status.is_ok());
  Result<FetchedCopy> second = fetch_copy(at, tmp.file("fetched2"), timeout);
  ASSERT_TRUE(second.is_ok()) << second.status().to_string();
  EXPECT_EQ(second->applied_index, 6u);
  EXPECT_TRUE(verify_copy(tmp.file("fetched2"), second->size_bytes, second->xxh3).is_ok());
  EXPECT_TRUE(eventually([&] { return served.server->copies_served() == 2u; }))
      << served.server->copies_served() << " copies served";
  EXPECT_TRUE(eventually([&] { return files_in(sm->copies_dir()) == 0u; }));

  // A request it does not know is answered "no copy".
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(at.port);
  ::inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  const char req[] = "../secret\n";
  ASSERT_EQ(::send(fd, req, sizeof req - 1, 0), static_cast<ssize_t>(sizeof req - 1));
  unsigned char header[8];
  ASSERT_EQ(::recv(fd, header, 8, MSG_WAITALL), 8);
  for (unsigned char c : header) EXPECT_EQ(c, 0xff);
  ::close(fd);
  EXPECT_EQ(served.server->copies_served(), 2u);
}

// A copy request naming another cluster is refused by the server, and a
// server naming another cluster is refused by the fetch.
TEST(SnapshotServer, CopyRequestOfAnotherClusterIsRefusedBothWays) {
  TempDir tmp;
  auto sm = filled_machine(tmp.path(), 5);
  const ClusterId ours = cluster_id_of("", {{1, "127.0.0.1:7001", true}});
  const ClusterId other = cluster_id_of("other", {{1, "127.0.0.1:7001", true}});
  ServedMachine served = serve(*sm, {}, nullptr, [ours] { return ours; });
  ASSERT_NE(served.server, nullptr);
  const sys::HostPort at = *sys::parse_address(*snapshot_address(served.raft_address));
  const auto timeout = std::chrono::milliseconds(5000);

  Result<FetchedCopy> wrong = fetch_copy(at, tmp.file("wrong"), timeout, other);
  ASSERT_TRUE(wrong.status().is_invalid_argument()) << wrong.status().to_string();
  EXPECT_NE(wrong.status().message().find("snapshot server is cluster " + ours.hex()),
            std::string::npos)
      << wrong.status().message();
  // A request naming no cluster is refused by a server that has one.
  EXPECT_TRUE(fetch_copy(at, tmp.file("none"), timeout).status().is_invalid_argument());
  EXPECT_FALSE(std::filesystem::exists(tmp.file("wrong")));
  Result<FetchedCopy> right = fetch_copy(at, tmp.file("right"), timeout, ours);
  ASSERT_TRUE(right.is_ok()) << right.status().to_string();
  EXPECT_EQ(right->applied_index, 5u);

  // The fetch side: a server of another cluster answering a request that
  // names no cluster.
  TempDir tmp2;
  auto sm2 = filled_machine(tmp2.path(), 3);
  ServedMachine foreign = serve(*sm2, {}, nullptr, [] { return ClusterId(); });
  ASSERT_NE(foreign.server, nullptr);
  const sys::HostPort at2 = *sys::parse_address(*snapshot_address(foreign.raft_address));
  Result<FetchedCopy> unknown_server = fetch_copy(at2, tmp.file("foreign"), timeout, ours);
  EXPECT_TRUE(unknown_server.status().is_invalid_argument()) << unknown_server.status().to_string();
  EXPECT_EQ(served.server->copies_served(), 1u);
}

TEST(SnapshotRestore, RecordOfAnotherClusterIsRefused) {
  TempDir tmp;
  const ClusterId ours = cluster_id_of("", {{1, "127.0.0.1:7001", true}});
  StateMachineOptions o;
  o.dir = tmp.path();
  o.cluster_id = [ours] { return ours; };
  Result<std::unique_ptr<ReplicaStateMachine>> sm = ReplicaStateMachine::open(o);
  ASSERT_TRUE(sm.is_ok()) << sm.status().to_string();
  const ClusterId other = cluster_id_of("other", {{1, "127.0.0.1:7001", true}});
  Status s = (*sm)->restore(SnapshotRecord{10, other}.encode(), "127.0.0.1:9");
  EXPECT_TRUE(s.is_invalid_argument()) << s.to_string();
  EXPECT_FALSE((*sm)->install_pending());
  Result<std::string> rec = (*sm)->snapshot();
  ASSERT_TRUE(rec.is_ok());
  EXPECT_EQ(SnapshotRecord::decode(*rec)->cluster_id, ours);
}

// A connection that trickles its request line (one byte a second) or sends
// nothing neither delays another fetch nor stays open past the request
// deadline (5 s).
TEST(SnapshotServer, SlowRequestsNeitherBlockFetchesNorStayOpen) {
  TempDir tmp;
  auto sm = filled_machine(tmp.path(), 5);
  ServedMachine served = serve(*sm);
  ASSERT_NE(served.server, nullptr);
  const sys::HostPort at = *sys::parse_address(*snapshot_address(served.raft_address));
  auto connect_raw = [&] {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(at.port);
    ::inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    return fd;
  };
  const auto start = std::chrono::steady_clock::now();
  int silent = connect_raw();
  int trickle = connect_raw();
  std::atomic<bool> closed_by_server{false};
  std::thread trickler([&] {
    const std::string line = std::string(kCopyRequest) + "\n";
    for (size_t i = 0; i + 1 < line.size() && i < 12; ++i) {
      if (::send(trickle, &line[i], 1, MSG_NOSIGNAL) != 1) break;
      pollfd p{trickle, POLLIN, 0};
      if (::poll(&p, 1, 1000) == 1) {
        char c;
        if (::recv(trickle, &c, 1, 0) <= 0) {
          closed_by_server.store(true);
          return;
        }
      }
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto fetch_start = std::chrono::steady_clock::now();
  Result<FetchedCopy> copy = fetch_copy(at, tmp.file("fetched"), std::chrono::milliseconds(5000));
  const auto fetch_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - fetch_start)
                            .count();
  ASSERT_TRUE(copy.is_ok()) << copy.status().to_string();
  EXPECT_EQ(copy->applied_index, 5u);
  EXPECT_LT(fetch_ms, 2000) << "the fetch waited for the slow connections";

  // The silent connection is closed at the deadline.
  pollfd p{silent, POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 8000), 1);
  char c;
  EXPECT_EQ(::recv(silent, &c, 1, 0), 0);
  trickler.join();
  EXPECT_TRUE(closed_by_server.load());
  const auto total_s =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_LE(total_s, 7);
  ::close(silent);
  ::close(trickle);
}

TEST(SnapshotRestore, DamagedCopyIsNotInstalled) {
  TempDir leader_dir, follower_dir;
  auto leader = filled_machine(leader_dir.path(), 40);
  Result<std::string> rec_bytes = leader->snapshot();
  ASSERT_TRUE(rec_bytes.is_ok());
  auto follower = filled_machine(follower_dir.path(), 3);
  {
    ServedMachine bad = serve(*leader, [](int fd) { damage_fd(fd); });
    Status s = follower->restore(*rec_bytes, bad.raft_address);
    EXPECT_TRUE(s.is_corruption()) << s.to_string();
  }
  EXPECT_EQ(follower->applied_index(), 3u);
  EXPECT_EQ(follower->snapshots_installed(), 0u);
  EXPECT_EQ(files_in(follower->copies_dir()), 0u);
  {
    auto view = follower->begin_view();
    ASSERT_TRUE(view.is_ok());
    EXPECT_EQ(view->applied_index, 3u);
  }

  // An honest server: the same record installs.
  ServedMachine good = serve(*leader);
  Status s = follower->restore(*rec_bytes, good.raft_address);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(follower->applied_index(), 40u);
  EXPECT_EQ(follower->snapshots_installed(), 1u);
  EXPECT_EQ(files_in(follower->copies_dir()), 0u);
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

// A copy older than the record (its server is behind it) is refused.
TEST(SnapshotRestore, CopyBehindTheRecordIsRefused) {
  TempDir leader_dir, follower_dir;
  auto leader = filled_machine(leader_dir.path(), 20);
  auto follower = filled_machine(follower_dir.path(), 2);
  ServedMachine served = serve(*leader);
  Status s = follower->restore(SnapshotRecord{25, {}}.encode(), served.raft_address);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.to_string().find("applied index 20"), std::string::npos) << s.to_string();
  EXPECT_EQ(follower->applied_index(), 2u);
  EXPECT_EQ(follower->snapshots_installed(), 0u);
  EXPECT_TRUE(follower->restore("garbage", served.raft_address).is_invalid_argument());
}

// At startup (no leader known) a file behind the record is no error: the
// install is pending, and finished from the first source that serves a copy
// at or past the record, before any apply.
TEST(SnapshotRestore, FileBehindAtStartupInstallsBeforeTheNextApply) {
  TempDir leader_dir, follower_dir;
  auto leader = filled_machine(leader_dir.path(), 25);
  auto follower = filled_machine(follower_dir.path(), 4);
  ASSERT_TRUE(follower->restore(SnapshotRecord{20, {}}.encode(), "").is_ok());
  EXPECT_TRUE(follower->install_pending());
  // Until then: the file's own applied index, no snapshot, no apply.
  EXPECT_EQ(follower->applied_index(), 4u);
  EXPECT_EQ(follower->begin_view()->applied_index, 4u);
  EXPECT_TRUE(follower->snapshot().status().is_busy());
  WriteBatch b;
  b.put("t", "next", "v");
  ApplyOutcome held = follower->apply(21, b.encode());
  EXPECT_TRUE(held.retry);
  EXPECT_EQ(follower->applied_index(), 4u);
  EXPECT_TRUE(follower->finish_install({}).is_not_found());
  EXPECT_TRUE(follower->install_pending());

  // A member that does not answer, then one that does.
  ServedMachine served = serve(*leader);
  const std::string nobody = "127.0.0.1:" + std::to_string(testing_cluster::free_raft_port());
  Status s = follower->finish_install({nobody, served.raft_address});
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_FALSE(follower->install_pending());
  EXPECT_EQ(follower->applied_index(), 25u);
  EXPECT_EQ(follower->snapshots_installed(), 1u);
  EXPECT_TRUE(follower->finish_install({}).is_ok());
  // Entries the copy holds are skipped; the next one applies.
  EXPECT_FALSE(follower->apply(21, b.encode()).retry);
  EXPECT_EQ(follower->applied_index(), 25u);
  ApplyOutcome next = follower->apply(26, b.encode());
  EXPECT_FALSE(next.retry);
  EXPECT_TRUE(next.status.is_ok());
  EXPECT_EQ(follower->applied_index(), 26u);
  Result<std::string> rec = follower->snapshot();
  ASSERT_TRUE(rec.is_ok());
  EXPECT_EQ(SnapshotRecord::decode(*rec)->applied_index, 26u);
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
