#include "watch_history.h"

#include <algorithm>

#include "ordo/assert.h"

namespace ordo::replica {

void WatchHistory::reset(uint64_t applied_index) {
  std::lock_guard lock(mu_);
  entries_.clear();
  bytes_ = 0;
  first_index_ = applied_index + 1;
  last_index_ = applied_index;
  ORDO_ASSERT(first_index_ == last_index_ + 1);
  // A waiting reader whose position is now gone learns so.
  changed_.notify_all();
}

void WatchHistory::record(uint64_t index, const WriteBatch* batch) {
  Entry entry{index, {}, 0};
  // With no history kept, nothing is copied.
  if (batch != nullptr && capacity_bytes_ > 0) {
    for (const WriteBatch::Op& op : batch->ops()) {
      switch (op.kind) {
        case WriteBatch::OpKind::kCheckValue:
        case WriteBatch::OpKind::kCheckAbsent:
        case WriteBatch::OpKind::kCheckPresent:
          continue;  // guards read only
        default:
          break;
      }
      entry.changes.push_back(Change{index, op.kind, op.tree, op.key, op.value});
      entry.bytes += op.tree.size() + op.key.size() + op.value.size() + kChangeOverheadBytes;
    }
  }
  std::lock_guard lock(mu_);
  // The apply thread records in log order, each entry once.
  ORDO_ASSERT(index > last_index_);
  last_index_ = index;
  if (!entry.changes.empty()) {
    bytes_ += entry.bytes;
    entries_.push_back(std::move(entry));
  }
  // The oldest whole entries go first: a reader never sees part of one.
  while (bytes_ > capacity_bytes_ && !entries_.empty()) {
    bytes_ -= entries_.front().bytes;
    first_index_ = entries_.front().index + 1;
    entries_.pop_front();
  }
  if (capacity_bytes_ == 0) first_index_ = last_index_ + 1;
  ORDO_ASSERT(bytes_ <= capacity_bytes_ && first_index_ <= last_index_ + 1);
  changed_.notify_all();
}

void WatchHistory::close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  ORDO_DCHECK(closed_);
  changed_.notify_all();
}

bool WatchHistory::collect(const std::string* tree, uint64_t from_index, uint32_t from_offset,
                           size_t max_changes, size_t max_bytes, WatchResult& out) const {
  if (from_index < first_index_) return false;
  out.next_index = from_index;
  out.next_offset = from_offset;
  auto it = std::lower_bound(entries_.begin(), entries_.end(), from_index,
                             [](const Entry& e, uint64_t i) { return e.index < i; });
  size_t bytes = 0;
  for (; it != entries_.end(); ++it) {
    size_t offset = it->index == from_index ? from_offset : 0;
    for (; offset < it->changes.size(); ++offset) {
      const Change& c = it->changes[offset];
      ORDO_DCHECK(c.index == it->index);
      if (tree != nullptr && c.tree != *tree) continue;
      const size_t n = c.tree.size() + c.key.size() + c.value.size();
      // Full: the next change is where the next read starts.
      if (out.changes.size() >= max_changes || (!out.changes.empty() && bytes + n > max_bytes)) {
        out.next_index = it->index;
        out.next_offset = static_cast<uint32_t>(offset);
        return true;
      }
      bytes += n;
      out.changes.push_back(c);
    }
  }
  // Everything up to the newest entry was seen (matching or not).
  if (from_index <= last_index_) {
    out.next_index = last_index_ + 1;
    out.next_offset = 0;
  }
  return true;
}

Result<WatchResult> WatchHistory::read(const std::string* tree, uint64_t from_index,
                                       uint32_t from_offset, size_t max_changes, size_t max_bytes,
                                       std::chrono::milliseconds wait) {
  if (max_changes == 0) return Status::invalid_argument("watch: max_changes is 0");
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::unique_lock lock(mu_);
  if (from_index == 0) {
    from_index = last_index_ + 1;
    from_offset = 0;
  }
  for (;;) {
    if (closed_) return Status::io_error("replica closing", 0);
    WatchResult out;
    if (!collect(tree, from_index, from_offset, max_changes, max_bytes, out)) {
      return Status::not_found("compacted: oldest index " + std::to_string(first_index_));
    }
    if (!out.changes.empty()) {
      ORDO_ASSERT(out.changes.size() <= max_changes && out.changes.front().index >= from_index);
      return out;
    }
    // Nothing yet: skip what did not match, and wait for more.
    from_index = out.next_index;
    from_offset = out.next_offset;
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) {
      if (closed_) return Status::io_error("replica closing", 0);
      WatchResult last;
      if (!collect(tree, from_index, from_offset, max_changes, max_bytes, last)) {
        return Status::not_found("compacted: oldest index " + std::to_string(first_index_));
      }
      return last;
    }
  }
}

}  // namespace ordo::replica
