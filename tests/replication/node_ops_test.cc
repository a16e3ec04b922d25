// ordo-node's conditional writes, previous values, range deletes, watch and
// /metrics: the wire format of the new ops, then ordo-node processes
// (LocalCluster) through the client library, the command line and HTTP.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "client.h"
#include "local_cluster.h"
#include "node_cli_run.h"
#include "ordo/sys/child_process.h"
#include "ordo/sys/ports.h"
#include "ordo/sys/socket.h"
#include "protocol.h"
#include "temp_dir.h"

namespace ordo::node {
namespace {

using namespace std::chrono_literals;
using replica::ReadMode;
using replica::WriteBatch;

// ---- wire format ----

std::vector<Request> new_requests() {
  std::vector<Request> out;
  Request r;
  r.op = Op::kDelRange;
  r.tree = "t";
  r.key = std::string("a\0", 2);
  r.end = "zz";
  out.push_back(r);
  r = {};
  r.op = Op::kWatch;
  r.tree = "only";
  r.from_index = 1ull << 40;
  r.from_offset = 7;
  r.limit = 100;
  r.wait_ms = 2500;
  out.push_back(r);
  r = {};
  r.op = Op::kWatch;
  r.all_trees = true;
  out.push_back(r);
  return out;
}

TEST(NodeOpsProtocolTest, DelRangeAndWatchRoundTripAndTruncationsFail) {
  for (const Request& r : new_requests()) {
    SCOPED_TRACE(op_name(r.op));
    const std::string body = encode_request(r);
    auto d = decode_request(body);
    ASSERT_TRUE(d.is_ok()) << d.status().to_string();
    EXPECT_EQ(d->op, r.op);
    EXPECT_EQ(d->tree, r.tree);
    EXPECT_EQ(d->key, r.key);
    EXPECT_EQ(d->end, r.end);
    EXPECT_EQ(d->all_trees, r.all_trees);
    EXPECT_EQ(d->from_index, r.from_index);
    EXPECT_EQ(d->from_offset, r.from_offset);
    EXPECT_EQ(d->limit, r.limit);
    EXPECT_EQ(d->wait_ms, r.wait_ms);
    for (size_t n = 1; n < body.size(); ++n) {
      EXPECT_TRUE(decode_request(body.substr(0, n)).status().is_invalid_argument()) << n;
    }
    EXPECT_TRUE(decode_request(body + "x").status().is_invalid_argument());
  }
  Request bad;
  bad.op = Op::kWatch;
  std::string body = encode_request(bad);
  body[1] = 4;  // an unknown flag
  auto d = decode_request(body);
  ASSERT_TRUE(d.status().is_invalid_argument());
  EXPECT_NE(d.status().message().find("watch flags"), std::string::npos);
}

TEST(NodeOpsProtocolTest, WatchReplyRoundTripsAndBadEntriesAreErrors) {
  replica::WatchResult w;
  w.next_index = 99;
  w.next_offset = 3;
  w.changes.push_back({5, WriteBatch::OpKind::kPut, "t", std::string("k\0", 2), "v"});
  w.changes.push_back({5, WriteBatch::OpKind::kDelRange, "", "a", "b"});
  w.changes.push_back({300, WriteBatch::OpKind::kDropTree, "gone", "", ""});
  WireReply r = watch_reply(w);
  auto wire = decode_reply(encode_reply(r));
  ASSERT_TRUE(wire.is_ok());
  auto back = parse_watch_reply(wire->index, wire->value, wire->entries);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->next_index, 99u);
  EXPECT_EQ(back->next_offset, 3u);
  ASSERT_EQ(back->changes.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back->changes[i].index, w.changes[i].index);
    EXPECT_EQ(back->changes[i].kind, w.changes[i].kind);
    EXPECT_EQ(back->changes[i].tree, w.changes[i].tree);
    EXPECT_EQ(back->changes[i].key, w.changes[i].key);
    EXPECT_EQ(back->changes[i].value, w.changes[i].value);
  }
  auto entries = wire->entries;
  entries[0].first[1] = 9;  // an unknown kind
  EXPECT_TRUE(parse_watch_reply(1, "0", entries).status().is_invalid_argument());
  entries = wire->entries;
  entries[2].first.resize(2);  // the tree's length past the end
  EXPECT_TRUE(parse_watch_reply(1, "0", entries).status().is_invalid_argument());
  EXPECT_TRUE(parse_watch_reply(1, "x", wire->entries).status().is_invalid_argument());
}

