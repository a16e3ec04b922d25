// Crashes over several lives of one file: each life opens the image the last
// crash left (replaying what it must), commits, takes checkpoints, wraps the
// small log, may close, and ends in a crash at a random op: a crash of the
// machine that keeps any subset of the writes not yet synced (one of them
// torn at any byte), or a kill that keeps every write. A model of what each
// life committed decides which states the next open may show: with
// `sync_commits` every commit that returned, and the one in flight or not;
// without it, any commit from the last one a completed sync made durable up
// to the one in flight. The next life starts from whichever state the open
// showed, so a record of a dead life taken up again (a commit the last life
// never saw) shows as a state no life committed.
//
// Each scenario is seeded from the test seed and its number (printed on a
// failure); the default run verifies kDefaultScenarios of them per setting,
// ORDO_CRASH_STATES=all kAllScenarios.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "crash_image.h"
#include "database_opener.h"
#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/io/testing/fault_backend.h"
#include "ordo/io/testing/fault_log.h"

namespace ordo {
namespace {

using io::testing::CrashPoint;
using io::testing::CrashVariant;
using io::testing::FaultLog;
using io::testing::FaultOp;
using testing::State;

constexpr int kLives = 5;
constexpr uint64_t kLogBytes = 64 << 10;
constexpr uint64_t kPageBytes = 4096;
constexpr int kDefaultScenarios = 40;
constexpr int kAllScenarios = 3000;

// One state a life committed (or opened on): its contents and its name, the
// value of key "txn" in the default tree.
struct Committed {
  State state;
  std::string name;
  size_t started_at = 0;   // op count when its write txn began
  size_t returned_at = 0;  // op count when its commit returned
};

std::string state_name(ReadTxn& r) {
  auto v = r.get(r.default_tree(), "txn");
  return v.is_ok() ? v->str() : "(none)";
}

// Bytes of the `i`-th pending write at a crash after `after` ops.
uint64_t pending_write_size(const FaultLog& log, size_t after, size_t i) {
  const std::vector<size_t> pending = log.pending_write_ops(after);
  return i < pending.size() ? log.op(pending[i]).data.size() : 0;
}

// The index of the first pending write into the log area (the pages after
// the meta slots, kLogBytes of them), or 0 when none is.
size_t first_pending_log_write(const FaultLog& log, size_t after) {
  const std::vector<size_t> pending = log.pending_write_ops(after);
  const uint64_t from = 2 * kPageBytes, to = from + kLogBytes;
  for (size_t i = 0; i < pending.size(); ++i) {
    const uint64_t at = log.op(pending[i]).offset_bytes;
    if (at >= from && at < to) return i;
  }
  return 0;
}

// The index of the last full sync performed before `after` ops, or -1.
long last_sync(const FaultLog& log, size_t after) {
  for (size_t k = after; k-- > 0;) {
    if (log.op(k).kind == FaultOp::Kind::kSync && !log.op(k).failed()) {
      return static_cast<long>(k);
    }
  }
  return -1;
}

class MultiLifeCrashTest : public ::testing::TestWithParam<bool> {
 protected:
  Options options() const {
    Options o;
    o.sync_commits = GetParam();
    o.log_bytes = kLogBytes;  // a few dozen records: the log wraps in most lives
    o.extent_bytes = 64 << 10;
    o.max_extent_bytes = 64 << 10;
    o.map_reserve_bytes = 1ull << 30;
    o.verify_checksums = true;
    return o;
  }

