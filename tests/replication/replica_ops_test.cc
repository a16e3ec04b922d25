// Conditional batches, previous values, range deletes and the watch
// history on a three-replica cluster in one process.
#include <gtest/gtest.h>

#include <thread>

#include "cluster.h"
#include "watch_history.h"

namespace ordo::replica {
namespace {

using namespace testing_cluster;

// Every replica applied `index` and holds the same contents and changes.
void expect_identical(Cluster& c, uint64_t index) {
  const std::vector<uint64_t> ids = c.open_ids();
  for (uint64_t id : ids) ASSERT_TRUE(c.wait_applied(id, index)) << "replica " << id;
  Contents first = contents_of(c.at(ids[0]));
  const std::vector<Change> changes = applied_changes(c.at(ids[0]));
  for (uint64_t id : ids) {
    EXPECT_EQ(contents_of(c.at(id)), first) << "replica " << id;
    const std::vector<Change> mine = applied_changes(c.at(id));
    ASSERT_EQ(mine.size(), changes.size()) << "replica " << id;
    for (size_t i = 0; i < mine.size(); ++i) {
      EXPECT_EQ(mine[i].index, changes[i].index) << "replica " << id << " change " << i;
      EXPECT_EQ(mine[i].key, changes[i].key) << "replica " << id << " change " << i;
    }
  }
}

TEST(ReplicaOps, GuardsPassOrTheBatchAppliesNothingOnEveryReplica) {
  Cluster c(3);
  c.open_all();
  ASSERT_NE(c.wait_leader(), 0u);
  ASSERT_EQ(c.put("", "counter", "1").outcome, Outcome::kApplied);

  // All guards hold: applied.
  WriteBatch pass;
  pass.check_value("", "counter", "1");
  pass.check_absent("", "lock");
  pass.check_absent("no-such-tree", "k");
  pass.check_present("", "counter");
  pass.put("", "counter", "2");
  pass.put("", "lock", "me");
  WriteResult w = c.write(pass);
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();

  // The last guard fails: the puts before and after it change nothing.
  WriteBatch fail;
  fail.put("", "counter", "3");
  fail.check_value("", "counter", "2");
  fail.check_absent("", "lock");
  fail.put("other", "x", "y");
  w = c.write(fail);
  ASSERT_EQ(w.outcome, Outcome::kFailed);
  EXPECT_TRUE(w.status.is_compare_failed()) << w.status.to_string();
  EXPECT_NE(w.status.message().find("check_absent"), std::string::npos) << w.status.to_string();
  EXPECT_NE(w.status.message().find("'lock'"), std::string::npos) << w.status.to_string();

  // A stale expected value fails too; a later write still applies.
  WriteBatch stale;
  stale.check_value("", "counter", "1");
  stale.put("", "counter", "9");
  w = c.write(stale);
  EXPECT_EQ(w.outcome, Outcome::kFailed);
  EXPECT_TRUE(w.status.is_compare_failed()) << w.status.to_string();
  WriteBatch present;
  present.check_present("", "nothing-here");
  present.del("", "counter");
  EXPECT_TRUE(c.write(present).status.is_compare_failed());
  w = c.put("", "after", "z");
  ASSERT_EQ(w.outcome, Outcome::kApplied);

  expect_identical(c, w.index);
  Contents all = contents_of(c.at(c.wait_leader()));
  EXPECT_EQ(all[""]["counter"], "2");
  EXPECT_EQ(all[""]["lock"], "me");
  EXPECT_EQ(all.count("other"), 0u);
}

TEST(ReplicaOps, PrevValuesComeBackInOpOrder) {
  Cluster c(3);
  c.open_all();
  ASSERT_NE(c.wait_leader(), 0u);
  ASSERT_EQ(c.put("t", "a", "old-a").outcome, Outcome::kApplied);
  WriteBatch b;
  b.put("t", "a", "new-a");
  b.put("t", "a", "newer-a");
  b.del("t", "missing");
  b.put("u", "fresh", "v");
  b.del("t", "a");
  b.set_return_prev(true);
  WriteResult w = c.write(b);
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
  ASSERT_EQ(w.prev.size(), 5u);
  EXPECT_TRUE(w.prev[0].found);
  EXPECT_EQ(w.prev[0].value, "old-a");
  EXPECT_EQ(w.prev[1].value, "new-a");
  EXPECT_FALSE(w.prev[2].found);
  EXPECT_EQ(w.prev[2].key, "missing");
  EXPECT_FALSE(w.prev[3].found);
  EXPECT_EQ(w.prev[3].tree, "u");
  EXPECT_EQ(w.prev[4].value, "newer-a");
  // Without the flag, none.
  w = c.put("t", "a", "x");
  ASSERT_EQ(w.outcome, Outcome::kApplied);
  EXPECT_TRUE(w.prev.empty());
  expect_identical(c, w.index);
}

TEST(ReplicaOps, RangeDeleteIsHalfOpen) {
  Cluster c(3);
  c.open_all();
  ASSERT_NE(c.wait_leader(), 0u);
  WriteBatch fill;
  for (char k = 'a'; k <= 'h'; ++k) fill.put("r", std::string(1, k), "v");
  ASSERT_EQ(c.write(fill).outcome, Outcome::kApplied);
  WriteBatch range;
  range.del_range("r", "b", "e");
  range.del_range("r", "x", "a");        // first >= end: nothing
  range.del_range("missing", "a", "z");  // no such tree: nothing
  WriteResult w = c.write(range);
  ASSERT_EQ(w.outcome, Outcome::kApplied) << w.status.to_string();
  expect_identical(c, w.index);
  Contents all = contents_of(c.at(c.wait_leader()));
  std::string left;
  for (const auto& [k, v] : all["r"]) left += k;
  EXPECT_EQ(left, "aefgh");
  EXPECT_EQ(all.count("missing"), 0u);
}

TEST(ReplicaOps, WatchFromAnIndexResumesAndWakesUp) {
  Cluster c(3);
  c.open_all();
  const uint64_t leader = c.wait_leader();
  ASSERT_NE(leader, 0u);
  WriteResult first = c.put("w", "k1", "v1");
  ASSERT_EQ(first.outcome, Outcome::kApplied);
  WriteBatch b;
  b.check_present("w", "k1");
  b.put("w", "k2", "v2");
  b.del("", "zz");
  b.del_range("w", "a", "b");
  WriteResult second = c.write(b);
  ASSERT_EQ(second.outcome, Outcome::kApplied);
  WriteBatch failing;
  failing.check_absent("w", "k1");
  failing.put("w", "never", "x");
  ASSERT_TRUE(c.write(failing).status.is_compare_failed());

  for (uint64_t id : c.open_ids()) {
    ASSERT_TRUE(c.wait_applied(id, second.index));
    Result<WatchResult> all = c.at(id).watch(nullptr, first.index, 0, 100, 1 << 20, 0ms);
    ASSERT_TRUE(all.is_ok()) << all.status().to_string();
    ASSERT_EQ(all->changes.size(), 4u) << "replica " << id;
    EXPECT_EQ(all->changes[0].index, first.index);
    EXPECT_EQ(all->changes[0].key, "k1");
    EXPECT_EQ(all->changes[1].index, second.index);
    EXPECT_EQ(all->changes[1].kind, WriteBatch::OpKind::kPut);
    EXPECT_EQ(all->changes[2].kind, WriteBatch::OpKind::kDel);
    EXPECT_EQ(all->changes[3].kind, WriteBatch::OpKind::kDelRange);
    EXPECT_EQ(all->changes[3].value, "b");
    EXPECT_GT(all->next_index, second.index);
  }
  Replica& l = c.at(leader);
  // One tree only; page by page with max_changes 1, resuming mid-entry.
  const std::string tree = "w";
  std::vector<std::string> keys;
  uint64_t at = first.index;
  uint32_t offset = 0;
  for (int i = 0; i < 10; ++i) {
    Result<WatchResult> page = l.watch(&tree, at, offset, 1, 1 << 20, 0ms);
    ASSERT_TRUE(page.is_ok()) << page.status().to_string();
    if (page->changes.empty()) break;
    keys.push_back(page->changes[0].key);
    at = page->next_index;
    offset = page->next_offset;
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"k1", "k2", "a"}));

