// The etcd harness of `ordo-bench replicated` (EtcdCluster), its JSON-gateway
// client (EtcdClient over HttpClient), the targets' verdicts and the
// workload on a real 3-member etcd cluster on 127.0.0.1. The cluster tests
// are skipped when /usr/bin/etcd is missing (Debian package etcd-server).
#include "etcd_cluster.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>

#include "etcd_client.h"
#include "http_client.h"
#include "replicated_store.h"
#include "replicated_workload.h"
#include "study_targets.h"
#include "temp_dir.h"

namespace ordo::bench {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kTimeout{2000};

bool have_etcd() { return ::access("/usr/bin/etcd", X_OK) == 0; }

TEST(EtcdGateway, Base64RoundTripsEveryLengthAndByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (size_t n = 0; n <= bytes.size(); n += 7) {
    const std::string in = bytes.substr(0, n);
    const std::string text = base64_encode(in);
    EXPECT_EQ(text.size() % 4, 0u);
    const Result<std::string> out = base64_decode(text);
    ASSERT_TRUE(out.is_ok()) << out.status().to_string();
    EXPECT_EQ(*out, in) << "length " << n;
  }
  EXPECT_EQ(base64_encode("ordo"), "b3Jkbw==");
  EXPECT_EQ(base64_encode("key"), "a2V5");
  EXPECT_FALSE(base64_decode("abc").is_ok());
  EXPECT_FALSE(base64_decode("a=bc").is_ok());
  EXPECT_FALSE(base64_decode("ab!c").is_ok());
}

TEST(EtcdGateway, BadAddressIsInvalidArgumentAndClosedPortIsIOError) {
  HttpClient bad("localhost", kTimeout);
  const Result<HttpResponse> r = bad.post("/v3/kv/put", "{}");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << r.status().to_string();
  // Port 1 on loopback: nothing listens there in a test environment.
  EtcdClient closed("127.0.0.1:1", kTimeout);
  const Status s = closed.put("k", "v");
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.to_string();
}

TEST(EtcdGateway, TargetsParseFromTheCommandLine) {
  Result<StudyTarget> at_least = parse_target("puts_per_s_1>=2.5");
  ASSERT_TRUE(at_least.is_ok()) << at_least.status().to_string();
  EXPECT_EQ(at_least->figure, "puts_per_s_1");
  EXPECT_TRUE(at_least->at_least);
  EXPECT_EQ(at_least->bound, 2.5);
  Result<StudyTarget> at_most = parse_target("p50_us_16<=0.5");
  ASSERT_TRUE(at_most.is_ok()) << at_most.status().to_string();
  EXPECT_EQ(at_most->figure, "p50_us_16");
  EXPECT_FALSE(at_most->at_least);
  EXPECT_EQ(at_most->bound, 0.5);
  for (const char* bad :
       {"puts_per_s_1", ">=2", "p50_us_1<=", "p50_us_1<=0.5x", "p50_us_1=0.5", "p50_us_1>=nan"}) {
    Result<StudyTarget> r = parse_target(bad);
    ASSERT_FALSE(r.is_ok()) << bad;
    EXPECT_TRUE(r.status().is_invalid_argument()) << bad;
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status().to_string();
  }
}

TEST(EtcdGateway, TargetsAreMetOnlyWhenTheWholeIntervalIsBeyond) {
  const StudyTarget at_least{"puts_per_s_1", true, 2.0};
  EXPECT_EQ(judge(at_least, Summary{7, 2.5, 2.0, 3.0}), Verdict::kMet);
  EXPECT_EQ(judge(at_least, Summary{7, 2.5, 1.9, 3.0}), Verdict::kUndecided);
  EXPECT_EQ(judge(at_least, Summary{7, 1.5, 1.0, 1.99}), Verdict::kMissed);
  EXPECT_EQ(judge(at_least, Summary{}), Verdict::kNoData);
  const StudyTarget at_most{"p50_us_1", false, 0.5};
  EXPECT_EQ(judge(at_most, Summary{7, 0.3, 0.2, 0.5}), Verdict::kMet);
  EXPECT_EQ(judge(at_most, Summary{7, 0.45, 0.4, 0.6}), Verdict::kUndecided);
  EXPECT_EQ(judge(at_most, Summary{7, 0.8, 0.51, 0.9}), Verdict::kMissed);
}

TEST(EtcdCluster, ThreeMembersTakePutsThroughAnyMemberAndSurviveTheLeadersKill) {
  if (!have_etcd()) GTEST_SKIP() << "/usr/bin/etcd missing (Debian package etcd-server)";
  ordo::testing::TempDir dir;
  std::vector<pid_t> pids;
  {
    EtcdClusterOptions options;
    options.root = dir.path();
    EtcdCluster cluster(options);
    const Status started = cluster.start();
    ASSERT_TRUE(started.is_ok()) << started.to_string();
    ASSERT_EQ(cluster.size(), 3);
    for (int i = 1; i <= 3; ++i) {
      EXPECT_NE(cluster.client_address(i), "127.0.0.1:2379");
      pids.push_back(cluster.pid(i));
    }
    const int leader = cluster.leader(milliseconds(5000));
    ASSERT_GE(leader, 1);
    const int follower = leader % 3 + 1;

    // A put through each member is read back through another one.
    for (int i = 1; i <= 3; ++i) {
      EtcdClient writer(cluster.client_address(i), kTimeout);
      const std::string key = "key-" + std::to_string(i);
      const std::string value(100, static_cast<char>('a' + i));
      const Status put = writer.put(key, value);
      ASSERT_TRUE(put.is_ok()) << put.to_string();
      EtcdClient reader(cluster.client_address(i % 3 + 1), kTimeout);
      const Result<std::string> got = reader.get(key);
      ASSERT_TRUE(got.is_ok()) << got.status().to_string();
      EXPECT_EQ(*got, value);
    }
    // Many puts on one keep-alive connection, including binary bytes.
    EtcdClient one(cluster.client_address(follower), kTimeout);
    for (int i = 0; i < 50; ++i) {
      const std::string key = std::string("\0\xff", 2) + std::to_string(i);
      ASSERT_TRUE(one.put(key, std::string(i, '\n')).is_ok()) << i;
    }
    const Result<std::string> last = one.get(std::string("\0\xff", 2) + "49");
    ASSERT_TRUE(last.is_ok());
    EXPECT_EQ(*last, std::string(49, '\n'));
    EXPECT_EQ(one.get("missing").status().code(), Status::Code::kNotFound);
    const Result<EtcdMemberStatus> st = one.status();
    ASSERT_TRUE(st.is_ok()) << st.status().to_string();
    EXPECT_NE(st->member_id, 0u);
    EXPECT_FALSE(st->is_leader());

    // The leader killed: another member becomes leader and takes puts.
    ASSERT_TRUE(cluster.kill(leader).is_ok());
    EXPECT_EQ(cluster.pid(leader), 0);
    EXPECT_EQ(cluster.kill(leader).code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(cluster.kill(4).code(), Status::Code::kInvalidArgument);
    const int next = cluster.leader(milliseconds(10000));
    ASSERT_GE(next, 1);
    EXPECT_NE(next, leader);
    EtcdClient after(cluster.client_address(next), kTimeout);
    const Status put = after.put("after-kill", "v");
    EXPECT_TRUE(put.is_ok()) << put.to_string();
  }
  // The destructor killed and reaped every member.
  for (pid_t pid : pids) {
    EXPECT_EQ(::kill(pid, 0), -1) << pid;
    EXPECT_EQ(errno, ESRCH);
  }
}

// The workload on etcd, with TLS (mutual, on client and peer ports) and without.
class EtcdWorkload : public ::testing::TestWithParam<bool> {};

TEST_P(EtcdWorkload, GivesEveryFigure) {
  if (!have_etcd()) GTEST_SKIP() << "/usr/bin/etcd missing (Debian package etcd-server)";
  ordo::testing::TempDir dir;
  std::unique_ptr<ReplicatedStore> store =
      make_etcd_store("/usr/bin/etcd", dir.path(), 3, GetParam());
  const Status started = store->start();
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  ReplicatedConfig config;
  config.seconds = 0.3;
  config.warmup_seconds = 0.1;
  config.clients = {1, 4};
  config.steady_before_kill = milliseconds(200);
  const Result<nlohmann::ordered_json> result = run_replicated(*store, config);
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  const nlohmann::ordered_json& figures = (*result)["figures"];
  for (const char* name : {"puts_per_s_1", "p50_us_1", "p99_us_1", "puts_per_s_4", "p50_us_4",
                           "p99_us_4", "failover_ms"}) {
    ASSERT_TRUE(figures.contains(name)) << name << " in " << figures.dump();
    EXPECT_GT(figures[name].get<double>(), 0) << name;
  }
  EXPECT_LE(figures["p50_us_1"].get<double>(), figures["p99_us_1"].get<double>());
  const nlohmann::ordered_json& failover = (*result)["counts"]["failover"];
  EXPECT_NE(failover["killed_leader"], failover["new_leader"]);
  EXPECT_EQ(replicated_key(1, 2, 3).size(), kReplicatedKeyBytes);
  EXPECT_NE(replicated_key(1, 2, 3), replicated_key(1, 23, 0));
  // The settings recorded with the figures say whether TLS was on.
  EXPECT_EQ(store->settings().back().find("TLS") != std::string::npos, GetParam());
}

INSTANTIATE_TEST_SUITE_P(PlainAndTls, EtcdWorkload, ::testing::Bool());

}  // namespace
}  // namespace ordo::bench
