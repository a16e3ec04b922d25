// Crash enumeration: a scripted workload of 60 txns (inserts, overwrites,
// deletes, overflow values, tree create/drop, file growth across extent
// boundaries) runs over the fault-injecting backend; then, for every crash
// point the log offers (after each write and sync, every prefix of the unsynced
// writes, each one dropped, torn pages), the crash image is reopened and must
// hold exactly the state of the last txn whose commit returned, or for the txn
// in flight the one before or the one in flight; Txn::check must be clean.
// Both commit protocols. The number of crash states verified is printed.
#include <gtest/gtest.h>

#include <map>
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
using io::testing::FaultLog;
using State = std::map<std::string, testing::Model>;  // tree name ("" = default) -> contents

constexpr int kTxns = 60;

// The workload, deterministic from its seed. Txn n writes "txn" = n in the
// default tree, so a recovered image names the state it claims to be.
class Workload {
 public:
  explicit Workload(uint64_t seed) : rng_(seed) {}

  Status run_txn(Database& db, int n, State& state) {
    auto w = db.begin_write();
    if (!w.is_ok()) return w.status();
    for (const char* name : {"a", "b"}) {
      auto t = w->create_tree(name);
      if (!t.is_ok()) return t.status();
      testing::Model& m = state[name];
      const int ops = 20 + static_cast<int>(rng_() % 60);
      for (int i = 0; i < ops; ++i) {
        std::string key = "k" + std::to_string(rng_() % 400);
        int kind = static_cast<int>(rng_() % 10);
        if (kind < 6) {
          size_t len = rng_() % 20 == 0 ? 1100 + rng_() % 9000 : rng_() % 200;  // some overflow
          std::string value(len, static_cast<char>('a' + n % 26));
          ORDO_RETURN_IF_ERROR(w->put(*t, key, value));
          m[key] = value;
        } else if (m.count(key)) {
          ORDO_RETURN_IF_ERROR(w->del(*t, key));
          m.erase(key);
        }
      }
    }
    // A scratch tree created every 7th txn and dropped 3 txns later.
    if (n % 7 == 0) {
      auto t = w->create_tree("scratch");
      if (!t.is_ok()) return t.status();
      for (int i = 0; i < 300; ++i) {
        ORDO_RETURN_IF_ERROR(w->put(*t, std::to_string(i), std::string(40, 's')));
        state["scratch"][std::to_string(i)] = std::string(40, 's');
      }
    } else if (n % 7 == 3 && state.count("scratch")) {
      ORDO_RETURN_IF_ERROR(w->drop_tree("scratch"));
      state.erase("scratch");
    }
    ORDO_RETURN_IF_ERROR(w->put(w->default_tree(), "txn", std::to_string(n)));
    state[""]["txn"] = std::to_string(n);
    return w->commit();
  }

 private:
  std::mt19937_64 rng_;
};

// Reads every tree of a snapshot into a State.
State read_state(ReadTxn& r) {
  State out;
  auto read_tree = [&](const Tree& t, const std::string& name) {
    auto c = r.cursor(t);
    EXPECT_TRUE(c.is_ok()) << name << ": " << c.status().to_string();
    if (!c.is_ok()) return;
    testing::Model& m = out[name];
    for (Status s = c->first(); s.is_ok() && c->valid(); s = c->next()) {
      m[c->key().str()] = c->value().str();
    }
  };
  read_tree(r.default_tree(), "");
  auto names = r.list_trees();
  EXPECT_TRUE(names.is_ok()) << names.status().to_string();
  if (!names.is_ok()) return out;
  for (const auto& name : *names) {
    auto t = r.open_tree(name);
    EXPECT_TRUE(t.is_ok()) << name << ": " << t.status().to_string();
    if (t.is_ok()) read_tree(*t, name);
  }
  for (auto it = out.begin(); it != out.end();) it = it->second.empty() && it->first != "" ? out.erase(it) : std::next(it);
  return out;
}

State without_empty(State s) {
  for (auto it = s.begin(); it != s.end();) it = it->second.empty() && it->first != "" ? s.erase(it) : std::next(it);
  return s;
}

class CrashEnumerationTest : public ::testing::TestWithParam<CommitProtocol> {};

