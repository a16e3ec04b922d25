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
  ~PageBuffers() {
    for (std::byte* b : idle_) page_free(b);
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
    }
  }

  static constexpr uint64_t kMaxIdleBytes = 32ull << 20;

 private:
  const uint32_t page_size_;
  std::vector<std::byte*> idle_;
};

}  // namespace ordo::engine
