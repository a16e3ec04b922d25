// PageBuffers: recycled page-sized, page-aligned buffers for dirty pages.
// Reusing them across txns avoids an allocation, a zero fill and fresh-memory
// page faults for every page a txn copies. Used only under the writer lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ordo/assert.h"
#include "ordo/btree/page_format.h"
#include "page_memory.h"

namespace ordo::engine {

class PageBuffers {
 public:
  explicit PageBuffers(uint32_t page_size) : page_size_(page_size) {
    ORDO_ASSERT(btree::valid_page_size(page_size));  // the database's, set at open
  }
  // Everything goes back: the idle buffers, and the allocator's hold on them.
  ~PageBuffers() {
    for (std::byte* b : idle_) page_free(b);
    if (!idle_.empty() || released_bytes_ > 0) page_collect();
  }
  PageBuffers(const PageBuffers&) = delete;
  PageBuffers& operator=(const PageBuffers&) = delete;

  // A buffer of page_size bytes with undefined contents.
  std::byte* take() {
    if (idle_.empty()) return static_cast<std::byte*>(page_alloc(page_size_));
    std::byte* b = idle_.back();
    idle_.pop_back();
    return b;
  }
  // Keeps up to kMaxIdleBytes of buffers for later txns; frees the rest.
  void give(std::byte* b) {
    ORDO_ASSERT(b != nullptr);  // a buffer from take()
    if (idle_.size() * page_size_ < kMaxIdleBytes) {
      idle_.push_back(b);
    } else {
      page_free(b);
      released_bytes_ += page_size_;
    }
  }

  // At the end of a write txn: when it freed more than kCollectBytes past
  // the idle pool (a large txn), its memory goes back to the OS now rather
  // than stay resident until the allocator gets round to it. The idle pool
  // goes too: its buffers lie scattered over the allocator's segments, and
  // one live buffer keeps a whole segment resident.
  void end_of_txn() {
    if (released_bytes_ < kCollectBytes) return;
    for (std::byte* b : idle_) page_free(b);
    idle_.clear();
    idle_.shrink_to_fit();
    page_collect();
    released_bytes_ = 0;
  }

  static constexpr uint64_t kMaxIdleBytes = 32ull << 20;
  static constexpr uint64_t kCollectBytes = 8ull << 20;

 private:
  const uint32_t page_size_;
  std::vector<std::byte*> idle_;
  uint64_t released_bytes_ = 0;  // freed past the pool since the last collect
};

}  // namespace ordo::engine