TEST_P(CrashEnumerationTest, EveryCrashStateRecoversACommittedState) {
  const uint64_t seed = testing::test_seed(1234);
  io::testing::TempDir dir;
  const std::string path = dir.file("workload.ordo");
  auto log = std::make_shared<FaultLog>();
  Options options;
  options.commit_protocol = GetParam();
  options.extent_bytes = 64 << 10;  // the file crosses many extent boundaries
  options.max_extent_bytes = 64 << 10;
  auto db = DatabaseOpener::open(path, options, io::testing::fault_backend_factory(log));
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();

  Workload workload(seed);
  std::vector<State> states(1);  // states[n]: after txn n; states[0] empty
  states[0][""] = {};
  std::vector<size_t> done_at(1, log->op_count());  // op count when txn n's commit returned
  for (int n = 1; n <= kTxns; ++n) {
    State next = states.back();
    Status s = workload.run_txn(**db, n, next);
    ASSERT_TRUE(s.is_ok()) << "txn " << n << ": " << s.to_string();
    states.push_back(without_empty(next));
    done_at.push_back(log->op_count());
  }
  const uint64_t file_growths = (*db)->stats().file_growths;
  db = Status::invalid_argument("closed");
  ASSERT_GT(file_growths, 3u);

  // From the first txn on: a crash while the file is being created leaves no
  // database, which open reports (BadFileTest covers empty files).
  std::vector<CrashPoint> points = log->crash_points(done_at[0]);
  size_t verified = 0, rolled_forward = 0;
  for (const CrashPoint& point : points) {
    // The last txn whose commit returned before this op was issued.
    int completed = 0;
    while (completed < kTxns && done_at[completed + 1] <= point.after_ops) ++completed;
    auto image = log->image(point);
    ASSERT_TRUE(image.is_ok()) << point.to_string();
    auto reopened = testing::open_crash_image(*image);
    ASSERT_TRUE(reopened.is_ok()) << point.to_string() << ": " << reopened.status().to_string();
    auto r = (*reopened)->begin_read();
    ASSERT_TRUE(r.is_ok()) << point.to_string();
    auto txn = r->get(r->default_tree(), "txn");
    const int found = txn.is_ok() ? std::stoi(txn->str()) : 0;
    ASSERT_TRUE(found == completed || (found == completed + 1 && completed < kTxns))
        << point.to_string() << ": recovered txn " << found << ", last returned " << completed;
    if (found == completed + 1) rolled_forward++;
    const State got = read_state(*r);
    if (got != states[found]) {
      size_t differing = 0;
      for (const auto& [name, model] : states[found]) {
        auto it = got.find(name);
        for (const auto& [k, v] : model) {
          bool bad = it == got.end() || !it->second.count(k) || it->second.at(k) != v;
          if (bad && differing == 0) {
            std::printf("first bad: tree '%s' key %s expected %zu bytes, got %s; recovery: %s\n",
                        name.c_str(), k.c_str(), v.size(),
                        it != got.end() && it->second.count(k)
                            ? std::to_string(it->second.at(k).size()).c_str()
                            : "missing",
                        (*reopened)->info().recovery.c_str());
          }
          differing += bad;
        }
      }
      FAIL() << point.to_string() << ": contents differ from txn " << found << " ("
             << differing << " keys missing or wrong)";
    }
    auto report = r->check();
    ASSERT_TRUE(report.is_ok());
    ASSERT_TRUE(report->clean()) << point.to_string() << ": " << report->problems[0].what
                                 << " (page " << report->problems[0].page_number << ")";
    r = Status::invalid_argument("done");
    reopened = Status::invalid_argument("closed");
    ++verified;
  }
  std::printf("%s: %zu crash states verified (%zu recovered the txn in flight) over %d txns, "
              "%zu I/O ops\n",
              GetParam() == CommitProtocol::kOneSync ? "one-sync" : "two-sync", verified,
              rolled_forward, kTxns, log->op_count());
  EXPECT_GE(verified, 5000u);
}

INSTANTIATE_TEST_SUITE_P(Protocols, CrashEnumerationTest,
                         ::testing::Values(CommitProtocol::kTwoSync, CommitProtocol::kOneSync),
                         [](const auto& test_info) {
                           return test_info.param == CommitProtocol::kOneSync ? "OneSync" : "TwoSync";
                         });

}  // namespace
}  // namespace ordo
