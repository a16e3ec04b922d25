#include "dirty_page_cache.h"

#include <algorithm>
#include <cstring>

#include "ordo/assert.h"

namespace ordo::engine {

using btree::PageNo;

DirtyPageCache::~DirtyPageCache() {
  ORDO_ASSERT(dirty_.size() <= touch_clock_);  // Each add() ticks the clock.
  for (auto& [pg, buf] : dirty_) buffers_.give(buf.data);
  for (Level& l : levels_) {
    for (auto& [pg, data] : l.prior) {
      if (data != nullptr) buffers_.give(data);
    }
  }
  buffers_.end_of_txn();
}

std::byte* DirtyPageCache::writable(PageNo pg) {
  std::byte* data = writable_if_contained(pg);
  ORDO_ASSERT(data != nullptr);  // REQUIRES: contains(pg)
  return data;
}

std::byte* DirtyPageCache::writable_if_contained(PageNo pg) {
  auto it = dirty_.find(pg);
  if (it == dirty_.end()) {
    if (!is_spilled(pg)) return nullptr;
    // A spilled page is touched again: read it back.
    const std::byte* on_disk = file_.data(pg * page_size_, page_size_);
    ORDO_ASSERT(on_disk != nullptr);
    uint64_t tag = 0;
    if (!levels_.empty()) {
      keep_prior(pg, on_disk);
      tag = levels_.back().tag;
    }
    std::byte* buf = buffers_.take();
    std::memcpy(buf, on_disk, page_size_);
    set_spilled(pg, false, 0);
    it = dirty_.emplace(pg, Buffer{buf, 0, tag}).first;
  } else if (!prior_kept(it->second)) [[unlikely]] {
    keep_prior(pg, it->second.data);
    it.value().level_tag = levels_.back().tag;
  }
  it.value().touched = ++touch_clock_;
  ORDO_ASSERT(it->second.data != nullptr);
  return it->second.data;
}

void DirtyPageCache::keep_prior(PageNo pg, const std::byte* bytes) {
  ORDO_ASSERT(!levels_.empty() && bytes != nullptr);
  auto [it, added] = levels_.back().prior.try_emplace(pg, nullptr);
  if (!added) return;  // the level has its state at the level's start already
  it->second = buffers_.take();
  std::memcpy(it->second, bytes, page_size_);
}

bool DirtyPageCache::drop(PageNo pg) {
  auto it = dirty_.find(pg);
  if (it != dirty_.end()) {
    bool kept = false;
    if (!levels_.empty()) {
      // The buffer itself becomes the level's copy: no copy made.
      auto [prior, added] = levels_.back().prior.try_emplace(pg, it->second.data);
      kept = added;
      ORDO_ASSERT(!added || prior->second == it->second.data);
    }
    if (!kept) buffers_.give(it->second.data);
    dirty_.erase(it);
    return true;
  }
  if (!is_spilled(pg)) return false;
  if (!levels_.empty()) keep_prior(pg, file_.data(pg * page_size_, page_size_));
  set_spilled(pg, false, 0);
  ORDO_ASSERT(!contains(pg));
  return true;
}

void DirtyPageCache::forget(PageNo pg) {
  auto it = dirty_.find(pg);
  if (it != dirty_.end()) {
    buffers_.give(it->second.data);
    dirty_.erase(it);
  } else if (is_spilled(pg)) {
    set_spilled(pg, false, 0);
  }
  ORDO_ASSERT(!contains(pg));
}

void DirtyPageCache::push_level() { levels_.push_back(Level{next_level_tag_++, {}}); }

void DirtyPageCache::rollback_level() {
  ORDO_ASSERT(!levels_.empty());
  Level& level = levels_.back();
  for (auto& [pg, data] : level.prior) {
    forget(pg);
    // Restored pages go back to memory, spilled or not before: a later
    // maybe_spill() brings the txn under its budget again.
    if (data != nullptr) dirty_.emplace(pg, Buffer{data, ++touch_clock_, 0});
  }
  level.prior.clear();
  // A fresh tag: no buffer claims a state in the emptied level.
  level.tag = next_level_tag_++;
}

void DirtyPageCache::release_level() {
  ORDO_ASSERT(!levels_.empty());
  Level inner = std::move(levels_.back());
  levels_.pop_back();
  if (levels_.empty()) {
    for (auto& [pg, data] : inner.prior) {
      if (data != nullptr) buffers_.give(data);
    }
    return;
  }
  Level& outer = levels_.back();
  for (auto& [pg, data] : inner.prior) {
    // The outer level's own state of the page is the older one: it wins.
    auto [at, added] = outer.prior.try_emplace(pg, data);
    if (!added && data != nullptr) buffers_.give(data);
    ORDO_ASSERT(at->first == pg);
    auto buf = dirty_.find(pg);
    if (buf != dirty_.end()) buf.value().level_tag = outer.tag;
  }
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
