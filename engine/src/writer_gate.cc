#include "writer_gate.h"

#include "ordo/assert.h"

namespace ordo::engine {

bool WriterGate::held_by_this_thread() const {
  base::MutexLock lock(mu_);
  return held_here();
}

Status WriterGate::acquire(Wait wait) {
  base::MutexLock lock(mu_);
  if (held_here()) {
    return Status::busy(
        "this thread already holds the open write txn: commit or abort it before beginning "
        "another");
  }
  while (held_) {
    switch (wait.kind) {
      case Wait::Kind::kForever:
        released_.wait(mu_);
        break;
      case Wait::Kind::kNone:
        return Status::busy("another write txn is open");
      case Wait::Kind::kUntil:
        if (released_.wait_until(mu_, wait.deadline) == std::cv_status::timeout && held_) {
          return Status::busy("another write txn is open (timed out waiting)");
        }
        break;
    }
  }
  held_ = true;
  holder_ = std::this_thread::get_id();
  ORDO_ASSERT(held_here());
  return Status::ok();
}

void WriterGate::release() {
  {
    base::MutexLock lock(mu_);
    ORDO_ASSERT(held_);  // Released once, by the WriterLock of an acquire().
    held_ = false;
    holder_ = std::thread::id();
  }
  released_.notify_one();
}

}  // namespace ordo::engine
