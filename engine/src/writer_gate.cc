#include "writer_gate.h"

namespace ordo::engine {

Status WriterGate::acquire(Wait wait) {
  std::unique_lock<std::mutex> lock(mu_);
  if (held_ && holder_ == std::this_thread::get_id()) {
    return Status::busy(
        "this thread already holds the open write txn: commit or abort it before beginning "
        "another");
  }
  const auto free = [this] { return !held_; };
  switch (wait.kind) {
    case Wait::Kind::kForever: released_.wait(lock, free); break;
    case Wait::Kind::kNone:
      if (!free()) return Status::busy("another write txn is open");
      break;
    case Wait::Kind::kUntil:
      if (!released_.wait_until(lock, wait.deadline, free)) {
        return Status::busy("another write txn is open (timed out waiting)");
      }
      break;
  }
  held_ = true;
  holder_ = std::this_thread::get_id();
  return Status::ok();
}

void WriterGate::release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = false;
    holder_ = std::thread::id();
  }
  released_.notify_one();
}

}  // namespace ordo::engine
