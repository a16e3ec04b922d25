// The Raft port's handshake messages (raft_handshake.h) and the cluster id
// (cluster_identity.h): encode and parse, every malformed hello refused, the
// peer checks, the MACs, the cluster file and the start-up decision.
#include "raft_handshake.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "cluster_identity.h"
#include "temp_dir.h"

namespace ordo::replica {
namespace {

using ordo::testing::TempDir;

std::vector<Member> three() {
  return {{1, "127.0.0.1:7001", true}, {2, "127.0.0.1:7011", true}, {3, "127.0.0.1:7021", true}};
}

Hello sample_hello() {
  Hello h;
  h.has_secret = true;
  h.cluster_id = cluster_id_of("", three());
  for (size_t i = 0; i < h.nonce.size(); ++i) h.nonce[i] = static_cast<uint8_t>(i * 7);
  h.id = 3;
  h.address = "127.0.0.1:7021";
  return h;
}

TEST(RaftHandshake, HelloRoundTrips) {
  const Hello h = sample_hello();
  const std::string bytes = encode_hello(h);
  ASSERT_EQ(bytes.size(), kHelloHeaderBytes + h.address.size());
  Result<size_t> n = hello_address_bytes(bytes);
  ASSERT_TRUE(n.is_ok()) << n.status().to_string();
  EXPECT_EQ(*n, h.address.size());
  Result<Hello> back = parse_hello(bytes);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_TRUE(back->has_secret);
  EXPECT_EQ(back->cluster_id, h.cluster_id);
  EXPECT_EQ(back->nonce, h.nonce);
  EXPECT_EQ(back->id, 3u);
  EXPECT_EQ(back->address, h.address);
}

TEST(RaftHandshake, EveryTruncationAndExtensionIsRefused) {
  const std::string bytes = encode_hello(sample_hello());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(parse_hello(std::string_view(bytes).substr(0, n)).is_ok()) << n;
  }
  EXPECT_FALSE(parse_hello(bytes + "x").is_ok());
}

TEST(RaftHandshake, MalformedHeadersAreRefusedWithTheirReason) {
  const std::string good = encode_hello(sample_hello());
  auto with = [&](size_t at, std::string_view patch) {
    std::string b = good;
    b.replace(at, patch.size(), patch);
    return b;
  };
  auto message = [](const std::string& b) { return parse_hello(b).status().message(); };
  EXPECT_NE(message(with(0, "XORDRAFT")).find("magic"), std::string::npos);
  EXPECT_NE(message(with(8, std::string("\0\0\0\2", 4))).find("version 2"), std::string::npos);
  EXPECT_NE(message(with(12, std::string("\0\0\0\3", 4))).find("unknown flags"), std::string::npos);
  // The address length: 0 and kMaxAddressBytes + 1 are out of bounds.
  EXPECT_NE(message(with(kHelloHeaderBytes - 4, std::string("\0\0\0\0", 4))).find("address of 0"),
            std::string::npos);
  EXPECT_NE(message(with(kHelloHeaderBytes - 4, std::string("\0\0\1\0", 4))).find("address of 256"),
            std::string::npos);
  EXPECT_NE(message(with(kHelloHeaderBytes - 4, std::string("\xff\xff\xff\xff", 4)))
                .find("address of 4294967295"),
            std::string::npos);
  // Member id 0 and a NUL inside the address.
  EXPECT_NE(message(with(kHelloHeaderBytes - 12, std::string(8, '\0'))).find("member id 0"),
            std::string::npos);
  EXPECT_NE(message(with(kHelloHeaderBytes + 2, std::string(1, '\0'))).find("NUL"),
            std::string::npos);
}

TEST(RaftHandshake, RandomBytesNeverParse) {
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int i = 0; i < 2000; ++i) {
    std::string b(rng() % 400, '\0');
    for (char& c : b) c = static_cast<char>(rng());
    // Without the magic nothing parses; with it, only a consistent length may.
    if (i % 2 == 0 && b.size() >= 8) b.replace(0, 8, kHandshakeMagic);
    Result<Hello> h = parse_hello(b);
    if (h.is_ok()) {
      EXPECT_EQ(encode_hello(*h), b);
    }
  }
}

