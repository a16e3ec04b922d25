// Database::batch (group commit): concurrent callers share commits; a member
// that fails, throws or ends the txn fails alone; a failed commit reaches
// every member; misuse is refused without a hang; a Database destroyed under
// queued calls is safe.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <future>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "batch_test_util.h"
#include "database_opener.h"
#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/io/testing/fault_backend.h"
#include "ordo/io/testing/fault_log.h"

namespace ordo {
namespace {

using namespace std::chrono_literals;
using testing::BatchOutcome;
using testing::run_as_one_group;
using testing::within;

std::string key_of(int member, int i) {
  return "m" + std::to_string(member) + "-" + std::to_string(i);
}

// A batch function that puts `keys` keys of `member` (value `value`).
BatchFn put_keys(int member, int keys, std::string value = "v") {
  return [=](WriteTxn& txn) -> Status {
    for (int i = 0; i < keys; ++i) {
      ORDO_RETURN_IF_ERROR(txn.put(txn.default_tree(), key_of(member, i), value));
    }
    return Status::ok();
  };
}

// How many of `member`'s `keys` keys `db` holds.
int keys_present(Database& db, int member, int keys) {
  auto r = db.begin_read();
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  if (!r.is_ok()) return -1;
  int n = 0;
  for (int i = 0; i < keys; ++i) n += r->get(r->default_tree(), key_of(member, i)).is_ok();
  return n;
}

class BatchTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("batch.ordo"); }
  io::testing::TempDir dir_;
};

TEST_F(BatchTest, ConcurrentCallersShareCommitsAndEveryChangeIsDurable) {
  std::mt19937_64 seeds(testing::test_seed(4242));
  constexpr int kThreads = 8;
  constexpr int kCalls = 40;
  // Each thread's values, from its own seeded generator.
  std::vector<std::vector<std::string>> values(kThreads);
  for (auto& v : values) {
    std::mt19937_64 rng(seeds());
    for (int i = 0; i < kCalls; ++i) v.push_back(std::string(1 + rng() % 300, 'a' + rng() % 26));
  }
  auto db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  const Stats before = db->stats();
  // Thread 0's first call holds the queue until every other thread queued,
  // so at least one group of kThreads - 1 forms; after that they contend.
  std::atomic<bool> first_running{false};
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      if (t != 0) {
        while (!first_running) std::this_thread::yield();
      }
      for (int i = 0; i < kCalls; ++i) {
        Status s = db->batch([&](WriteTxn& txn) -> Status {
          if (t == 0 && i == 0) {
            first_running = true;
            if (!testing::wait_for_queued(*db, kThreads)) return Status::busy("no contention");
          }
          return txn.put(txn.default_tree(), key_of(t, i), values[t][i]);
        });
        if (!s.is_ok()) {
          ADD_FAILURE() << "thread " << t << " call " << i << ": " << s.to_string();
          failures++;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failures.load(), 0);
  const Stats after = db->stats();
  const uint64_t groups = after.batch_groups - before.batch_groups;
  const uint64_t members = after.batch_members - before.batch_members;
  std::printf("%d calls in %llu groups, %llu syncs\n", kThreads * kCalls,
              static_cast<unsigned long long>(groups),
              static_cast<unsigned long long>(after.syncs - before.syncs));
  EXPECT_EQ(members, static_cast<uint64_t>(kThreads * kCalls));
  EXPECT_LE(groups, members - (kThreads - 2));        // the held group of kThreads - 1
  EXPECT_EQ(after.commits - before.commits, groups);  // one commit a group
  EXPECT_EQ(after.batch_rollbacks, before.batch_rollbacks);

  db.reset();
  db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  testing::Model model;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kCalls; ++i) model[key_of(t, i)] = values[t][i];
  }
  testing::expect_tree_equals(*r, r->default_tree(), model);
  testing::expect_check_clean(*r);
}

