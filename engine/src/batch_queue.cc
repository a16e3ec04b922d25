#include "batch_queue.h"

#include <algorithm>

#include "ordo/assert.h"

namespace ordo::engine {

bool BatchQueue::join(Member& m) {
  base::MutexLock lock(mu_);
  m.ticket = next_ticket_++;
  queue_.push_back(&m);
  while (m.ticket >= finished_ && queue_.front() != &m) m.wake.wait(mu_);
  // Either a group took it, or it leads the next one.
  ORDO_ASSERT(m.ticket < finished_ || queue_.front() == &m);
  return m.ticket >= finished_;
}

std::vector<BatchQueue::Member*> BatchQueue::take_group(Member& leader) {
  base::MutexLock lock(mu_);
  ORDO_ASSERT(!queue_.empty() && queue_.front() == &leader);
  const size_t n = std::min(queue_.size(), kMaxGroup);
  return std::vector<Member*>(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
}

void BatchQueue::finish(std::span<Member* const> group) {
  base::MutexLock lock(mu_);
  ORDO_ASSERT(group.size() <= queue_.size() && queue_.front() == group.front());
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(group.size()));
  finished_ += group.size();
  // The queue holds every member not finished, in ticket order.
  ORDO_ASSERT(queue_.size() + finished_ == next_ticket_);
  ORDO_ASSERT(queue_.empty() || queue_.front()->ticket == finished_);
  // Notified under the lock: a woken member returns and frees its Member
  // (and `wake`) as soon as it gets the lock, so not before this is done.
  for (Member* m : group) m->wake.notify_one();
  if (!queue_.empty()) queue_.front()->wake.notify_one();
}

size_t BatchQueue::size() const {
  base::MutexLock lock(mu_);
  ORDO_ASSERT(queue_.size() + finished_ == next_ticket_);
  return queue_.size();
}

}  // namespace ordo::engine