TEST(RaftHandshake, PeerChecksNameTheMismatch) {
  const ClusterId ours = cluster_id_of("", three());
  Hello peer = sample_hello();
  EXPECT_TRUE(check_peer_hello(peer, ours, true, false).is_ok());
  EXPECT_NE(check_peer_hello(peer, ours, false, false).message().find("uses a cluster secret"),
            std::string::npos);
  peer.has_secret = false;
  EXPECT_NE(check_peer_hello(peer, ours, true, false).message().find("has no cluster secret"),
            std::string::npos);
  const ClusterId other = cluster_id_of("", {{3, "127.0.0.1:7021", true}});
  peer.cluster_id = other;
  const std::string msg = check_peer_hello(peer, ours, false, false).message();
  EXPECT_NE(msg.find(other.hex()), std::string::npos) << msg;
  EXPECT_NE(msg.find(ours.hex()), std::string::npos) << msg;
  // A replica without an id adopts one only when told to, never an unknown one.
  EXPECT_TRUE(check_peer_hello(peer, ClusterId(), false, true).is_ok());
  EXPECT_FALSE(check_peer_hello(peer, ClusterId(), false, false).is_ok());
  peer.cluster_id = ClusterId();
  EXPECT_FALSE(check_peer_hello(peer, ClusterId(), false, true).is_ok());
}

TEST(RaftHandshake, MacsBindTheSecretTheRoleAndBothHellos) {
  const std::string secret(32, 's');
  const std::string a = encode_hello(sample_hello());
  Hello other = sample_hello();
  other.nonce[0] ^= 1;
  const std::string b = encode_hello(other);
  const Mac m = handshake_mac(secret, MacRole::kAcceptor, a, b);
  auto bytes = [](const Mac& x) {
    return std::string(reinterpret_cast<const char*>(x.data()), 32);
  };
  EXPECT_TRUE(mac_matches(m, bytes(handshake_mac(secret, MacRole::kAcceptor, a, b))));
  EXPECT_FALSE(mac_matches(m, bytes(handshake_mac(secret, MacRole::kConnector, a, b))));
  EXPECT_FALSE(mac_matches(m, bytes(handshake_mac(secret, MacRole::kAcceptor, b, a))));
  EXPECT_FALSE(
      mac_matches(m, bytes(handshake_mac(std::string(32, 't'), MacRole::kAcceptor, a, b))));
  EXPECT_FALSE(mac_matches(m, bytes(m).substr(0, 31)));
  // Without a secret: zeros, which only zeros match.
  EXPECT_TRUE(mac_matches(handshake_mac("", MacRole::kAcceptor, a, b), std::string(32, '\0')));
}

TEST(ClusterIdentity, IdIsDeterministicOrderFreeAndTokenDependent) {
  std::vector<Member> shuffled = three();
  std::swap(shuffled[0], shuffled[2]);
  EXPECT_EQ(cluster_id_of("", three()), cluster_id_of("", shuffled));
  EXPECT_NE(cluster_id_of("", three()), cluster_id_of("prod", three()));
  EXPECT_NE(cluster_id_of("", three()), cluster_id_of("", {{3, "127.0.0.1:7021", true}}));
  EXPECT_EQ(peer_list_text(shuffled), "1=127.0.0.1:7001,2=127.0.0.1:7011,3=127.0.0.1:7021");
  const ClusterId id = cluster_id_of("", three());
  EXPECT_EQ(id.hex().size(), 32u);
  Result<ClusterId> back = parse_cluster_id(id.hex());
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(*back, id);
  EXPECT_FALSE(parse_cluster_id("00000000000000000000000000000000").is_ok());
  EXPECT_FALSE(parse_cluster_id("xyz").is_ok());
  EXPECT_FALSE(parse_cluster_id(id.hex() + "0").is_ok());
}