  // A long poll returns as soon as a change is applied.
  Result<WatchResult> waited = Status::io_error("not run", 0);
  std::thread watcher([&] { waited = l.watch(nullptr, 0, 0, 100, 1 << 20, 20s); });
  std::this_thread::sleep_for(200ms);
  WriteResult third = c.put("", "late", "1");
  ASSERT_EQ(third.outcome, Outcome::kApplied);
  watcher.join();
  ASSERT_TRUE(waited.is_ok()) << waited.status().to_string();
  ASSERT_EQ(waited->changes.size(), 1u);
  EXPECT_EQ(waited->changes[0].index, third.index);
  EXPECT_EQ(waited->changes[0].key, "late");
  // Nothing new: an empty result when the wait ends, not an error.
  Result<WatchResult> idle = l.watch(nullptr, waited->next_index, 0, 100, 1 << 20, 50ms);
  ASSERT_TRUE(idle.is_ok());
  EXPECT_TRUE(idle->changes.empty());
  EXPECT_EQ(idle->next_index, waited->next_index);
}

TEST(ReplicaOps, WatchBehindTheHistoryIsCompacted) {
  Cluster c(1, [](ReplicaOptions& o) { o.watch_history_bytes = 1000; });
  c.open_all();
  ASSERT_EQ(c.wait_leader(), 1u);
  uint64_t first = 0;
  uint64_t last = 0;
  for (int i = 0; i < 40; ++i) {
    WriteResult w = c.put("", "key" + std::to_string(i), std::string(50, 'v'));
    ASSERT_EQ(w.outcome, Outcome::kApplied);
    if (first == 0) first = w.index;
    last = w.index;
  }
  Result<WatchResult> old = c.at(1).watch(nullptr, first, 0, 100, 1 << 20, 0ms);
  ASSERT_TRUE(old.status().is_not_found()) << old.status().to_string();
  const std::string prefix = "compacted: oldest index ";
  ASSERT_EQ(old.status().message().rfind(prefix, 0), 0u) << old.status().to_string();
  const uint64_t oldest = std::stoull(old.status().message().substr(prefix.size()));
  EXPECT_GT(oldest, first);
  EXPECT_LE(oldest, last);
  // From the oldest index on, the newest changes are all there.
  Result<WatchResult> rest = c.at(1).watch(nullptr, oldest, 0, 1000, 1 << 20, 0ms);
  ASSERT_TRUE(rest.is_ok()) << rest.status().to_string();
  ASSERT_FALSE(rest->changes.empty());
  EXPECT_EQ(rest->changes.back().index, last);
  EXPECT_EQ(rest->changes.back().key, "key39");
}

