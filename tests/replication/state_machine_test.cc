// ReplicaStateMachine::apply_batch: entries applied in one commit, each with
// apply()'s outcome; a failed entry drops its own changes alone; replayed
// entries change nothing.
#include "state_machine.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ordo/replica.h"
#include "snapshot_record.h"
#include "temp_dir.h"

namespace ordo::replica {
namespace {

std::unique_ptr<ReplicaStateMachine> open_state_machine(const std::string& dir) {
  StateMachineOptions o;
  o.dir = dir;
  auto sm = ReplicaStateMachine::open(o);
  EXPECT_TRUE(sm.is_ok()) << sm.status().to_string();
  return sm.is_ok() ? std::move(*sm) : nullptr;
}

// The value of `key` in tree "t", or "<absent>".
std::string machine_value(ReplicaStateMachine& sm, const std::string& key) {
  Result<ReplicaStateMachine::View> view = sm.begin_view();
  EXPECT_TRUE(view.is_ok()) << view.status().to_string();
  if (!view.is_ok()) return "<error>";
  Result<Tree> tree = view->txn.open_tree("t");
  if (!tree.is_ok()) return "<absent>";
  Result<ByteView> v = view->txn.get(*tree, key);
  return v.is_ok() ? v->str() : "<absent>";
}

uint64_t machine_txn_id(ReplicaStateMachine& sm) {
  Result<ReplicaStateMachine::View> view = sm.begin_view();
  EXPECT_TRUE(view.is_ok());
  return view.is_ok() ? view->txn.txn_id() : 0;
}

TEST(StateMachine, BatchAppliesInOneCommitAndAFailedEntryDropsItsOwnChangesAlone) {
  ordo::testing::TempDir tmp;
  auto sm = open_state_machine(tmp.path());
  ASSERT_NE(sm, nullptr);
  WriteBatch first;
  first.put("t", "a", "1");
  first.put("t", "b", "1");
  // Its first put goes in, then its second is refused (the system tree):
  // the entry must leave nothing.
  WriteBatch failing;
  failing.put("t", "x", "never");
  failing.put(std::string(kSystemTree), "k", "never");
  // Its guard fails before any op runs.
  WriteBatch guarded;
  guarded.check_value("t", "a", "not 1");
  guarded.put("t", "y", "never");
  WriteBatch last;
  last.set_return_prev(true);
  last.put("t", "a", "2");
  last.del("t", "b");
  const uint64_t txn_before = machine_txn_id(*sm);
  // Index 3 is a barrier or a configuration entry: none comes here.
  std::vector<StateMachine::BatchEntry> batch;
  batch.push_back({1, first.encode()});
  batch.push_back({2, failing.encode()});
  batch.push_back({4, guarded.encode()});
  batch.push_back({5, last.encode()});
  ASSERT_TRUE(sm->apply_batch(batch).is_ok());

  EXPECT_FALSE(batch[0].outcome.retry);
  EXPECT_TRUE(batch[0].outcome.status.is_ok()) << batch[0].outcome.status.to_string();
  EXPECT_FALSE(batch[1].outcome.retry);
  EXPECT_TRUE(batch[1].outcome.status.is_invalid_argument()) << batch[1].outcome.status.to_string();
  // A failed guard has its own code, not InvalidArgument, and names itself.
  EXPECT_FALSE(batch[2].outcome.retry);
  EXPECT_TRUE(batch[2].outcome.status.is_compare_failed()) << batch[2].outcome.status.to_string();
  EXPECT_EQ(batch[2].outcome.status.to_string(),
            "CompareFailed: op 0 check_value tree 't' key 'a' does not hold (found a value of 1 "
            "bytes)");
  EXPECT_TRUE(batch[3].outcome.status.is_ok()) << batch[3].outcome.status.to_string();
  ASSERT_EQ(batch[3].outcome.prev.size(), 2u);
  EXPECT_EQ(batch[3].outcome.prev[0].value, "1");  // a, as entry 1 left it
  EXPECT_TRUE(batch[3].outcome.prev[1].found);     // b
  EXPECT_EQ(sm->applied_index(), 5u);
  EXPECT_EQ(machine_txn_id(*sm), txn_before + 1);  // one commit for the four
  EXPECT_EQ(machine_value(*sm, "a"), "2");
  EXPECT_EQ(machine_value(*sm, "b"), "<absent>");
  EXPECT_EQ(machine_value(*sm, "x"), "<absent>");
  EXPECT_EQ(machine_value(*sm, "y"), "<absent>");

  // The history has each entry once, the failed ones without changes.
  Result<WatchResult> changes = sm->history().read(nullptr, 1, 0, 100, 1 << 20, {});
  ASSERT_TRUE(changes.is_ok()) << changes.status().to_string();
  ASSERT_EQ(changes->changes.size(), 4u);
  EXPECT_EQ(changes->changes[0].index, 1u);
  EXPECT_EQ(changes->changes[1].index, 1u);
  EXPECT_EQ(changes->changes[2].index, 5u);
  EXPECT_EQ(changes->changes[3].index, 5u);

  // Entries the file holds already (a replay after a restart): done, with
  // nothing written; a new one among them applies.
  WriteBatch again;
  again.put("t", "a", "replayed");
  WriteBatch fresh;
  fresh.put("t", "c", "3");
  std::vector<StateMachine::BatchEntry> replay;
  replay.push_back({2, again.encode()});
  replay.push_back({5, again.encode()});
  ASSERT_TRUE(sm->apply_batch(replay).is_ok());
  EXPECT_TRUE(replay[0].outcome.status.is_ok());
  EXPECT_TRUE(replay[1].outcome.status.is_ok());
  EXPECT_EQ(machine_txn_id(*sm), txn_before + 1);  // no commit
  replay.push_back({6, fresh.encode()});
  ASSERT_TRUE(sm->apply_batch(replay).is_ok());
  EXPECT_EQ(machine_value(*sm, "a"), "2");
  EXPECT_EQ(machine_value(*sm, "c"), "3");
  EXPECT_EQ(sm->applied_index(), 6u);
  EXPECT_EQ(machine_txn_id(*sm), txn_before + 2);
}

TEST(StateMachine, BatchThatCannotApplyLeavesNothing) {
  ordo::testing::TempDir tmp;
  auto sm = open_state_machine(tmp.path());
  ASSERT_NE(sm, nullptr);
  WriteBatch b;
  b.put("t", "a", "1");
  std::vector<StateMachine::BatchEntry> batch;
  batch.push_back({1, b.encode()});
  ASSERT_TRUE(sm->apply_batch(batch).is_ok());
  // A snapshot past the file with no leader to fetch it from: an install is
  // pending, and nothing applies until it is done (an environment error).
  SnapshotRecord record;
  record.applied_index = 10;
  ASSERT_TRUE(sm->restore(record.encode(), "").is_ok());
  ASSERT_TRUE(sm->install_pending());
  WriteBatch c;
  c.put("t", "b", "2");
  std::vector<StateMachine::BatchEntry> more;
  more.push_back({2, c.encode()});
  more.push_back({3, b.encode()});
  const uint64_t txn_before = machine_txn_id(*sm);
  Status s = sm->apply_batch(more);
  EXPECT_TRUE(s.is_busy()) << s.to_string();
  EXPECT_EQ(sm->applied_index(), 1u);
  EXPECT_EQ(machine_value(*sm, "b"), "<absent>");
  EXPECT_EQ(machine_txn_id(*sm), txn_before);
}

}  // namespace
}  // namespace ordo::replica
