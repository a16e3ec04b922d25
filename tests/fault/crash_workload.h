// The crash enumerations' workload: scripted txns (inserts, overwrites,
// deletes, overflow values, a scratch tree created and dropped) deterministic
// from a seed; the State a snapshot holds is read_state() (engine_test_util.h).
// Txn n writes "txn" = n in the default tree, so a recovered image names the
// state it claims to be; expect_recovers() checks an image against the states.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "crash_image.h"
#include "engine_test_util.h"
#include "ordo/database.h"

namespace ordo::testing {

// The workload, deterministic from its seed.
class Workload {
 public:
  explicit Workload(uint64_t seed) : rng_(seed) {}

  Status run_txn(Database& db, int n, State& state) {
    auto w = db.begin_write();
    if (!w.is_ok()) return w.status();
    ORDO_RETURN_IF_ERROR(write_txn(*w, n, state));
    return w->commit();
  }

  // Txn n's changes in `w`, applied to `state` too; not committed.
  Status write_txn(WriteTxn& txn, int n, State& state) {
    WriteTxn* w = &txn;
    for (const char* name : {"a", "b"}) {
      auto t = w->create_tree(name);
      if (!t.is_ok()) return t.status();
      Model& m = state[name];
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
    return Status::ok();
  }

 private:
  std::mt19937_64 rng_;
};

// Opens the crash image `image` (at `point`, for messages) as a reopen after
// that crash would, and checks that it holds exactly states[n] for one n in
// [lowest, highest] (its "txn" key names n) and that Txn::check is clean.
// Returns n, or -1 after a failed expectation.
inline int expect_recovers(const std::vector<std::byte>& image, const std::string& point,
                           const std::vector<State>& states, int lowest, int highest) {
  auto reopened = open_crash_image(image);
  EXPECT_TRUE(reopened.is_ok()) << point << ": " << reopened.status().to_string();
  if (!reopened.is_ok()) return -1;
  auto r = (*reopened)->begin_read();
  EXPECT_TRUE(r.is_ok()) << point << ": " << r.status().to_string();
  if (!r.is_ok()) return -1;
  auto txn = r->get(r->default_tree(), "txn");
  const int found = txn.is_ok() ? std::stoi(txn->str()) : 0;
  EXPECT_TRUE(found >= lowest && found <= highest)
      << point << ": recovered txn " << found << ", expected " << lowest << ".." << highest
      << "; recovery: " << (*reopened)->info().recovery;
  if (found < lowest || found > highest) return -1;
  const State got = read_state(*r);
  if (got != states[found]) {
    size_t differing = 0;
    std::string first;
    for (const auto& [name, model] : states[found]) {
      auto it = got.find(name);
      for (const auto& [k, v] : model) {
        const bool bad = it == got.end() || !it->second.count(k) || it->second.at(k) != v;
        if (bad && first.empty()) first = "tree '" + name + "' key " + k;
        differing += bad;
      }
    }
    ADD_FAILURE() << point << ": contents differ from txn " << found << " (" << differing
                  << " keys missing or wrong, first " << first
                  << "); recovery: " << (*reopened)->info().recovery;
    return -1;
  }
  auto report = r->check();
  EXPECT_TRUE(report.is_ok()) << point;
  if (!report.is_ok()) return -1;
  EXPECT_TRUE(report->clean()) << point << ": " << report->problems[0].what << " (page "
                               << report->problems[0].page_number << ")";
  return report->clean() ? found : -1;
}

}  // namespace ordo::testing
