// The history checker of the fault tests (tests/util/linearizability.h):
// hand-built histories it must accept and ones it must flag, and seeded
// random sequential histories (linearizable by construction) with
// mutations that make them certainly not linearizable.
#include "linearizability.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace ordo::testing::history {
namespace {

uint64_t test_seed(uint64_t fallback) {
  const char* env = std::getenv("ORDO_TEST_SEED");
  uint64_t seed = env ? std::strtoull(env, nullptr, 10) : fallback;
  std::printf("seed %llu (set ORDO_TEST_SEED to replay)\n", static_cast<unsigned long long>(seed));
  return seed;
}

using V = std::optional<std::string>;

Operation make(int client, OpKind kind, V value, Outcome outcome, int64_t invoke, int64_t complete,
               const std::string& key = "k") {
  Operation op;
  op.client = client;
  op.key = key;
  op.kind = kind;
  op.value = std::move(value);
  op.outcome = outcome;
  op.invoke_ns = invoke;
  op.complete_ns = complete;
  return op;
}
Operation put(int c, const std::string& v, int64_t a, int64_t b, Outcome o = Outcome::kOk) {
  return make(c, OpKind::kPut, v, o, a, b);
}
Operation get(int c, V v, int64_t a, int64_t b) {
  return make(c, OpKind::kGet, v, Outcome::kOk, a, b);
}
Operation del(int c, int64_t a, int64_t b, Outcome o = Outcome::kOk) {
  return make(c, OpKind::kDel, std::nullopt, o, a, b);
}
Operation cas(int c, V expected, const std::string& v, bool swapped, int64_t a, int64_t b,
              Outcome o = Outcome::kOk) {
  Operation op = make(c, OpKind::kCas, v, o, a, b);
  op.expected = std::move(expected);
  op.swapped = swapped;
  return op;
}

bool linearizable(const std::vector<Operation>& ops) {
  KeyVerdict v = check_key("k", ops);
  EXPECT_FALSE(v.gave_up);
  return v.linearizable;
}

TEST(LinearizabilityTest, AcceptsSequentialAndConcurrentHistories) {
  EXPECT_TRUE(linearizable({}));
  EXPECT_TRUE(linearizable({get(1, std::nullopt, 0, 1)}));
  EXPECT_TRUE(linearizable(
      {put(1, "a", 0, 10), get(2, "a", 20, 30), del(1, 40, 50), get(2, std::nullopt, 60, 70)}));
  // A read overlapping a write may see the old value or the new one.
  EXPECT_TRUE(linearizable({put(1, "a", 0, 10), put(2, "b", 20, 40), get(3, "a", 25, 30)}));
  EXPECT_TRUE(linearizable({put(1, "a", 0, 10), put(2, "b", 20, 40), get(3, "b", 25, 30)}));
  // Two concurrent writes, seen in either order by later reads that agree.
  EXPECT_TRUE(linearizable(
      {put(1, "a", 0, 30), put(2, "b", 0, 30), get(3, "a", 40, 50), get(3, "a", 60, 70)}));
  EXPECT_TRUE(linearizable({put(1, "a", 0, 30), put(2, "b", 0, 30), get(3, "b", 40, 50)}));
  // A read may see a write that is still in flight, and later reads too.
  EXPECT_TRUE(linearizable({put(1, "a", 0, 100), get(2, "a", 10, 20), get(3, "a", 30, 40)}));
  // Operations touching at one instant count as concurrent.
  EXPECT_TRUE(linearizable({put(1, "a", 0, 10), get(2, std::nullopt, 10, 20)}));
}

TEST(LinearizabilityTest, UnknownWritesMayTakeEffectLateOrNever) {
  // Never: the reads never see it.
  EXPECT_TRUE(linearizable({put(1, "a", 0, 10), put(2, "b", 20, 30, Outcome::kUnknown),
                            get(3, "a", 40, 50), get(3, "a", 60, 70)}));
  // Long after its client gave up on it.
  EXPECT_TRUE(linearizable({put(1, "a", 0, 10), put(2, "b", 20, 30, Outcome::kUnknown),
                            get(3, "a", 40, 50), get(3, "b", 1000, 1010)}));
  EXPECT_TRUE(linearizable(
      {del(1, 0, 10, Outcome::kUnknown), put(2, "a", 20, 30), get(3, std::nullopt, 40, 50)}));
  // But not before its invoke.
  EXPECT_FALSE(linearizable({get(3, "b", 0, 10), put(2, "b", 20, 30, Outcome::kUnknown)}));
}

TEST(LinearizabilityTest, FlagsAStaleRead) {
  EXPECT_FALSE(linearizable({put(1, "a", 0, 10), put(2, "b", 20, 30), get(3, "a", 40, 50)}));
  EXPECT_FALSE(linearizable({put(1, "a", 0, 10), del(2, 20, 30), get(3, "a", 40, 50)}));
  EXPECT_FALSE(linearizable({put(1, "a", 0, 10), get(3, std::nullopt, 20, 30)}));
}

TEST(LinearizabilityTest, FlagsALostWrite) {
  // The final read after everything returns the value an acknowledged write replaced.
  std::vector<Operation> ops = {put(1, "a", 0, 10), put(2, "b", 20, 30), put(1, "c", 40, 50),
                                get(9, "b", 100, 110)};
  EXPECT_FALSE(linearizable(ops));
  std::vector<std::string> lost = lost_writes(ops, {{"k", V("b")}});
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_NE(lost[0].find("'c'"), std::string::npos) << lost[0];
  EXPECT_TRUE(lost_writes(ops, {{"k", V("c")}}).empty());
  EXPECT_EQ(lost_writes(ops, {{"k", std::nullopt}}).size(), 1u);
  EXPECT_EQ(lost_writes(ops, {{"k", V("never written")}}).size(), 1u);
}

TEST(LinearizabilityTest, LostWritesAllowsWhatMayBeLast) {
  // An unknown write may land after the acknowledged one.
  std::vector<Operation> ops = {put(1, "a", 0, 10, Outcome::kUnknown), put(2, "b", 20, 30)};
  EXPECT_TRUE(lost_writes(ops, {{"k", V("a")}}).empty());
  // Concurrent acknowledged writes: either may be last.
  ops = {put(1, "a", 0, 30), put(2, "b", 10, 20)};
  EXPECT_TRUE(lost_writes(ops, {{"k", V("a")}}).empty());
  EXPECT_TRUE(lost_writes(ops, {{"k", V("b")}}).empty());
  // A failed write is no producer, and keys without acknowledged writes are fine.
  ops = {put(1, "a", 0, 10), put(2, "b", 20, 30, Outcome::kFailed)};
  EXPECT_EQ(lost_writes(ops, {{"k", V("b")}}).size(), 1u);
  ops = {put(1, "a", 0, 10, Outcome::kFailed)};
  EXPECT_TRUE(lost_writes(ops, {{"k", std::nullopt}}).empty());
  // A del that is last leaves nothing.
  ops = {put(1, "a", 0, 10), del(1, 20, 30)};
  EXPECT_TRUE(lost_writes(ops, {{"k", std::nullopt}}).empty());
}

TEST(LinearizabilityTest, FlagsAReadOfAFailedWrite) {
  EXPECT_FALSE(linearizable(
      {put(1, "a", 0, 10), put(2, "b", 20, 30, Outcome::kFailed), get(3, "b", 40, 50)}));
  // The same history with the write unknown is fine.
  EXPECT_TRUE(linearizable(
      {put(1, "a", 0, 10), put(2, "b", 20, 30, Outcome::kUnknown), get(3, "b", 40, 50)}));
}

TEST(LinearizabilityTest, FlagsReadsThatReorderWrites) {
  // While b is being written, one client sees b and a later client a again.
  EXPECT_FALSE(linearizable(
      {put(1, "a", 0, 10), put(2, "b", 20, 100), get(3, "b", 30, 40), get(4, "a", 50, 60)}));
  // Two clients see two concurrent writes in opposite orders, one after the other.
  EXPECT_FALSE(linearizable({put(1, "a", 0, 100), put(2, "b", 0, 100), get(3, "a", 10, 20),
                             get(3, "b", 30, 40), get(4, "a", 50, 60)}));
  // Reads of a value that nobody wrote.
  EXPECT_FALSE(linearizable({put(1, "a", 0, 10), get(2, "z", 20, 30)}));
}

TEST(LinearizabilityTest, CasModel) {
  EXPECT_TRUE(linearizable({put(1, "a", 0, 10), cas(2, V("a"), "b", true, 20, 30),
                            cas(3, V("a"), "c", false, 40, 50), get(4, "b", 60, 70)}));
  EXPECT_TRUE(linearizable({cas(1, std::nullopt, "a", true, 0, 10), get(2, "a", 20, 30)}));
  // A swap that could not have matched.
  EXPECT_FALSE(linearizable({put(1, "a", 0, 10), cas(2, V("z"), "b", true, 20, 30)}));
  // A refusal while the register held the expected value.
  EXPECT_FALSE(linearizable({put(1, "a", 0, 10), cas(2, V("a"), "b", false, 20, 30)}));
  // An unknown cas takes effect only when it matches.
  EXPECT_TRUE(
      linearizable({put(1, "a", 0, 10), cas(2, V("a"), "b", false, 20, 30, Outcome::kUnknown),
                    get(3, "b", 40, 50)}));
  EXPECT_FALSE(
      linearizable({put(1, "a", 0, 10), cas(2, V("z"), "b", false, 20, 30, Outcome::kUnknown),
                    get(3, "b", 40, 50)}));
}

TEST(LinearizabilityTest, ChecksKeysSeparatelyAndReportsTheBadOnes) {
  std::vector<Operation> ops = {put(1, "a", 0, 10), get(2, "a", 20, 30)};
  Operation stale1 = make(1, OpKind::kPut, "x", Outcome::kOk, 0, 10, "bad");
  Operation stale2 = make(1, OpKind::kPut, "y", Outcome::kOk, 20, 30, "bad");
  Operation stale3 = make(2, OpKind::kGet, "x", Outcome::kOk, 40, 50, "bad");
  ops.push_back(stale1);
  ops.push_back(stale2);
  ops.push_back(stale3);
  CheckResult r = check_linearizable(ops);
  EXPECT_EQ(r.keys, 2u);
  EXPECT_EQ(r.operations, 5u);
  ASSERT_EQ(r.bad.size(), 1u);
  EXPECT_EQ(r.bad[0].key, "bad");
  EXPECT_NE(r.report().find("get bad -> 'x'"), std::string::npos) << r.report();
}

// A random history of one key: `clients` clients, each op linearized at a
// distinct instant inside its [invoke, complete], results from applying
// them in that order. Writes that took effect may be reported ok or
// unknown; writes that did not are reported failed or unknown.
std::vector<Operation> random_history(std::mt19937_64& rng, int ops_count) {
  std::vector<Operation> ops;
  V state;
  int64_t t = 0;
  for (int i = 0; i < ops_count; ++i) {
    t += 10 + static_cast<int64_t>(rng() % 10);
    const int64_t invoke = t - static_cast<int64_t>(rng() % 60);
    const int64_t complete = t + static_cast<int64_t>(rng() % 60);
    const int client = static_cast<int>(rng() % 8);
    const std::string value = "v" + std::to_string(i);
    switch (rng() % 6) {
      case 0:
      case 1:
        ops.push_back(get(client, state, invoke, complete));
        break;
      case 2:
        ops.push_back(put(client, value, invoke, complete));
        state = value;
        break;
      case 3:
        ops.push_back(put(client, value, invoke, complete, Outcome::kUnknown));
        state = value;
        break;
      case 4:
        // Did not take effect.
        ops.push_back(
            put(client, value, invoke, complete, rng() % 2 ? Outcome::kFailed : Outcome::kUnknown));
        break;
      case 5:
        ops.push_back(del(client, invoke, complete));
        state = std::nullopt;
        break;
    }
  }
  return ops;
}

TEST(LinearizabilityTest, RandomSequentialHistoriesAreLinearizable) {
  std::mt19937_64 rng(test_seed(7));
  for (int round = 0; round < 200; ++round) {
    std::vector<Operation> ops = random_history(rng, 20 + static_cast<int>(rng() % 130));
    KeyVerdict v = check_key("k", ops);
    ASSERT_TRUE(v.linearizable) << "round " << round << ": " << v.explanation;
  }
}

// Mutations that make a history certainly not linearizable: a read of a
// value nobody wrote, of a failed write, or of a value that two later
// acknowledged writes (one after the other) replaced before the read began.
TEST(LinearizabilityTest, MutatedHistoriesAreFlagged) {
  std::mt19937_64 rng(test_seed(8));
  int stale = 0, failed = 0, foreign = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<Operation> ops = random_history(rng, 20 + static_cast<int>(rng() % 130));
    std::vector<size_t> reads;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].kind == OpKind::kGet) reads.push_back(i);
    }
    if (reads.empty()) continue;
    Operation& read = ops[reads[rng() % reads.size()]];
    // Candidates for each mutation.
    std::vector<std::string> failed_values, stale_values;
    for (const Operation& w : ops) {
      if (w.kind != OpKind::kPut) continue;
      if (w.outcome == Outcome::kFailed) failed_values.push_back(*w.value);
      if (w.outcome != Outcome::kOk) continue;
      // w, then an acknowledged write after it, all before the read.
      for (const Operation& later : ops) {
        if ((later.kind == OpKind::kPut || later.kind == OpKind::kDel) &&
            later.outcome == Outcome::kOk && later.invoke_ns > w.complete_ns &&
            later.complete_ns < read.invoke_ns) {
          stale_values.push_back(*w.value);
          break;
        }
      }
    }
    const int choice = static_cast<int>(rng() % 3);
    if (choice == 0 && !stale_values.empty()) {
      read.value = stale_values[rng() % stale_values.size()];
      ++stale;
    } else if (choice == 1 && !failed_values.empty()) {
      read.value = failed_values[rng() % failed_values.size()];
      ++failed;
    } else {
      read.value = "nobody wrote this";
      ++foreign;
    }
    KeyVerdict v = check_key("k", ops);
    EXPECT_FALSE(v.gave_up);
    ASSERT_FALSE(v.linearizable) << "round " << round << ": the mutated read " << describe(read)
                                 << " passed";
  }
  std::printf("mutations: %d stale reads, %d reads of failed writes, %d foreign values\n", stale,
              failed, foreign);
  EXPECT_GT(stale, 15);
  EXPECT_GT(failed, 15);
}

TEST(LinearizabilityTest, RecorderTimesAndOutcomes) {
  HistoryRecorder h;
  Operation w;
  w.key = "k";
  w.kind = OpKind::kPut;
  w.value = "a";
  size_t a = h.invoke(w);
  h.complete(a, Outcome::kOk);
  Operation r;
  r.key = "k";
  r.kind = OpKind::kGet;
  size_t b = h.invoke(r);
  h.complete(b, Outcome::kOk, std::string("a"));
  size_t c = h.invoke(w);  // never completed: unknown
  std::vector<Operation> ops = h.operations();
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_LE(ops[0].invoke_ns, ops[0].complete_ns);
  EXPECT_LE(ops[0].complete_ns, ops[1].invoke_ns);
  EXPECT_EQ(ops[1].value, V("a"));
  EXPECT_EQ(ops[2].outcome, Outcome::kUnknown);
  EXPECT_EQ(c, 2u);
  EXPECT_TRUE(check_linearizable(ops).ok());
}

}  // namespace
}  // namespace ordo::testing::history
