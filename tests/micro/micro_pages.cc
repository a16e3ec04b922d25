#include "micro_pages.h"

#include <cstring>

#include "ordo/btree/endian.h"
#include "ordo/btree/node.h"

namespace ordo::micro {

Key key(uint64_t i) {
  Key k{};
  btree::store_be64(k.data() + 8, i);
  return k;
}

std::span<const std::byte> value_bytes() {
  static const std::array<std::byte, kValueBytes> kValue{};
  return kValue;
}

std::vector<std::byte> full_leaf(uint32_t page_size, uint32_t* entries) {
  std::vector<std::byte> page(page_size);
  btree::NodeEditor editor(page.data(), page_size);
  editor.init(btree::PageType::kLeaf, 1);
  uint32_t n = 0;
  while (editor.fits(btree::leaf_cell_size(kKeyBytes, kValueBytes))) {
    const Key k = key(n);
    editor.insert_leaf(n++, ByteView(k.data(), k.size()), ByteView(value_bytes()));
  }
  *entries = n;
  return page;
}

std::vector<std::byte> full_branch(uint32_t page_size, uint32_t* entries) {
  std::vector<std::byte> page(page_size);
  btree::NodeEditor editor(page.data(), page_size);
  editor.init(btree::PageType::kBranch, 1);
  editor.insert_branch(0, ByteView(), 2, 0, 1);
  uint32_t n = 1;
  while (editor.fits(btree::branch_cell_size(kKeyBytes))) {
    const Key k = key(n);
    editor.insert_branch(n, ByteView(k.data(), k.size()), 2 + n, 0, 1);
    ++n;
  }
  *entries = n;
  return page;
}

}  // namespace ordo::micro
