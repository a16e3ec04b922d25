// The in-memory page store of btree/testing, failing the current test when
// the tree writes a page it did not make dirty first.
#pragma once

#include <gtest/gtest.h>

#include "ordo/btree/testing/memory_pages.h"

namespace ordo::btree::testing {

class MemPages : public MemoryPages {
 public:
  using MemoryPages::MemoryPages;
  std::byte* writable(PageNo pg) override {
    if (!is_dirty(pg)) ADD_FAILURE() << "writable() on page " << pg << " that is not dirty";
    return MemoryPages::writable(pg);
  }
};

}  // namespace ordo::btree::testing