TEST(ClusterIdentity, FileRoundTripsAndADamagedOneIsCorruption) {
  TempDir tmp;
  Result<std::optional<ClusterFile>> none = read_cluster_file(tmp.path());
  ASSERT_TRUE(none.is_ok());
  EXPECT_FALSE(none->has_value());
  const ClusterFile f{cluster_id_of("", three()), peer_list_text(three())};
  ASSERT_TRUE(write_cluster_file(tmp.path(), f).is_ok());
  Result<std::optional<ClusterFile>> back = read_cluster_file(tmp.path());
  ASSERT_TRUE(back.is_ok() && back->has_value());
  EXPECT_EQ((*back)->id, f.id);
  EXPECT_EQ((*back)->peers, f.peers);
  // One changed digit of the id: the checksum no longer matches.
  const std::string path = tmp.file(std::string(kClusterFile));
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t at = text.find("id ") + 3;
  text[at] = text[at] == '0' ? '1' : '0';
  std::ofstream(path, std::ios::trunc) << text;
  Result<std::optional<ClusterFile>> bad = read_cluster_file(tmp.path());
  EXPECT_TRUE(bad.status().is_corruption()) << bad.status().to_string();
}

TEST(ClusterIdentity, StartWithOtherPeersIsRefusedNamingBothClusters) {
  TempDir tmp;
  ReplicaOptions o;
  o.id = 3;
  o.dir = tmp.path();
  o.bootstrap = three();
  std::vector<std::string> notices;
  auto notice = [&](const std::string& line) { notices.push_back(line); };
  Result<ClusterId> first = settle_cluster_id(o, false, notice);
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  EXPECT_EQ(*first, cluster_id_of("", three()));
  EXPECT_TRUE(notices.empty());
  // The same options again: the stored id.
  Result<ClusterId> again = settle_cluster_id(o, true, notice);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(*again, *first);

  ReplicaOptions alone = o;
  alone.bootstrap = {{3, "127.0.0.1:7021", true}};
  Result<ClusterId> refused = settle_cluster_id(alone, true, notice);
  ASSERT_TRUE(refused.status().is_invalid_argument());
  const std::string msg = refused.status().message();
  EXPECT_NE(msg.find(first->hex()), std::string::npos) << msg;
  EXPECT_NE(msg.find(cluster_id_of("", alone.bootstrap).hex()), std::string::npos) << msg;
  EXPECT_NE(msg.find(peer_list_text(three())), std::string::npos) << msg;
  EXPECT_NE(msg.find("peers 3=127.0.0.1:7021)"), std::string::npos) << msg;
  // Another token is another cluster too.
  ReplicaOptions token = o;
  token.cluster_token = "other";
  EXPECT_TRUE(settle_cluster_id(token, true, notice).status().is_invalid_argument());
  // A joining start (no peers) keeps the stored id; a pinned other id is refused.
  ReplicaOptions join = o;
  join.bootstrap.clear();
  EXPECT_EQ(*settle_cluster_id(join, true, notice), *first);
  join.cluster_id = cluster_id_of("x", three()).hex();
  EXPECT_TRUE(settle_cluster_id(join, true, notice).status().is_invalid_argument());
}

TEST(ClusterIdentity, OlderDirectoryGetsItsFileFromThePeersAndSaysSo) {
  TempDir tmp;
  ReplicaOptions o;
  o.id = 1;
  o.dir = tmp.path();
  o.bootstrap = three();
  std::vector<std::string> notices;
  Result<ClusterId> id =
      settle_cluster_id(o, true, [&](const std::string& line) { notices.push_back(line); });
  ASSERT_TRUE(id.is_ok());
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("had no cluster file"), std::string::npos) << notices[0];
  Result<std::optional<ClusterFile>> stored = read_cluster_file(tmp.path());
  ASSERT_TRUE(stored.is_ok() && stored->has_value());
  EXPECT_EQ((*stored)->id, *id);
  // A joining replica with no file and no pin: unknown, nothing written.
  TempDir fresh;
  ReplicaOptions join;
  join.id = 4;
  join.dir = fresh.path();
  Result<ClusterId> unknown = settle_cluster_id(join, false, [](const std::string&) {});
  ASSERT_TRUE(unknown.is_ok());
  EXPECT_FALSE(unknown->known());
  EXPECT_FALSE(std::filesystem::exists(fresh.file(std::string(kClusterFile))));
}

}  // namespace
}  // namespace ordo::replica