  // One txn of random puts and deletes in tree "a" (now and then many, so it
  // commits by a checkpoint), a tree "b" created and dropped now and then,
  // and "txn" = `name` in the default tree.
  Status write_txn(WriteTxn& w, std::mt19937_64& rng, const std::string& name, State& state) {
    auto a = w.create_tree("a");
    if (!a.is_ok()) return a.status();
    const int ops = rng() % 8 == 0 ? 400 + static_cast<int>(rng() % 400) : 1 + rng() % 12;
    for (int i = 0; i < ops; ++i) {
      const std::string key = "k" + std::to_string(rng() % 300);
      if (rng() % 4 != 0) {
        const size_t len = rng() % 30 == 0 ? 1200 + rng() % 3000 : rng() % 120;
        const std::string value(len, static_cast<char>('a' + rng() % 26));
        ORDO_RETURN_IF_ERROR(w.put(*a, key, value));
        state["a"][key] = value;
      } else if (state["a"].count(key)) {
        ORDO_RETURN_IF_ERROR(w.del(*a, key));
        state["a"].erase(key);
      }
    }
    if (rng() % 6 == 0) {
      if (state.count("b")) {
        ORDO_RETURN_IF_ERROR(w.drop_tree("b"));
        state.erase("b");
      } else {
        auto b = w.create_tree("b");
        if (!b.is_ok()) return b.status();
        ORDO_RETURN_IF_ERROR(w.put(*b, name, "b"));
        state["b"][name] = "b";
      }
    }
    ORDO_RETURN_IF_ERROR(w.put(w.default_tree(), "txn", name));
    state[""]["txn"] = name;
    state = testing::without_empty(std::move(state));
    return Status::ok();
  }

  // The crash point that ends a life, at `min_after` ops or later: a kill keeps
  // every write; a crash of the machine any subset of the pending ones, one
  // of them torn at any byte.
  static CrashPoint crash_point(const FaultLog& log, size_t min_after, std::mt19937_64& rng,
                                bool* machine) {
    const size_t ops = log.op_count();
    const size_t span = ops - min_after;
    // Most crashes near the end, where the most is pending.
    const size_t after =
        rng() % 3 == 0 ? min_after + rng() % (span + 1) : ops - rng() % (span / 4 + 1);
    const size_t pending = log.pending_write_count(after);
    *machine = rng() % 4 != 0;
    if (!*machine) return {after, CrashVariant::prefix(pending)};
    std::vector<bool> landed(pending);
    const int shape = static_cast<int>(rng() % 4);
    // Shape 3 loses the first pending write into the log area (the first
    // record after the last sync) and keeps every other one.
    const size_t dropped = pending == 0 ? 0
                           : shape == 3 ? first_pending_log_write(log, after)
                                        : rng() % pending;
    for (size_t i = 0; i < pending; ++i) {
      landed[i] = shape == 0   ? rng() % 2 == 0  // any subset
                  : shape == 2 ? i < dropped     // a prefix
                               : i != dropped;   // all but one
    }
    if (pending == 0 || rng() % 2 == 0) return {after, CrashVariant::subset(std::move(landed))};
    const size_t torn = rng() % pending;
    const uint64_t size = pending_write_size(log, after, torn);
    const uint64_t from = rng() % 2 == 0 ? 0 : rng() % (size + 1);
    const uint64_t to = from + rng() % (size - from + 1);
    return {after, CrashVariant::subset_torn(std::move(landed), torn, from, to)};
  }

