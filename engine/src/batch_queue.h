// BatchQueue: the writer queue of Database::batch (group commit).
//
// Callers queue in arrival order. The caller at the front leads: it takes
// itself and the callers behind it (at most kMaxGroup) as one group, runs
// their functions in one write txn and commits, hands each member its
// outcome, and wakes the next front caller, who leads the callers that
// queued meanwhile. Groups are always a prefix of the queue, so a member is
// done once the count of finished members passes its place in line.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <span>
#include <vector>

#include "ordo/base/thread_annotations.h"
#include "ordo/database.h"

namespace ordo::engine {

class BatchQueue {
 public:
  // Largest group: a leader takes at most this many callers (itself
  // included); the rest lead or join the next group.
  static constexpr size_t kMaxGroup = 128;

  // One caller's place in the queue, on the caller's stack. The leader writes
  // `status` and `exception` before finish(); the caller reads them after
  // join() returned false (finish() and join() order the two through the
  // queue's mutex).
  struct Member {
    explicit Member(const BatchFn& f) : fn(&f) {}
    const BatchFn* fn;
    Status status;
    std::exception_ptr exception;  // thrown by *fn: rethrown in the caller's thread

   private:
    friend class BatchQueue;
    uint64_t ticket = 0;               // place in line since the queue was made
    std::condition_variable_any wake;  // waits on the queue's mutex
  };

  // Queues `m` and waits until it is at the front (returns true: `m` leads)
  // or a leader finished it (returns false: its outcome is set).
  bool join(Member& m) ORDO_EXCLUDES(mu_);
  // REQUIRES: `leader` got true from join(). The group it leads: itself
  // first, then the callers behind it in queue order, at most kMaxGroup.
  std::vector<Member*> take_group(Member& leader) ORDO_EXCLUDES(mu_);
  // REQUIRES: `group` is what take_group returned, every outcome set.
  // Removes the group, wakes its members and the next front caller.
  void finish(std::span<Member* const> group) ORDO_EXCLUDES(mu_);

  // Callers queued, the leader at work included.
  size_t size() const ORDO_EXCLUDES(mu_);

 private:
  mutable base::Mutex mu_;
  std::deque<Member*> queue_ ORDO_GUARDED_BY(mu_);
  uint64_t next_ticket_ ORDO_GUARDED_BY(mu_) = 0;
  uint64_t finished_ ORDO_GUARDED_BY(mu_) = 0;  // tickets below this are done
};

}  // namespace ordo::engine