// Read-modify-write through batch: each member reads two counters (one
// inline, one an overflow value) and advances them with compare_and_set. Members
// run one after another in the group's txn, and a rerun after another
// member failed reads afresh, so no increment is lost and none is counted
// twice; the failing members' increments are rolled back.
TEST_F(BatchTest, CompareAndSetIncrementsFromManyThreadsLoseNoUpdate) {
  constexpr int kThreads = 8;
  constexpr int kCalls = 60;
  auto db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  const std::string pad(3 * db->max_inline_value_bytes(), '.');
  auto counter_of = [](Result<ByteView> v) -> uint64_t {
    return v.is_ok() ? std::stoull(v->str()) : 0;  // stops at the padding
  };
  auto increment = [&](WriteTxn& txn, const std::string& key, const std::string& padding) {
    const Tree t = txn.default_tree();
    std::optional<std::string> old;
    if (auto v = txn.get(t, key); v.is_ok()) {
      old = v->str();
    } else if (!v.status().is_not_found()) {
      return v.status();
    }
    const std::string next = std::to_string(old ? counter_of(ByteView(*old)) + 1 : 1) + padding;
    std::optional<ByteView> expected;
    if (old) expected = ByteView(*old);
    auto applied = txn.compare_and_set(t, key, expected, ByteView(next));
    if (!applied.is_ok()) return applied.status();
    return *applied ? Status::ok() : Status::busy("compare_and_set lost a race");
  };
  std::atomic<int> succeeded{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        // Every 10th call of thread 0 fails after its increments.
        const bool fail = t == 0 && i % 10 == 0;
        Status s = db->batch([&](WriteTxn& txn) -> Status {
          ORDO_RETURN_IF_ERROR(increment(txn, "small", ""));
          ORDO_RETURN_IF_ERROR(increment(txn, "big", pad));
          return fail ? Status::not_found("this member fails") : Status::ok();
        });
        if (s.is_ok()) {
          succeeded++;
        } else if (!fail || !s.is_not_found()) {
          ADD_FAILURE() << "thread " << t << " call " << i << ": " << s.to_string();
          failures++;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failures.load(), 0);
  EXPECT_EQ(succeeded.load(), kThreads * kCalls - kCalls / 10);
  db.reset();
  db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(counter_of(r->get(r->default_tree(), "small")), static_cast<uint64_t>(succeeded));
  auto big = r->get(r->default_tree(), "big");
  ASSERT_TRUE(big.is_ok());
  EXPECT_EQ(big->str(), std::to_string(succeeded.load()) + pad);
  testing::expect_check_clean(*r);
}

TEST_F(BatchTest, AFailingMemberGetsItsStatusAndTheOthersCommit) {
  const uint64_t seed = testing::test_seed(77);
  constexpr int kMembers = 6;
  const int failing = static_cast<int>(seed % kMembers);
  auto db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  std::vector<std::atomic<int>> calls(kMembers);
  std::vector<BatchFn> fns;
  for (int m = 0; m < kMembers; ++m) {
    fns.push_back([&, m, put = put_keys(m, 50)](WriteTxn& txn) -> Status {
      calls[m]++;
      ORDO_RETURN_IF_ERROR(put(txn));  // the failing member's writes too, then rolled back
      if (m == failing) return Status::not_found("member " + std::to_string(m) + " says no");
      return Status::ok();
    });
  }
  const Stats before = db->stats();
  std::vector<BatchOutcome> out = run_as_one_group(*db, fns);
  const Stats after = db->stats();
  std::printf("failing member %d\n", failing);
  for (int m = 0; m < kMembers; ++m) {
    SCOPED_TRACE("member " + std::to_string(m));
    ASSERT_FALSE(out[m].exception);
    if (m == failing) {
      EXPECT_TRUE(out[m].status.is_not_found()) << out[m].status.to_string();
      EXPECT_EQ(out[m].status.message(), "member " + std::to_string(m) + " says no");
      EXPECT_EQ(keys_present(*db, m, 50), 0);
    } else {
      EXPECT_TRUE(out[m].status.is_ok()) << out[m].status.to_string();
      EXPECT_EQ(keys_present(*db, m, 50), 50);
    }
    // Members before the failing one ran again in the fresh txn.
    EXPECT_EQ(calls[m].load(), m < failing ? 2 : 1);
  }
  EXPECT_EQ(after.batch_groups - before.batch_groups, 2u);  // the holder's, then this one
  EXPECT_EQ(after.batch_members - before.batch_members, kMembers + 1u);
  EXPECT_EQ(after.batch_rollbacks - before.batch_rollbacks, 1u);
  EXPECT_EQ(after.commits - before.commits, 2u);
  auto r = db->begin_read();
  testing::expect_check_clean(*r);
}

TEST_F(BatchTest, EveryMemberFailingCommitsNothing) {
  auto db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  std::vector<BatchFn> fns;
  for (int m = 0; m < 3; ++m) {
    fns.push_back([m, put = put_keys(m, 5)](WriteTxn& txn) -> Status {
      ORDO_RETURN_IF_ERROR(put(txn));
      return Status::busy("no " + std::to_string(m));
    });
  }
  const Stats before = db->stats();
  std::vector<BatchOutcome> out = run_as_one_group(*db, fns);
  for (int m = 0; m < 3; ++m) {
    EXPECT_TRUE(out[m].status.is_busy()) << out[m].status.to_string();
    EXPECT_EQ(out[m].status.message(), "no " + std::to_string(m));
    EXPECT_EQ(keys_present(*db, m, 5), 0);
  }
  const Stats after = db->stats();
  EXPECT_EQ(after.commits - before.commits, 1u);  // the holder's only
  EXPECT_EQ(after.batch_rollbacks - before.batch_rollbacks, 3u);
}

TEST_F(BatchTest, AThrowingMemberRethrowsInItsOwnCallerAndTheOthersCommit) {
  auto db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  constexpr int kMembers = 4;
  constexpr int kThrower = 1;
  std::vector<BatchFn> fns;
  for (int m = 0; m < kMembers; ++m) {
    fns.push_back([m, put = put_keys(m, 20)](WriteTxn& txn) -> Status {
      ORDO_RETURN_IF_ERROR(put(txn));
      if (m == kThrower) throw std::runtime_error("thrown by member 1");
      return Status::ok();
    });
  }
  std::vector<BatchOutcome> out = run_as_one_group(*db, fns);
  for (int m = 0; m < kMembers; ++m) {
    SCOPED_TRACE("member " + std::to_string(m));
    if (m == kThrower) {
      ASSERT_TRUE(out[m].exception);
      try {
        std::rethrow_exception(out[m].exception);
      } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "thrown by member 1");
      }
      EXPECT_EQ(keys_present(*db, m, 20), 0);
    } else {
      EXPECT_FALSE(out[m].exception);
      EXPECT_TRUE(out[m].status.is_ok()) << out[m].status.to_string();
      EXPECT_EQ(keys_present(*db, m, 20), 20);
    }
  }
}