TEST(WatchHistory, PositionsFiltersResetAndClose) {
  WatchHistory h(1 << 20);
  h.reset(10);
  WriteBatch b;
  b.put("a", "k1", "v");
  b.check_absent("a", "zz");
  b.put("b", "k2", "v");
  b.put("a", "k3", "v");
  h.record(11, &b);
  h.record(12, nullptr);  // a failed batch: no changes
  // Guards make no change; offsets count every tree's changes.
  Result<WatchResult> r = h.read(nullptr, 11, 0, 2, 1 << 20, 0ms);
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->changes.size(), 2u);
  EXPECT_EQ(r->changes[1].key, "k2");
  EXPECT_EQ(r->next_index, 11u);
  EXPECT_EQ(r->next_offset, 2u);
  const std::string a = "a";
  r = h.read(&a, 11, 1, 10, 1 << 20, 0ms);
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->changes.size(), 1u);
  EXPECT_EQ(r->changes[0].key, "k3");
  EXPECT_EQ(r->next_index, 13u);
  EXPECT_EQ(r->next_offset, 0u);
  // Older than the history: compacted, naming where it starts.
  Result<WatchResult> old = h.read(nullptr, 10, 0, 10, 1 << 20, 0ms);
  EXPECT_TRUE(old.status().is_not_found());
  EXPECT_EQ(old.status().message(), "compacted: oldest index 11");
  // A reset (an install) forgets everything before.
  h.reset(20);
  EXPECT_EQ(h.read(nullptr, 13, 0, 10, 1 << 20, 0ms).status().message(),
            "compacted: oldest index 21");
  // close() ends a wait at once.
  std::thread closer([&] {
    std::this_thread::sleep_for(100ms);
    h.close();
  });
  Result<WatchResult> waited = h.read(nullptr, 0, 0, 10, 1 << 20, 30s);
  closer.join();
  EXPECT_TRUE(waited.status().is_io_error()) << waited.status().to_string();
}

TEST(WatchHistory, ByteLimitCutsBeforeTheChangeThatWouldPassIt) {
  WatchHistory h(1 << 20);
  h.reset(0);
  WriteBatch b;
  b.put("", "a", "12");                   // 3 bytes
  b.put("", "b", "34");                   // 3 bytes
  b.put("", "c", std::string(100, 'x'));  // 101 bytes
  h.record(1, &b);
  Result<WatchResult> r = h.read(nullptr, 1, 0, 100, 5, 0ms);
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->changes.size(), 1u);
  EXPECT_EQ(r->next_offset, 1u);
  r = h.read(nullptr, 1, 1, 100, 6, 0ms);
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->changes.size(), 1u);
  EXPECT_EQ(r->changes[0].key, "b");
  // A change over the limit comes alone.
  r = h.read(nullptr, 1, 2, 100, 5, 0ms);
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->changes.size(), 1u);
  EXPECT_EQ(r->changes[0].key, "c");
  EXPECT_EQ(r->next_index, 2u);
}

TEST(WatchHistory, ZeroBytesKeepsNothing) {
  WatchHistory h(0);
  h.reset(0);
  WriteBatch b;
  b.put("", "k", "v");
  h.record(1, &b);
  EXPECT_EQ(h.read(nullptr, 1, 0, 10, 1 << 20, 0ms).status().message(),
            "compacted: oldest index 2");
  Result<WatchResult> next = h.read(nullptr, 2, 0, 10, 1 << 20, 0ms);
  ASSERT_TRUE(next.is_ok());
  EXPECT_TRUE(next->changes.empty());
}

}  // namespace
}  // namespace ordo::replica