  // One scenario; returns false after a failed expectation.
  bool run_scenario(uint64_t seed, int* states_verified) {
    std::mt19937_64 rng(seed);
    io::testing::TempDir dir;
    const std::string path = dir.file("life.ordo");
    std::vector<std::byte> image;  // empty: life 1 creates the file
    Committed opened{{}, "(none)", 0, 0};
    opened.state[""] = {};
    opened.state = testing::without_empty(opened.state);
    for (int life = 1; life <= kLives; ++life) {
      SCOPED_TRACE("life " + std::to_string(life));
      EXPECT_TRUE(io::testing::write_file(path, image));
      auto log = std::make_shared<FaultLog>();
      std::vector<Committed> committed;  // [0]: the state this life opened on
      {
        auto db = DatabaseOpener::open(path, options(), io::testing::fault_backend_factory(log));
        EXPECT_TRUE(db.is_ok()) << db.status().to_string();
        if (!db.is_ok()) return false;
        auto r = (*db)->begin_read();
        EXPECT_TRUE(r.is_ok()) << r.status().to_string();
        if (!r.is_ok()) return false;
        if (state_name(*r) != opened.name || testing::read_state(*r) != opened.state) {
          ADD_FAILURE() << "life " << life << " opened on '" << state_name(*r)
                        << "' (or on other contents), expected '" << opened.name << "'"
                        << "; recovery: " << (*db)->info().recovery
                        << "; replayed: " << (*db)->info().log.replayed;
          return false;
        }
        r = Status::txn_ended("read done");
        committed.push_back({opened.state, opened.name, 0, log->op_count()});
        // Short lives and long ones: a short life after a long one leaves
        // the long one's later records in the log area behind its own.
        const int commits = static_cast<int>(rng() % 2 == 0 ? 2 + rng() % 7 : 9 + rng() % 35);
        for (int n = 1; n <= commits; ++n) {
          const std::string name = std::to_string(life) + "." + std::to_string(n);
          Committed next{committed.back().state, name, log->op_count(), 0};
          auto w = (*db)->begin_write();
          EXPECT_TRUE(w.is_ok()) << w.status().to_string();
          if (!w.is_ok()) return false;
          Status s = write_txn(*w, rng, name, next.state);
          if (s.is_ok()) s = w->commit();
          EXPECT_TRUE(s.is_ok()) << name << ": " << s.to_string();
          if (!s.is_ok()) return false;
          next.returned_at = log->op_count();
          committed.push_back(std::move(next));
          if (rng() % 25 == 0) {
            EXPECT_TRUE((*db)->checkpoint().is_ok());
          }
        }
        // Most lives end in a crash with the handle open; some close it
        // first (a checkpoint), and a crash may land in that close.
        if (rng() % 4 == 0) db = Status::invalid_argument("closed");
      }
      bool machine = false;
      // A crash while the first life creates the file leaves no database
      // (BadFileTest covers those files): that life crashes after its open.
      const size_t min_after = life == 1 ? committed[0].returned_at : 0;
      const CrashPoint point = crash_point(*log, min_after, rng, &machine);
      auto next_image = log->image(point);
      EXPECT_TRUE(next_image.is_ok()) << point.to_string();
      if (!next_image.is_ok()) return false;
      image = std::move(next_image).value();
      // What the next open may show: from the last durable commit up to the
      // one in flight.
      size_t returned = 0;
      while (returned + 1 < committed.size() &&
             committed[returned + 1].returned_at <= point.after_ops) {
        ++returned;
      }
      size_t lowest = returned;
      if (machine && !GetParam()) {
        const long sync = last_sync(*log, point.after_ops);
        lowest = 0;
        // A commit whose writes all came before that sync (its last op may
        // be the sync itself: a checkpoint commit).
        while (lowest + 1 < committed.size() && sync >= 0 &&
               committed[lowest + 1].returned_at <= static_cast<size_t>(sync) + 1) {
          ++lowest;
        }
      }
      const bool in_flight =
          returned + 1 < committed.size() && committed[returned + 1].started_at < point.after_ops;
      const size_t highest = in_flight ? returned + 1 : returned;
      // Open the image as the next life will, read-only first (a replay is
      // asked for, not made), and find which state it holds.
      auto reopened = testing::open_crash_image(image);
      EXPECT_TRUE(reopened.is_ok()) << point.to_string() << ": " << reopened.status().to_string();
      if (!reopened.is_ok()) return false;
      auto r = (*reopened)->begin_read();
      EXPECT_TRUE(r.is_ok());
      if (!r.is_ok()) return false;
      const std::string found = state_name(*r);
      const State got = testing::read_state(*r);
      size_t match = committed.size();
      for (size_t k = lowest; k <= highest; ++k) {
        if (committed[k].name == found && committed[k].state == got) match = k;
      }
      if (match == committed.size()) {
        ADD_FAILURE() << (machine ? "machine crash " : "kill ") << point.to_string()
                      << ": the image holds '" << found
                      << "' (or other contents), expected one of '" << committed[lowest].name
                      << "'..'" << committed[highest].name
                      << "'; recovery: " << (*reopened)->info().recovery
                      << "; replayed: " << (*reopened)->info().log.replayed;
        return false;
      }
      auto report = r->check();
      EXPECT_TRUE(report.is_ok() && report->clean())
          << point.to_string() << ": "
          << (report.is_ok() ? report->problems[0].what : report.status().to_string());
      if (!report.is_ok() || !report->clean()) return false;
      opened = committed[match];
      ++*states_verified;
    }
    return true;
  }
};

// The smallest case: a checkpoint, then five one-put commits r1..r5 without
// a sync each; the machine goes down and keeps every write but r1's record.
// Life 2 opens at the checkpoint, commits x1..x3 and is killed. Life 3 must
// hold the checkpoint's key and x1..x3, never r4 or r5 (which life 2 never
// saw).
TEST(MultiLifeCrashCase, RecordsOfADeadLifeAreNotTakenUpAgain) {
  io::testing::TempDir dir;
  const std::string path = dir.file("db.ordo");
  Options o;
  o.sync_commits = false;
  o.log_bytes = kLogBytes;
  auto put_commit = [](Database& db, const std::string& key) {
    auto w = db.begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), key, "v").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  };
  auto life = [&](const std::vector<std::string>& keys, bool lose_first_record) {
    auto log = std::make_shared<FaultLog>();
    auto db = DatabaseOpener::open(path, o, io::testing::fault_backend_factory(log));
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    for (const std::string& k : keys) ASSERT_NO_FATAL_FAILURE(put_commit(**db, k));
    const size_t after = log->op_count();
    // The image a crash at this point leaves: every write, or all but the
    // first record's.
    std::vector<bool> landed(log->pending_write_count(after), true);
    if (lose_first_record) {
      landed[first_pending_log_write(*log, after)] = false;
    }
    auto image = log->image({after, CrashVariant::subset(landed)});
    ASSERT_TRUE(image.is_ok());
    db = Status::invalid_argument("crashed");  // its close writes to the file, not the image
    ASSERT_TRUE(io::testing::write_file(path, *image));
  };
  {
    auto db = Database::open(path, o);
    ASSERT_TRUE(db.is_ok());
    ASSERT_NO_FATAL_FAILURE(put_commit(**db, "base"));
    ASSERT_TRUE((*db)->checkpoint().is_ok());
  }
  ASSERT_NO_FATAL_FAILURE(life({"r1", "r2", "r3", "r4", "r5"}, true));
  ASSERT_NO_FATAL_FAILURE(life({"x1", "x2", "x3"}, false));
  auto db = Database::open(path, o);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  auto r = (*db)->begin_read();
  ASSERT_TRUE(r.is_ok());
  std::vector<std::string> keys;
  auto c = r->cursor(r->default_tree());
  ASSERT_TRUE(c.is_ok());
  for (Status s = c->first(); s.is_ok() && c->valid(); s = c->next())
    keys.push_back(c->key().str());
  EXPECT_EQ(keys, (std::vector<std::string>{"base", "x1", "x2", "x3"}))
      << "replayed: " << (*db)->info().log.replayed;
  auto report = r->check();
  ASSERT_TRUE(report.is_ok());
  EXPECT_TRUE(report->clean());
}

TEST_P(MultiLifeCrashTest, EveryLifeOpensOnAStateTheLastOneCommitted) {
  const uint64_t seed = testing::test_seed(4242);
  const int scenarios = testing::CrashSample::every_state() ? kAllScenarios : kDefaultScenarios;
  std::printf("%d scenarios of %d lives (ORDO_CRASH_STATES=all: %d)\n", scenarios, kLives,
              kAllScenarios);
  int verified = 0;
  for (int i = 0; i < scenarios; ++i) {
    SCOPED_TRACE("scenario " + std::to_string(i) + " (seed " + std::to_string(seed) + ")");
    if (!run_scenario(seed * 1000003 + static_cast<uint64_t>(i), &verified)) return;
  }
  std::printf("sync_commits %s: %d crash states verified over %d scenarios\n",
              GetParam() ? "true" : "false", verified, scenarios);
  EXPECT_EQ(verified, scenarios * kLives);
}

INSTANTIATE_TEST_SUITE_P(SyncCommits, MultiLifeCrashTest, ::testing::Bool(),
                         [](const auto& test_info) { return test_info.param ? "Sync" : "NoSync"; });

}  // namespace
}  // namespace ordo
