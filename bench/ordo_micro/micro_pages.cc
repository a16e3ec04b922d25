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
  editor.insert_branch(0, ByteView(), 2, 0);
  uint32_t n = 1;
  while (editor.fits(btree::branch_cell_size(kKeyBytes))) {
    const Key k = key(n);
    editor.insert_branch(n, ByteView(k.data(), k.size()), 2 + n, 0);
    ++n;
  }
  *entries = n;
  return page;
}

Result<const std::byte*> MemoryPages::read(btree::PageNo page_number) {
  if (page_number < kFirst || page_number - kFirst >= pages_.size() ||
      pages_[page_number - kFirst] == nullptr) {
    return Status::corruption("no such page", page_number);
  }
  return static_cast<const std::byte*>(pages_[page_number - kFirst].get());
}

Result<const std::byte*> MemoryPages::read_run(btree::PageNo first, uint64_t pages) {
  return Status::corruption("no overflow runs in MemoryPages", first);
}

bool MemoryPages::is_dirty(btree::PageNo page_number) const {
  return page_number >= kFirst && page_number - kFirst < pages_.size() &&
         pages_[page_number - kFirst] != nullptr;
}

std::byte* MemoryPages::writable(btree::PageNo page_number) {
  return pages_[page_number - kFirst].get();
}

Result<btree::PageNo> MemoryPages::make_dirty(btree::PageNo page_number) {
  if (!is_dirty(page_number)) return Status::corruption("no such page", page_number);
  return page_number;
}

Result<btree::PageNo> MemoryPages::allocate() {
  pages_.push_back(std::make_unique<std::byte[]>(page_size_));
  std::memset(pages_.back().get(), 0, page_size_);
  return kFirst + pages_.size() - 1;
}

void MemoryPages::free_page(btree::PageNo page_number) {
  if (is_dirty(page_number)) pages_[page_number - kFirst].reset();
}

Result<btree::PageNo> MemoryPages::write_run(std::span<const std::span<const std::byte>> parts,
                                             uint64_t pages) {
  return Status::invalid_argument("no overflow runs in MemoryPages");
}

}  // namespace ordo::micro