// ---- processes ----

LocalClusterOptions ops_cluster_options(const std::string& root, int nodes,
                                        std::vector<std::string> extra = {}) {
  LocalClusterOptions o;
  o.binary = ORDO_NODE_BINARY;
  o.root = root;
  o.nodes = nodes;
  o.extra_args = {"--election-timeout-ms", "600", "--heartbeat-timeout-ms", "60"};
  o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
  o.start_timeout = 15s;
  return o;
}

int64_t counter_of(const Reply& r) { return r.ok() ? std::stoll(r.value) : 0; }

// Threads increment one counter with compare-and-set batches through the
// client library: every acknowledged increment is in the final value.
TEST(NodeOpsClusterTest, CompareAndSetIncrementsLoseNoUpdate) {
  testing::TempDir dir;
  LocalCluster cluster(ops_cluster_options(dir.path(), 3));
  ASSERT_TRUE(cluster.start().is_ok());
  constexpr int kThreads = 4;
  constexpr int kIncrements = 15;
  std::atomic<int> acknowledged{0};
  std::atomic<int> unknown{0};
  std::atomic<int> conflicts{0};
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Client c(cluster.addresses(), 5s);
      // Each thread starts at another node: reads and redirects both work.
      c.connect_to(cluster.address(1 + t % 3));
      int done = 0;
      for (int attempt = 0; done < kIncrements && attempt < 2000; ++attempt) {
        Reply now = c.get("", "counter", ReadMode::kLinearizable);
        if (!now.ok() && now.code != Reply::Code::kNotFound) continue;
        WriteBatch b;
        if (now.ok()) {
          b.check_value("", "counter", now.value);
        } else {
          b.check_absent("", "counter");
        }
        b.put("", "counter", std::to_string(counter_of(now) + 1));
        Reply w = c.batch(b);
        if (w.ok()) {
          ++done;
          ++acknowledged;
        } else if (w.code == Reply::Code::kCompareFailed) {
          ++conflicts;
        } else if (w.code == Reply::Code::kUnknown) {
          ++unknown;
          ++done;  // it may have counted
        }
      }
      if (done < kIncrements) failed = true;
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_FALSE(failed.load());
  Client c(cluster.addresses(), 5s);
  Reply final_value = c.get("", "counter", ReadMode::kLinearizable);
  ASSERT_TRUE(final_value.ok()) << final_value.message;
  std::printf("acknowledged %d unknown %d conflicts %d final %s\n", acknowledged.load(),
              unknown.load(), conflicts.load(), final_value.value.c_str());
  EXPECT_GE(counter_of(final_value), acknowledged.load());
  EXPECT_LE(counter_of(final_value), acknowledged.load() + unknown.load());
  // (conflicts > 0 shows the threads raced; the count is printed above.)

  // A failed guard, a range delete and a put asking for its previous value
  // besides: every node's file ends byte-identical (`ordo dump --all`).
  WriteBatch refused;
  refused.check_value("", "counter", "-1");
  refused.put("", "never", "x");
  Reply refused_reply = c.batch(refused);
  EXPECT_EQ(refused_reply.code, Reply::Code::kCompareFailed) << refused_reply.message;
  EXPECT_NE(refused_reply.message.find("check_value"), std::string::npos) << refused_reply.message;
  WriteBatch fill;
  for (int i = 0; i < 50; ++i) fill.put("r", "k" + std::to_string(100 + i), "v");
  ASSERT_TRUE(c.batch(fill).ok());
  ASSERT_TRUE(c.del_range("r", "k110", "k140").ok());
  WriteBatch prev;
  prev.put("r", "k100", "w");
  prev.set_return_prev(true);
  Reply last = c.batch(prev);
  ASSERT_TRUE(last.ok()) << last.message;
  ASSERT_EQ(last.entries.size(), 1u);
  EXPECT_EQ(last.entries[0].second, "v");
  EXPECT_EQ(last.value, "1");
  for (int i = 1; i <= cluster.size(); ++i) {
    Client one({cluster.address(i)}, 2s);
    const std::string want = "applied_index: ";
    uint64_t applied = 0;
    for (auto until = std::chrono::steady_clock::now() + 10s;
         applied < last.index && std::chrono::steady_clock::now() < until;) {
      Reply st = one.status();
      size_t at = st.value.find(want);
      if (st.ok() && at != std::string::npos)
        applied = std::stoull(st.value.substr(at + want.size()));
      if (applied < last.index) std::this_thread::sleep_for(20ms);
    }
    ASSERT_GE(applied, last.index) << "node " << i;
  }
#ifdef ORDO_TOOL_PATH
  std::vector<std::string> dumps;
  for (int i = 1; i <= cluster.size(); ++i) {
    ASSERT_TRUE(cluster.kill(i).is_ok());
    auto dumped =
        sys::run_child({ORDO_TOOL_PATH, "dump", "--all", cluster.data_dir(i) + "/data.ordo"});
    ASSERT_TRUE(dumped.is_ok()) << dumped.status().to_string();
    ASSERT_EQ(dumped->exit_code, 0) << dumped->err;
    dumps.push_back(dumped->out);
  }
  EXPECT_NE(dumps[0].find(" 6b313030\n"), std::string::npos);  // k100, in hex
  EXPECT_EQ(dumps[1], dumps[0]) << "node 2's dump differs from node 1's";
  EXPECT_EQ(dumps[2], dumps[0]) << "node 3's dump differs from node 1's";
#endif
}

class NodeOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<uint16_t> port = sys::pick_free_port_run(1);
    ASSERT_TRUE(port.is_ok());
    metrics_ = "127.0.0.1:" + std::to_string(*port);
    cluster_ = std::make_unique<LocalCluster>(ops_cluster_options(
        dir_.path(), 1, {"--watch-history-bytes", "4000", "--metrics-listen", metrics_}));
    Status s = cluster_->start();
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    node_ = cluster_->address(1);
  }

  CliRun run(const std::string& args, const std::string& input = "") {
    const std::string in_path = dir_.file("stdin");
    std::ofstream(in_path) << input;
    return run_node_cli(args, in_path);
  }

  // One HTTP exchange with the metrics port: `request` sent, everything
  // until the server closes returned.
  std::string http(const std::string& request) {
    auto fd = sys::connect_to(metrics_, sys::deadline_in(2s));
    EXPECT_TRUE(fd.is_ok()) << fd.status().to_string();
    if (!fd.is_ok()) return "";
    (void)sys::send_all(*fd, request, sys::deadline_in(2s));
    std::string out;
    char buf[4096];
    for (;;) {
      auto got = sys::recv_some(*fd, buf, sizeof buf, sys::deadline_in(5s));
      if (!got.is_ok()) break;
      out.append(buf, *got);
    }
    ::close(*fd);
    return out;
  }

  testing::TempDir dir_;
  std::unique_ptr<LocalCluster> cluster_;
  std::string node_;
  std::string metrics_;
};

