// WriterGate: the one-write-txn-at-a-time lock of a database handle.
//
// Not a std::mutex: the write txn may be committed or aborted on another
// thread than the one that began it (a txn object may move between threads),
// and the thread that holds the gate must get Busy, not a deadlock, when it
// asks again. The holder is the thread that acquired the gate until release().
#pragma once

#include <chrono>
#include <condition_variable>
#include <thread>
#include <utility>

#include "ordo/assert.h"
#include "ordo/base/thread_annotations.h"
#include "ordo/status.h"

namespace ordo::engine {

class WriterGate {
 public:
  // How long acquire() waits for another thread's write txn.
  struct Wait {
    enum class Kind { kForever, kNone, kUntil };
    static Wait forever() { return Wait{Kind::kForever, {}}; }
    static Wait none() { return Wait{Kind::kNone, {}}; }
    static Wait until(std::chrono::steady_clock::time_point t) { return Wait{Kind::kUntil, t}; }
    Kind kind;
    std::chrono::steady_clock::time_point deadline;  // kUntil only
  };

  // Ok once this thread holds the gate. Busy at once when this thread holds
  // it already; Busy when `wait` runs out first.
  Status acquire(Wait wait) ORDO_EXCLUDES(mu_);
  // REQUIRES: held (by any thread: the txn may have moved).
  void release() ORDO_EXCLUDES(mu_);
  // Whether this thread holds the gate (acquire() would be Busy at once).
  bool held_by_this_thread() const ORDO_EXCLUDES(mu_);

 private:
  bool held_here() const ORDO_REQUIRES(mu_) {
    return held_ && holder_ == std::this_thread::get_id();
  }

  mutable base::Mutex mu_;
  std::condition_variable_any released_;  // waits on mu_ itself
  bool held_ ORDO_GUARDED_BY(mu_) = false;
  std::thread::id holder_ ORDO_GUARDED_BY(mu_);  // the thread that acquired it
};

// Releases a WriterGate when destroyed. Move-only.
class WriterLock {
 public:
  WriterLock() = default;
  // `gate`: acquired by this thread, released by this lock.
  explicit WriterLock(WriterGate* gate) : gate_(gate) {
    ORDO_ASSERT(gate_ != nullptr && gate_->held_by_this_thread());
  }
  WriterLock(WriterLock&& other) noexcept : gate_(std::exchange(other.gate_, nullptr)) {
    ORDO_ASSERT(gate_ != nullptr);  // only a held lock is handed on (to its write txn)
  }
  WriterLock& operator=(WriterLock&&) = delete;
  WriterLock(const WriterLock&) = delete;
  ~WriterLock() {
    if (gate_ != nullptr) gate_->release();
  }

 private:
  WriterGate* gate_ = nullptr;
};

}  // namespace ordo::engine
