#include "page_buffers.h"

#include "page_memory.h"

namespace ordo::engine {

PageBuffers::~PageBuffers() {
  // Every buffer came back: DirtyPageCache and commit leases give theirs before the handle closes.
  ORDO_ASSERT(pool_ == nullptr || free_slots_.size() == slot_count());
  if (pool_ != nullptr) {
    ORDO_POOL_UNPOISON(pool_, kPoolBytes);  // the range may be mapped again for anything
    pool_unmap(pool_, kPoolBytes);
  }
  if (allocated_past_pool_) page_collect();
}

std::byte* PageBuffers::take_slow() {
  if (!pool_tried_) {
    pool_tried_ = true;
    pool_ = static_cast<std::byte*>(pool_map(kPoolBytes));
    if (pool_ != nullptr) {
      const size_t n = slot_count();
      free_slots_.reserve(n);
      // Slot 0 last, so it is taken first: the pool is touched from its start.
      for (size_t i = n; i-- > 0;) free_slots_.push_back(pool_ + i * page_size_);
      ORDO_POOL_POISON(pool_, kPoolBytes);
      return take();
    }
  }
  allocated_past_pool_ = true;
  return static_cast<std::byte*>(page_alloc(page_size_));
}

void PageBuffers::give_slow(std::byte* b) {
  page_free(b);
  released_bytes_ += page_size_;
}

void PageBuffers::end_of_txn() {
  // Per txn: a stream of txns each a little past the pool is steady use, not a large txn.
  const bool large = released_bytes_ >= kCollectBytes;
  released_bytes_ = 0;
  if (!large) return;
  page_collect();
  if (pool_ != nullptr && free_slots_.size() == slot_count()) pool_release(pool_, kPoolBytes);
}

}  // namespace ordo::engine
