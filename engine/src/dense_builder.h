// DenseBuilder: writes one B+-tree bottom-up from entries given in key
// order, every leaf and branch filled as full as its next cell allows, pages
// numbered in the order they are written (a compact copy's trees).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "copy_internal.h"
#include "meta.h"
#include "ordo/assert.h"
#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"

namespace ordo::engine {

// Hands out page numbers from `first_page` up and writes each page to the
// sink at its number as soon as it is complete.
class PageEmitter {
 public:
  PageEmitter(CopySink& sink, uint32_t page_size, btree::PageNo first_page)
      : sink_(sink), page_size_(page_size), next_(first_page) {
    // A copy's pages follow its two meta pages (and its log area).
    ORDO_ASSERT(btree::valid_page_size(page_size) && first_page >= kFirstDataPage);
  }
  // Writes `pages` pages from `bytes`; returns the first page's number.
  Result<btree::PageNo> emit(const std::byte* bytes, uint64_t pages = 1);
  btree::PageNo next_page() const { return next_; }
  uint32_t page_size() const { return page_size_; }

 private:
  CopySink& sink_;
  uint32_t page_size_;
  btree::PageNo next_;
};

class DenseBuilder {
 public:
  // Pages are stamped with `txn_id`.
  DenseBuilder(PageEmitter& out, uint64_t txn_id);

  // Appends an entry whose value lives in the leaf. REQUIRES: keys ascend;
  // value.size() <= max_inline_value_bytes.
  Status add(ByteView key, ByteView value);
  // Appends an entry whose value of `value_len` bytes lives in the overflow
  // run `run_pages` pages long at `run`, copied as it is (its checksum
  // `run_checksum` stays valid).
  Status add_overflow(ByteView key, uint64_t value_len, const std::byte* run, uint64_t run_pages,
                      uint64_t run_checksum);
  // Appends a leaf page that is already written (kept where it is, with its
  // checksum `checksum` and `entries` entries) as the next leaf; its branch
  // entry gets `lower_bound`, the smallest key it may hold. REQUIRES: only
  // add_leaf() calls on this builder, leaves in key order.
  Status add_leaf(const std::string& lower_bound, btree::PageNo leaf, uint64_t checksum,
                  uint64_t entries);
  // Writes the pages still open and returns the tree's root (empty when no
  // entry was added).
  Result<btree::TreeRoot> finish();

 private:
  struct Level {
    std::vector<std::byte> page;
    std::string first_key;  // smallest key below this page
    bool open = false;
  };
  Status add_cell(ByteView key, uint32_t cell_size,
                  const std::function<void(btree::NodeEditor&)>& insert);
  // Writes the open page of branch level `i` (0 = just above the leaves).
  Result<std::pair<btree::PageNo, uint64_t>> emit_page(std::vector<std::byte>& page);
  // Adds a child entry to branch level `i`.
  // Writes every open branch page bottom-up; the top one is the root.
  Result<btree::TreeRoot> close_branches(btree::TreeRoot root);
  Status push(size_t i, const std::string& first_key, btree::PageNo child, uint64_t checksum,
              uint64_t entries);

  PageEmitter& out_;
  const uint32_t ps_;
  const uint64_t txn_id_;
  Level leaf_;
  std::vector<Level> branches_;
  uint64_t entries_ = 0;
};

}  // namespace ordo::engine
