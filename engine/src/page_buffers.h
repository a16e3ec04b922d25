// PageBuffers: recycled page-sized, page-aligned buffers for dirty pages.
// Reusing them across txns avoids an allocation, a zero fill and fresh-memory
// page faults for every page a txn copies. Used only under the writer lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ordo/assert.h"
#include "ordo/btree/page_format.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
// A pool slot is poisoned while free: ASan reports a use after give().
#define ORDO_POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define ORDO_POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define ORDO_POOL_POISON(p, n) ((void)(p), (void)(n))
#define ORDO_POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace ordo::engine {

class PageBuffers {
 public:
  explicit PageBuffers(uint32_t page_size) : page_size_(page_size) {
    ORDO_ASSERT(btree::valid_page_size(page_size));  // the database's, set at open
  }
  // Everything goes back: the pool and the allocator's hold on the rest.
  ~PageBuffers();
  PageBuffers(const PageBuffers&) = delete;
  PageBuffers& operator=(const PageBuffers&) = delete;

  // A buffer of page_size bytes with undefined contents: a slot of the pool
  // while one is free, else one from page_alloc (null when out of memory).
  std::byte* take() {
    if (!free_slots_.empty()) [[likely]] {
      std::byte* b = free_slots_.back();
      free_slots_.pop_back();
      ORDO_POOL_UNPOISON(b, page_size_);
      return b;
    }
    return take_slow();
  }
  // A pool slot goes back to the pool; any other buffer to the allocator.
  void give(std::byte* b) {
    ORDO_ASSERT(b != nullptr);  // a buffer from take()
    if (in_pool(b)) [[likely]] {
      ORDO_ASSERT(free_slots_.size() < slot_count());  // a slot given back twice
      ORDO_POOL_POISON(b, page_size_);
      free_slots_.push_back(b);
    } else {
      give_slow(b);
    }
  }
  // At the end of a write txn, with every buffer given back: when the txn
  // used more than kCollectBytes past the pool (a large txn), the memory it
  // took goes back to the OS now, the pool's too, rather than stay resident
  // for a steady stream of small txns that never needs it.
  void end_of_txn();

  // The pool: one mapped region, so its slots never pin the allocator's
  // segments, touched (and made resident) only as far as txns use it.
  static constexpr uint64_t kPoolBytes = 32ull << 20;
  static constexpr uint64_t kCollectBytes = 32ull << 20;

 private:
  bool in_pool(const std::byte* b) const {
    return pool_ != nullptr && b >= pool_ && b < pool_ + kPoolBytes;
  }
  size_t slot_count() const { return kPoolBytes / page_size_; }
  std::byte* take_slow();
  void give_slow(std::byte* b);

  const uint32_t page_size_;
  std::byte* pool_ = nullptr;  // mapped by the first take()
  bool pool_tried_ = false;
  // Free slots, the most recently given last: a txn takes the memory the one
  // before it touched.
  std::vector<std::byte*> free_slots_;
  uint64_t released_bytes_ = 0;  // allocated past the pool and freed by this txn
  bool allocated_past_pool_ = false;
};

}  // namespace ordo::engine