// The first member arms the fault after the holder's commit, so the group's
// commit is the one that fails.
class BatchFaultTest : public BatchTest {
 protected:
  void open_with_faults(const std::string& path, Options o = {}) {
    o.verify_checksums = true;
    auto opened = DatabaseOpener::open(path, o, io::testing::fault_backend_factory(log_));
    ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
    db_ = std::move(opened).value();
  }
  std::shared_ptr<io::testing::FaultLog> log_ = std::make_shared<io::testing::FaultLog>();
  std::unique_ptr<Database> db_;
};

TEST_F(BatchFaultTest, NoSpaceAtCommitGivesEveryMemberFullAndTheNextBatchCommits) {
  for (CommitProtocol protocol : {CommitProtocol::kOneSync, CommitProtocol::kTwoSync}) {
    SCOPED_TRACE(protocol == CommitProtocol::kOneSync ? "one-sync" : "two-sync");
    log_ = std::make_shared<io::testing::FaultLog>();
    Options o;
    o.commit_protocol = protocol;
    open_with_faults(dir_.file(protocol == CommitProtocol::kOneSync ? "one" : "two"), o);
    std::vector<BatchFn> fns;
    for (int m = 0; m < 4; ++m) {
      fns.push_back([this, m, put = put_keys(m, 30)](WriteTxn& txn) -> Status {
        if (m == 0) log_->enospc_after_bytes(0);
        return put(txn);
      });
    }
    std::vector<BatchOutcome> out = run_as_one_group(*db_, fns);
    for (int m = 0; m < 4; ++m) {
      EXPECT_TRUE(out[m].status.is_full()) << m << ": " << out[m].status.to_string();
      EXPECT_EQ(keys_present(*db_, m, 30), 0);
    }
    log_->clear_failures();
    ASSERT_TRUE(db_->batch(put_keys(9, 30)).is_ok());
    EXPECT_EQ(keys_present(*db_, 9, 30), 30);
    db_.reset();
  }
}