TEST_F(NodeOpsTest, CommandLineGuardsPrevValuesRangeDeleteAndWatch) {
  ASSERT_EQ(run("put --node " + node_ + " --if-absent k one").code, 0);
  CliRun again = run("put --node " + node_ + " --if-absent k two");
  EXPECT_EQ(again.code, 3);
  EXPECT_EQ(again.err.rfind("compare-failed: op 0 check_absent tree '' key 'k'", 0), 0u)
      << again.err;
  EXPECT_EQ(run("put --node " + node_ + " --if-value nope k two").code, 3);
  CliRun swap = run("put --node " + node_ + " --if-value one --prev k two");
  ASSERT_EQ(swap.code, 0) << swap.err;
  EXPECT_NE(swap.out.find("\nprev: one\n"), std::string::npos) << swap.out;
  CliRun del = run("del --node " + node_ + " --prev missing");
  ASSERT_EQ(del.code, 0) << del.err;
  EXPECT_NE(del.out.find("\nprev: absent\n"), std::string::npos) << del.out;

  CliRun batch = run("batch --node " + node_ + " --tree r",
                     "put a 1\nput b 2\nput c 3\nput d 4\ndelrange b d\nabsent x\n");
  ASSERT_EQ(batch.code, 0) << batch.err;
  EXPECT_EQ(run("scan --node " + node_ + " --tree r").out, "a\t1\nd\t4\n");
  CliRun refused = run("batch --node " + node_ + " --tree r", "check a 2\ndel a\n");
  EXPECT_EQ(refused.code, 3) << refused.err;
  EXPECT_EQ(run("batch --node " + node_, "delrange onlyone\n").code, 2);
  CliRun range = run("delrange --node " + node_ + " --tree r a b");
  ASSERT_EQ(range.code, 0) << range.err;
  EXPECT_EQ(run("scan --node " + node_ + " --tree r").out, "d\t4\n");

  // Every change so far: k one, k two, del missing, 4 puts and a range
  // delete, then the range delete of `delrange`.
  CliRun all = run("watch --node " + node_ + " --from 1 --max-changes 9 --wait-ms 200");
  ASSERT_EQ(all.code, 0) << all.err;
  std::vector<std::string> lines;
  std::istringstream in(all.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 9u) << all.out;
  EXPECT_NE(lines[0].find("\tput\t\tk\tone"), std::string::npos) << lines[0];
  EXPECT_NE(lines[2].find("\tdel\t\tmissing\t"), std::string::npos) << lines[2];
  EXPECT_NE(lines[7].find("\tdelrange\tr\tb\td"), std::string::npos) << lines[7];
  EXPECT_NE(lines[8].find("\tdelrange\tr\ta\tb"), std::string::npos) << lines[8];
  CliRun one_tree =
      run("watch --node " + node_ + " --from 1 --tree r --max-changes 1 --wait-ms 200");
  EXPECT_NE(one_tree.out.find("\tput\tr\ta\t1\n"), std::string::npos) << one_tree.out;
}

TEST_F(NodeOpsTest, WatchThroughTheClientLongPollsResumesAndSaysCompacted) {
  Client c({node_}, 5s);
  Reply first = c.put("", "w1", "v1");
  ASSERT_TRUE(first.ok());
  // A long poll from the next index wakes with the next write.
  Reply waited;
  std::thread watcher([&] {
    Client w({node_}, 5s);
    waited = w.watch(nullptr, first.index + 1, 0, 0, 8000);
  });
  std::this_thread::sleep_for(300ms);
  Reply second = c.put("", "w2", "v2");
  ASSERT_TRUE(second.ok());
  watcher.join();
  ASSERT_TRUE(waited.ok()) << waited.message;
  auto changes = parse_watch_reply(waited.index, waited.value, waited.entries);
  ASSERT_TRUE(changes.is_ok());
  ASSERT_EQ(changes->changes.size(), 1u);
  EXPECT_EQ(changes->changes[0].index, second.index);
  EXPECT_EQ(changes->changes[0].key, "w2");
  // Nothing newer: an empty ok reply when the wait ends.
  Reply idle = c.watch(nullptr, changes->next_index, 0, 0, 100);
  ASSERT_TRUE(idle.ok()) << idle.message;
  EXPECT_TRUE(idle.entries.empty());

  // Past the history's 4000 bytes the first entries are gone.
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(c.put("", "fill" + std::to_string(i), "x").ok());
  Reply gone = c.watch(nullptr, first.index, 0, 0, 0);
  EXPECT_EQ(gone.code, Reply::Code::kFailed);
  const uint64_t oldest = compacted_oldest(gone);
  EXPECT_GT(oldest, first.index) << gone.message;
  Reply resumed = c.watch(nullptr, oldest, 0, 0, 0);
  ASSERT_TRUE(resumed.ok()) << resumed.message;
  EXPECT_FALSE(resumed.entries.empty());
}

