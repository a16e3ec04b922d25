// Helpers for engine tests: seeds, opening databases, comparing with a model.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "ordo/database.h"
#include "test_seed.h"

namespace ordo::testing {

// The write backend the tests run on: the test-only variable ORDO_TEST_IO,
// "posix" or "uring" (ctest runs the engine suite once with each), else
// IoBackend::kAuto. Any other value ends the test binary, naming it.
inline IoBackend test_io_backend() {
  const char* env = std::getenv("ORDO_TEST_IO");
  const std::string choice = env ? env : "";
  if (choice.empty()) return IoBackend::kAuto;
  if (choice == "posix") return IoBackend::kPosix;
  if (choice == "uring") return IoBackend::kUring;
  std::fprintf(stderr, "ORDO_TEST_IO=%s: expected \"posix\" or \"uring\"\n", choice.c_str());
  std::abort();
}

// `options` on the tests' write backend (test_io_backend()), unless they name
// a backend of their own.
inline Options with_test_backend(Options options) {
  if (options.io_backend == IoBackend::kAuto) options.io_backend = test_io_backend();
  return options;
}

// Database::open on the tests' write backend.
inline Result<std::unique_ptr<Database>> open_database(const std::string& path,
                                                       Options options = {}) {
  return Database::open(path, with_test_backend(options));
}

// Opens on the tests' write backend with checksum verification on, so every
// test also checks that each commit's checksums are right.
inline std::unique_ptr<Database> open_db(const std::string& path, Options options = {}) {
  options.verify_checksums = true;
  auto db = open_database(path, options);
  EXPECT_TRUE(db.is_ok()) << db.status().to_string();
  return db.is_ok() ? std::move(db).value() : nullptr;
}

using Model = std::map<std::string, std::string>;

// An 8-byte big-endian key: byte order equals numeric order.
inline std::string be_key(uint64_t i) {
  std::string k(8, '\0');
  for (int b = 7; b >= 0; --b, i >>= 8) k[b] = static_cast<char>(i & 0xff);
  return k;
}

// Every entry of `tree` in `txn`, forwards and backwards, against `model`.
inline void expect_tree_equals(Txn& txn, const Tree& tree, const Model& model) {
  auto c = txn.cursor(tree);
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  ASSERT_TRUE(c->first().is_ok());
  auto it = model.begin();
  while (c->valid()) {
    ASSERT_NE(it, model.end()) << "tree has extra key";
    ASSERT_EQ(c->key().str(), it->first);
    ASSERT_EQ(c->value().str(), it->second);
    ++it;
    ASSERT_TRUE(c->next().is_ok());
  }
  ASSERT_EQ(it, model.end()) << "tree lacks " << model.size() << " keys' tail";
  ASSERT_TRUE(c->last().is_ok());
  auto rit = model.rbegin();
  while (c->valid()) {
    ASSERT_NE(rit, model.rend());
    ASSERT_EQ(c->key().str(), rit->first);
    ++rit;
    ASSERT_TRUE(c->prev().is_ok());
  }
  ASSERT_EQ(rit, model.rend());
}

using State = std::map<std::string, Model>;  // tree name ("" = default) -> contents

// `s` without its empty named trees (a dropped tree reads as absent).
inline State without_empty(State s) {
  for (auto it = s.begin(); it != s.end();) {
    it = it->second.empty() && !it->first.empty() ? s.erase(it) : std::next(it);
  }
  return s;
}

// Reads every tree of a snapshot into a State.
inline State read_state(ReadTxn& r) {
  State out;
  auto read_tree = [&](const Tree& t, const std::string& name) {
    auto c = r.cursor(t);
    EXPECT_TRUE(c.is_ok()) << name << ": " << c.status().to_string();
    if (!c.is_ok()) return;
    Model& m = out[name];
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
  return without_empty(std::move(out));
}

// Runs `fn` on a thread of its own and fails (then ends the process, since
// the thread cannot be stopped) when it does not return within `limit`: a
// hang in the code under test fails the test instead of stalling the suite.
template <typename Fn>
void within(std::chrono::milliseconds limit, Fn fn) {
  std::packaged_task<void()> task(std::move(fn));
  std::future<void> done = task.get_future();
  std::thread t(std::move(task));
  if (done.wait_for(limit) != std::future_status::ready) {
    ADD_FAILURE() << "still running after " << limit.count() << " ms: a hang";
    std::fflush(stdout);
    std::_Exit(2);
  }
  t.join();
}

// Txn::check of `txn`'s snapshot finds no problem (else the first is shown).
inline void expect_check_clean(Txn& txn) {
  auto report = txn.check();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_TRUE(report->clean()) << report->problems[0].what;
}

}  // namespace ordo::testing