TEST_F(BatchFaultTest, FailedSyncGivesEveryMemberIOErrorAndPoisonsTheHandle) {
  open_with_faults(path());
  std::vector<BatchFn> fns;
  for (int m = 0; m < 4; ++m) {
    fns.push_back([this, m, put = put_keys(m, 30)](WriteTxn& txn) -> Status {
      if (m == 0) log_->fail_sync_at(0, EIO);
      return put(txn);
    });
  }
  std::vector<BatchOutcome> out = run_as_one_group(*db_, fns);
  for (int m = 0; m < 4; ++m) {
    EXPECT_TRUE(out[m].status.is_io_error()) << m << ": " << out[m].status.to_string();
    EXPECT_EQ(out[m].status.errno_value(), EIO);
  }
  log_->clear_failures();
  Status again = db_->batch(put_keys(9, 1));
  EXPECT_TRUE(again.is_io_error()) << again.to_string();  // poisoned until reopen
  db_.reset();
  auto reopened = testing::open_db(path());
  ASSERT_NE(reopened, nullptr);
  // The failed sync may or may not have made the group durable: all or none.
  const int first = keys_present(*reopened, 0, 30);
  EXPECT_TRUE(first == 0 || first == 30) << first;
  for (int m = 1; m < 4; ++m) EXPECT_EQ(keys_present(*reopened, m, 30), first);
  EXPECT_EQ(keys_present(*reopened, 9, 1), 0);
}

// A function that ignores a failed write (here no space while pages spill)
// fails with that error; the group commits without it.
TEST_F(BatchFaultTest, AFunctionThatGoesOnPastAFailedWriteFailsWithThatError) {
  Options o;
  o.txn_memory_budget_bytes = 1 << 20;
  open_with_faults(path(), o);
  Status put_said;
  std::vector<BatchFn> fns = {
      put_keys(0, 10),
      [&](WriteTxn& txn) {
        log_->enospc_after_bytes(0);
        for (int i = 0; i < 2000 && put_said.is_ok(); ++i) {
          put_said = txn.put(txn.default_tree(), key_of(1, i), std::string(900, 'x'));
        }
        log_->clear_failures();
        return Status::ok();  // ignores what put said
      },
      put_keys(2, 10),
  };
  std::vector<BatchOutcome> out = run_as_one_group(*db_, fns);
  ASSERT_TRUE(put_said.is_full()) << put_said.to_string();
  EXPECT_TRUE(out[1].status.is_full()) << out[1].status.to_string();
  for (int m : {0, 2}) {
    EXPECT_TRUE(out[m].status.is_ok()) << m << ": " << out[m].status.to_string();
    EXPECT_EQ(keys_present(*db_, m, 10), 10);
  }
  EXPECT_EQ(keys_present(*db_, 1, 2000), 0);
}