// "name{labels} value" or a comment, for every line.
void expect_exposition_format(const std::string& body) {
  static const std::regex kLine(
      R"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"]*",?)*\})? [-+0-9.eEInfa]+$)");
  std::istringstream in(body);
  int samples = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# ", 0) == 0) continue;
    EXPECT_TRUE(std::regex_match(line, kLine)) << "'" << line << "'";
    ++samples;
  }
  EXPECT_GT(samples, 10);
}

TEST_F(NodeOpsTest, MetricsAreServedAndGarbageIsRefused) {
  Client c({node_}, 5s);
  ASSERT_TRUE(c.put("", "m", "1").ok());
  ASSERT_TRUE(c.get("", "m", ReadMode::kLocal).ok());
  WriteBatch guarded;
  guarded.check_absent("", "m");
  guarded.put("", "m", "2");
  ASSERT_EQ(c.batch(guarded).code, Reply::Code::kCompareFailed);
  std::string reply = http("GET /metrics HTTP/1.0\r\n\r\n");
  ASSERT_EQ(reply.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << reply.substr(0, 200);
  EXPECT_NE(reply.find("Content-Type: text/plain; version=0.0.4"), std::string::npos);
  const std::string body = reply.substr(reply.find("\r\n\r\n") + 4);
  expect_exposition_format(body);
  for (const char* want :
       {"ordo_role{role=\"leader\"} 1", "ordo_term ", "ordo_applied_index ",
        "ordo_role{role=\"follower\"} 0", "ordo_last_log_index ", "ordo_snapshots_taken ",
        "ordo_requests_total{op=\"put\",code=\"ok\"} 1",
        "ordo_request_duration_seconds_count{op=\"put\"} 1",
        "ordo_request_duration_seconds_bucket{op=\"get\",le=\"+Inf\"} 1", "ordo_apply_error 0",
        "ordo_disk_wait 0", "ordo_install_error 0", "ordo_install_failures 0",
        "ordo_connections_accepted ", "ordo_tls_handshake_failures 0", "ordo_disk_errors 0",
        "ordo_raft_refused_connections 0"}) {
    EXPECT_NE(body.find(want), std::string::npos) << want << "\n" << body;
  }
  // The failed guard: its own reply code and counter, not an apply failure.
  for (const char* want : {"ordo_requests_total{op=\"batch\",code=\"compare-failed\"} 1",
                           "ordo_compare_failures_total 1", "ordo_apply_failures_total 0"}) {
    EXPECT_NE(body.find(want), std::string::npos) << want << "\n" << body;
  }

  EXPECT_EQ(http("GET /other HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.0 404", 0), 0u);
  EXPECT_EQ(http("POST /metrics HTTP/1.0\r\n\r\n").rfind("HTTP/1.0 405", 0), 0u);
  EXPECT_EQ(http("hello there\n\n").rfind("HTTP/1.0 400", 0), 0u);
  EXPECT_EQ(http(std::string(10000, 'A')).rfind("HTTP/1.0 431", 0), 0u);
  // Random bytes, a half request and a silent connection: none stops the server.
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int i = 0; i < 20; ++i) {
    std::string junk(1 + rng() % 3000, '\0');
    for (char& ch : junk) ch = static_cast<char>(rng());
    (void)http(junk + "\r\n\r\n");
  }
  {
    auto fd = sys::connect_to(metrics_, sys::deadline_in(2s));
    ASSERT_TRUE(fd.is_ok());
    (void)sys::send_all(*fd, "GET /metr", sys::deadline_in(1s));
    ::close(*fd);
  }
  EXPECT_EQ(http("GET /metrics?x=1 HTTP/1.0\r\n\r\n").rfind("HTTP/1.0 200", 0), 0u);
}

}  // namespace
}  // namespace ordo::node
