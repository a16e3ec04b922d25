#include "dirty_page_cache.h"

#include <algorithm>
#include <cstring>

#include "ordo/assert.h"

namespace ordo::engine {

using btree::PageNo;

DirtyPageCache::~DirtyPageCache() {
  ORDO_ASSERT(dirty_.size() <= touch_clock_);  // Each add() ticks the clock.
  for (auto& [pg, buf] : dirty_) buffers_.give(buf.data);
}

std::byte* DirtyPageCache::writable(PageNo pg) {
  auto it = dirty_.find(pg);
  if (it == dirty_.end()) {
    // A spilled page is touched again: read it back.
    const std::byte* on_disk = file_.data(pg * page_size_, page_size_);
    ORDO_ASSERT(is_spilled(pg) && on_disk != nullptr);
    std::byte* buf = buffers_.take();
    std::memcpy(buf, on_disk, page_size_);
    set_spilled(pg, false, 0);
    it = dirty_.emplace(pg, Buffer{buf, 0}).first;
  }
  it->second.touched = ++touch_clock_;
  ORDO_ASSERT(it->second.data != nullptr);
  return it->second.data;
}

bool DirtyPageCache::drop(PageNo pg) {
  auto it = dirty_.find(pg);
  if (it != dirty_.end()) {
    buffers_.give(it->second.data);
    dirty_.erase(it);
    return true;
  }
  if (!is_spilled(pg)) return false;
  set_spilled(pg, false, 0);
  ORDO_ASSERT(!contains(pg));
  return true;
}

void DirtyPageCache::set_spilled(PageNo pg, bool spilled, uint64_t next_page) {
  if (pg < high_water_) {
    if (spilled) {
      spilled_reused_.insert(pg);
    } else {
      spilled_reused_.erase(pg);
    }
    return;
  }
  const uint64_t i = pg - high_water_;
  if (i >= spilled_new_.size()) {
    if (!spilled) return;         // not spilled already
    ORDO_ASSERT(pg < next_page);  // A page spilled was handed out below the high-water mark.
    spilled_new_.resize(std::max<uint64_t>(i + 1, next_page - high_water_));
  }
  spilled_new_[i] = spilled;
}

Status DirtyPageCache::spill(const SpillPolicy& policy, uint64_t next_page) {
  std::vector<SpillCandidate> leaves;
  for (const auto& [pg, buf] : dirty_) {
    if (static_cast<btree::PageType>(buf.data[btree::kOffType]) == btree::PageType::kLeaf) {
      leaves.push_back({buf.touched, pg});
    }
  }
  policy.choose(leaves, dirty_.size());
  if (leaves.empty()) return Status::ok();
  PageNo highest = 0;
  std::vector<io::WriteSpan> spans;
  spans.reserve(leaves.size());
  for (const SpillCandidate& c : leaves) {
    ORDO_ASSERT(c.page >= btree::kFirstDataPage && c.page < next_page);
    spans.push_back({c.page * page_size_, dirty_.at(c.page).data, page_size_});
    highest = std::max(highest, c.page);
  }
  ORDO_RETURN_IF_ERROR(file_.grow_to((highest + 1) * page_size_));
  ORDO_RETURN_IF_ERROR(file_.write(spans, false));
  for (const SpillCandidate& c : leaves) {
    auto it = dirty_.find(c.page);
    buffers_.give(it->second.data);
    dirty_.erase(it);
    set_spilled(c.page, true, next_page);
  }
  pages_spilled_ += leaves.size();
  ORDO_ASSERT(is_spilled(highest) && dirty_.count(highest) == 0);
  return Status::ok();
}

std::vector<io::WriteSpan> DirtyPageCache::write_spans() const {
  std::vector<io::WriteSpan> spans;
  spans.reserve(dirty_.size());
  for (const auto& [pg, buf] : dirty_) {
    ORDO_ASSERT(pg >= btree::kFirstDataPage && buf.data != nullptr);  // never a meta slot
    spans.push_back({pg * page_size_, buf.data, page_size_});
  }
  return spans;
}

}  // namespace ordo::engine