TEST_F(BatchTest, FromTheThreadHoldingTheWriteTxnIsBusyAtOnce) {
  auto db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  within(10s, [&] {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    bool called = false;
    Status s = db->batch([&](WriteTxn&) {
      called = true;
      return Status::ok();
    });
    EXPECT_TRUE(s.is_busy()) << s.to_string();
    EXPECT_FALSE(called);
    ASSERT_TRUE(w->commit().is_ok());
    EXPECT_TRUE(db->batch(put_keys(1, 1)).is_ok());
  });
  // Inside a batch function the thread holds the write txn too.
  within(10s, [&] {
    Status inner;
    Status outer = db->batch([&](WriteTxn& txn) {
      inner = db->batch(put_keys(2, 1));
      EXPECT_TRUE(db->try_begin_write().status().is_busy());
      return put_keys(3, 1)(txn);
    });
    EXPECT_TRUE(outer.is_ok()) << outer.to_string();
    EXPECT_TRUE(inner.is_busy()) << inner.to_string();
  });
  EXPECT_EQ(keys_present(*db, 1, 1), 1);
  EXPECT_EQ(keys_present(*db, 2, 1), 0);
  EXPECT_EQ(keys_present(*db, 3, 1), 1);
}

TEST_F(BatchTest, AFunctionThatEndsOrMovesTheTxnFailsAlone) {
  auto db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  Status commit_said;
  std::vector<BatchFn> fns = {
      put_keys(0, 10),
      [&, put = put_keys(1, 10)](WriteTxn& txn) {
        ORDO_RETURN_IF_ERROR(put(txn));
        commit_said = txn.commit();
        return Status::ok();  // ignores what commit said
      },
      put_keys(2, 10),
      [put = put_keys(3, 10)](WriteTxn& txn) {
        ORDO_RETURN_IF_ERROR(put(txn));
        txn.abort();
        return Status::ok();
      },
      [put = put_keys(4, 10)](WriteTxn& txn) {
        ORDO_RETURN_IF_ERROR(put(txn));
        WriteTxn taken = std::move(txn);  // rolled back when `taken` goes
        return Status::ok();
      },
      put_keys(5, 10),
  };
  std::vector<BatchOutcome> out;
  within(20s, [&] { out = run_as_one_group(*db, fns); });
  EXPECT_TRUE(commit_said.is_invalid_argument()) << commit_said.to_string();
  for (int m = 0; m < 6; ++m) {
    SCOPED_TRACE("member " + std::to_string(m));
    const bool misuse = m == 1 || m == 3 || m == 4;
    if (misuse) {
      EXPECT_TRUE(out[m].status.is_invalid_argument()) << out[m].status.to_string();
    } else {
      EXPECT_TRUE(out[m].status.is_ok()) << out[m].status.to_string();
    }
    EXPECT_EQ(keys_present(*db, m, 10), misuse ? 0 : 10);
  }
  // The writer lock is free again.
  auto w = db->try_begin_write();
  EXPECT_TRUE(w.is_ok()) << w.status().to_string();
}

TEST_F(BatchTest, ATxnMovedOutOfAFunctionAndKeptIsEndedAndHoldsNothing) {
  auto db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  std::optional<WriteTxn> kept;
  std::vector<BatchFn> fns = {
      put_keys(0, 10),
      [&, put = put_keys(1, 10)](WriteTxn& txn) {
        ORDO_RETURN_IF_ERROR(put(txn));
        kept.emplace(std::move(txn));  // outlives the batch
        return Status::ok();
      },
      put_keys(2, 10),
  };
  std::vector<BatchOutcome> out;
  within(20s, [&] { out = run_as_one_group(*db, fns); });
  EXPECT_TRUE(out[0].status.is_ok()) << out[0].status.to_string();
  EXPECT_TRUE(out[1].status.is_invalid_argument()) << out[1].status.to_string();
  EXPECT_TRUE(out[2].status.is_ok()) << out[2].status.to_string();
  EXPECT_EQ(keys_present(*db, 0, 10), 10);
  EXPECT_EQ(keys_present(*db, 1, 10), 0);
  EXPECT_EQ(keys_present(*db, 2, 10), 10);
  // What the function kept is an ended txn: it holds neither the group's
  // writes nor the writer lock.
  ASSERT_TRUE(kept.has_value());
  EXPECT_FALSE(kept->live());
  // Nor can a function replace the lent txn with another.
  std::vector<BatchFn> replace = {
      put_keys(3, 10),
      [&](WriteTxn& txn) {
        txn = std::move(*kept);
        return Status::ok();
      },
      put_keys(4, 10),
  };
  within(20s, [&] { out = run_as_one_group(*db, replace); });
  EXPECT_TRUE(out[1].status.is_invalid_argument()) << out[1].status.to_string();
  EXPECT_EQ(keys_present(*db, 3, 10), 10);
  EXPECT_EQ(keys_present(*db, 4, 10), 10);
  EXPECT_TRUE(kept->put(kept->default_tree(), "k", "v").is_txn_ended());
  auto w = db->try_begin_write();
  EXPECT_TRUE(w.is_ok()) << w.status().to_string();
}

