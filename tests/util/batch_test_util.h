// Helpers for Database::batch tests: groups of a known make-up and order.
// Needs engine/src on the include path (database_opener.h).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <vector>

#include "database_opener.h"
#include "ordo/database.h"

namespace ordo::testing {

// One batch() call's outcome, as its caller saw it.
struct BatchOutcome {
  Status status;
  std::exception_ptr exception;  // what batch() threw
};

// Waits until `db` has `n` batch() calls queued; false after 10 s.
inline bool wait_for_queued(const Database& db, size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (DatabaseOpener::queued_batches(db) < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// Calls db.batch(fns[i]) each on a thread of its own, so that they form one
// group in the order given: a first call holds the queue (its function waits
// until every call is queued, and commits nothing of its own), and each
// thread starts once the one before it is queued. REQUIRES: fns.size() <
// BatchQueue::kMaxGroup.
inline std::vector<BatchOutcome> run_as_one_group(Database& db, const std::vector<BatchFn>& fns) {
  std::atomic<bool> holding{false};
  std::atomic<bool> all_queued{false};
  Status held;
  std::thread holder([&] {
    held = db.batch([&](WriteTxn&) {
      holding = true;
      while (!all_queued) std::this_thread::yield();
      return Status::ok();
    });
  });
  while (!holding) std::this_thread::yield();
  std::vector<BatchOutcome> out(fns.size());
  std::vector<std::thread> callers;
  for (size_t i = 0; i < fns.size(); ++i) {
    callers.emplace_back([&, i] {
      try {
        out[i].status = db.batch(fns[i]);
      } catch (...) {
        out[i].exception = std::current_exception();
      }
    });
    EXPECT_TRUE(wait_for_queued(db, 2 + i)) << "call " << i << " did not queue";
  }
  all_queued = true;
  holder.join();
  for (auto& t : callers) t.join();
  EXPECT_TRUE(held.is_ok()) << held.to_string();
  return out;
}

}  // namespace ordo::testing