TEST_F(BatchTest, AFunctionThatGoesOnPastAHarmlessErrorCommits) {
  auto db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  const std::string too_big(db->max_key_bytes() + 1, 'k');
  Status put_said;
  std::vector<BatchFn> fns = {
      put_keys(0, 10),
      [&](WriteTxn& txn) {
        put_said = txn.put(txn.default_tree(), too_big, "v");  // InvalidArgument, harmless
        return put_keys(1, 10)(txn);
      },
  };
  std::vector<BatchOutcome> out = run_as_one_group(*db, fns);
  EXPECT_TRUE(put_said.is_invalid_argument());
  EXPECT_TRUE(out[0].status.is_ok());
  EXPECT_TRUE(out[1].status.is_ok()) << out[1].status.to_string();
  EXPECT_EQ(keys_present(*db, 1, 10), 10);
}

TEST_F(BatchTest, RefusedOnAReadOnlyDatabaseAndForAnEmptyFunction) {
  { auto created = testing::open_db(path()); }
  Options ro;
  ro.read_only = true;
  auto db = testing::open_db(path(), ro);
  ASSERT_NE(db, nullptr);
  EXPECT_TRUE(db->batch(put_keys(0, 1)).is_invalid_argument());
  auto rw = testing::open_db(dir_.file("rw.ordo"));
  ASSERT_NE(rw, nullptr);
  EXPECT_TRUE(rw->batch(BatchFn()).is_invalid_argument());
}

TEST_F(BatchTest, DatabaseDestroyedWhileCallsAreQueued) {
  auto db = testing::open_db(path());
  ASSERT_NE(db, nullptr);
  constexpr int kCallers = 5;
  std::promise<void> destroyed;
  std::shared_future<void> destroyed_f = destroyed.get_future().share();
  std::atomic<bool> holding{false};
  Database* raw = db.get();
  std::thread holder([&] {
    Status s = raw->batch([&](WriteTxn& txn) {
      holding = true;
      destroyed_f.wait();  // the Database is gone while this txn and the queue live
      return put_keys(100, 5)(txn);
    });
    EXPECT_TRUE(s.is_ok()) << s.to_string();
  });
  while (!holding) std::this_thread::yield();
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      Status s = raw->batch(put_keys(c, 5));
      EXPECT_TRUE(s.is_ok()) << s.to_string();
    });
    ASSERT_TRUE(testing::wait_for_queued(*db, 2 + c));
  }
  db.reset();
  destroyed.set_value();
  within(20s, [&] {
    holder.join();
    for (auto& t : callers) t.join();
  });
  auto reopened = testing::open_db(path());
  ASSERT_NE(reopened, nullptr);
  for (int c = 0; c < kCallers; ++c) EXPECT_EQ(keys_present(*reopened, c, 5), 5);
  EXPECT_EQ(keys_present(*reopened, 100, 5), 5);
}

// Not in the `concurrency` label: it forks.
TEST(BatchForkTest, AForkedChildGetsInvalidArgument) {
  io::testing::TempDir dir;
  auto db = testing::open_db(dir.file("fork.ordo"));
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->batch(put_keys(0, 1)).is_ok());
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    bool called = false;
    Status s = db->batch([&](WriteTxn&) {
      called = true;
      return Status::ok();
    });
    _exit(s.is_invalid_argument() && !called ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(db->batch(put_keys(1, 1)).is_ok());
}

}  // namespace
}  // namespace ordo
