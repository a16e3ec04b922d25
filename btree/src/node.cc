#include "ordo/btree/node.h"

#include <cstring>
#include <string>
#include <vector>

#include "ordo/assert.h"
#include "ordo/btree/overflow_ref.h"

namespace ordo::btree {

uint32_t NodeView::cell_size(uint32_t i) const {
  if (is_leaf()) {
    uint32_t off = cell_offset(i, kLeafCellHeader);
    if (off == 0) return 0;
    return leaf_cell_size(load_u16(p_ + off), inline_value_len(p_ + off));
  }
  uint32_t off = cell_offset(i, kBranchCellHeader);
  if (off == 0) return 0;
  return branch_cell_size(load_u16(p_ + off + kBranchOffKeyLen));
}

Status check_node(const std::byte* page, uint32_t page_size, PageNo page_number) {
  ORDO_ASSERT(page != nullptr && valid_page_size(page_size));
  NodeView v(page, page_size);
  if (!v.is_leaf() && !v.is_branch()) {
    return Status::corruption(
        "not a tree page (type " + std::to_string(static_cast<int>(page[kOffType])) + ")",
        page_number);
  }
  uint32_t n = v.count();
  if (kHeaderSize + kSlotSize * n > page_size || v.cell_start() > page_size ||
      v.cell_start() < kHeaderSize + kSlotSize * n || v.used_bytes() > page_size) {
    return Status::corruption("page header out of bounds (count " + std::to_string(n) + ")",
                              page_number);
  }
  if (v.is_branch() && n == 0) return Status::corruption("empty branch page", page_number);
  // One pass over the slots: each cell's header and body inside the page.
  const bool leaf = v.is_leaf();
  const uint32_t header = leaf ? kLeafCellHeader : kBranchCellHeader;
  const uint32_t lowest = kHeaderSize + kSlotSize * n;
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t off = load_u16(page + kHeaderSize + kSlotSize * i);
    uint64_t size = 0;
    if (off >= lowest && off + header <= page_size) {
      size = leaf ? leaf_cell_size(load_u16(page + off), inline_value_len(page + off))
                  : branch_cell_size(load_u16(page + off + kBranchOffKeyLen));
    }
    if (size == 0 || off + size > page_size) {
      return Status::corruption("cell " + std::to_string(i) + " out of bounds", page_number);
    }
    total += size;
  }
  if (total != v.cell_bytes()) {
    return Status::corruption("cell byte count mismatch", page_number);
  }
  return Status::ok();
}

Status check_node_order(const std::byte* page, uint32_t page_size, PageNo page_number) {
  ORDO_RETURN_IF_ERROR(check_node(page, page_size, page_number));
  NodeView v(page, page_size);
  uint32_t first = v.is_branch() ? 2 : 1;
  for (uint32_t i = first; i < v.count(); ++i) {
    if (v.key(i - 1).compare(v.key(i)) >= 0) {
      return Status::corruption("keys out of order at entry " + std::to_string(i), page_number);
    }
  }
  return Status::ok();
}

void NodeEditor::init(PageType type, uint64_t txn_id) {
  ORDO_ASSERT(type == PageType::kLeaf || type == PageType::kBranch);
  ORDO_ASSERT(valid_page_size(page_size_));
  std::memset(p_, 0, page_size_);
  p_[kOffType] = static_cast<std::byte>(type);
  store_u32(p_ + kOffCellStart, page_size_);
  store_u64(p_ + kOffTxnId, txn_id);
}

void NodeEditor::compact() {
  NodeView v = view();
  uint32_t n = v.count();
  thread_local std::vector<std::byte> scratch;
  scratch.assign(p_, p_ + page_size_);
  NodeView old(scratch.data(), page_size_);
  uint32_t top = page_size_;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t size = old.cell_size(i);
    uint32_t off = load_u16(scratch.data() + kHeaderSize + kSlotSize * i);
    ORDO_ASSERT(size != 0 && off + size <= page_size_ && top >= kHeaderSize + kSlotSize * n + size);
    top -= size;
    std::memcpy(p_ + top, scratch.data() + off, size);
    store_u16(p_ + kHeaderSize + kSlotSize * i, static_cast<uint16_t>(top));
  }
  uint32_t slots_end = kHeaderSize + kSlotSize * n;
  std::memset(p_ + slots_end, 0, top - slots_end);
  store_u32(p_ + kOffCellStart, top);
}

uint32_t NodeEditor::make_room(uint32_t i, uint32_t size) {
  NodeView v = view();
  uint32_t n = v.count();
  ORDO_ASSERT(i <= n);
  ORDO_ASSERT(fits(size));
  uint32_t slots_end_after = kHeaderSize + kSlotSize * (n + 1);
  if (v.cell_start() < slots_end_after + size) compact();
  // After compaction the gap holds every free byte, so fits() makes room.
  ORDO_ASSERT(load_u32(p_ + kOffCellStart) >= slots_end_after + size);
  uint32_t start = load_u32(p_ + kOffCellStart) - size;
  std::byte* slots = p_ + kHeaderSize;
  std::memmove(slots + kSlotSize * (i + 1), slots + kSlotSize * i, kSlotSize * (n - i));
  store_u16(slots + kSlotSize * i, static_cast<uint16_t>(start));
  store_u16(p_ + kOffCount, static_cast<uint16_t>(n + 1));
  store_u32(p_ + kOffCellStart, start);
  store_u32(p_ + kOffCellBytes, v.cell_bytes() + size);
  ORDO_ASSERT(view().used_bytes() <= page_size_);
  return start;
}

uint32_t NodeEditor::slot_offset(uint32_t i, uint32_t header_bytes) const {
  ORDO_ASSERT(i < view().count());
  const uint32_t off = load_u16(p_ + kHeaderSize + kSlotSize * i);
  ORDO_ASSERT(off >= kHeaderSize + kSlotSize * view().count() && off + header_bytes <= page_size_);
  return off;
}

void NodeEditor::insert_leaf(uint32_t i, ByteView key, ByteView value) {
  ORDO_ASSERT(view().is_leaf());
  uint32_t off = make_room(i, leaf_cell_size(key.size(), value.size()));
  store_u16(p_ + off, static_cast<uint16_t>(key.size()));
  store_u16(p_ + off + 2, 0);
  store_u32(p_ + off + 4, static_cast<uint32_t>(value.size()));
  if (!key.empty()) std::memcpy(p_ + off + kLeafCellHeader, key.data(), key.size());
  if (!value.empty()) {
    std::memcpy(p_ + off + kLeafCellHeader + key.size(), value.data(), value.size());
  }
}

void NodeEditor::insert_leaf_overflow(uint32_t i, ByteView key, uint64_t value_len, PageNo first,
                                      uint64_t run_checksum) {
  ORDO_ASSERT(view().is_leaf() && first != kNullPage);
  uint32_t off = make_room(i, leaf_cell_size(key.size(), kOverflowRefBytes));
  store_u16(p_ + off, static_cast<uint16_t>(key.size()));
  store_u16(p_ + off + 2, kValueOverflow);
  store_u32(p_ + off + 4, static_cast<uint32_t>(value_len));
  if (!key.empty()) std::memcpy(p_ + off + kLeafCellHeader, key.data(), key.size());
  encode_overflow_ref({first, run_checksum}, p_ + off + kLeafCellHeader + key.size());
}

void NodeEditor::insert_branch(uint32_t i, ByteView key, PageNo child, uint64_t checksum,
                               uint64_t entries) {
  ORDO_ASSERT(view().is_branch());
  uint32_t off = make_room(i, branch_cell_size(key.size()));
  store_u64(p_ + off + kBranchOffChild, child);
  store_u64(p_ + off + kBranchOffChecksum, checksum);
  store_u64(p_ + off + kBranchOffEntries, entries);
  store_u16(p_ + off + kBranchOffKeyLen, static_cast<uint16_t>(key.size()));
  if (!key.empty()) std::memcpy(p_ + off + kBranchCellHeader, key.data(), key.size());
}

void NodeEditor::insert_cell(uint32_t i, std::span<const std::byte> cell) {
  ORDO_ASSERT(cell.size() >= (view().is_leaf() ? kLeafCellHeader : kBranchCellHeader) &&
              cell.size() < page_size_);
  uint32_t off = make_room(i, static_cast<uint32_t>(cell.size()));
  std::memcpy(p_ + off, cell.data(), cell.size());
}

void NodeEditor::remove(uint32_t i) {
  NodeView v = view();
  uint32_t n = v.count();
  uint32_t size = v.cell_size(i);
  uint32_t off = slot_offset(i, 0);
  ORDO_ASSERT(size != 0 && off + size <= page_size_ && size <= v.cell_bytes());
  std::memset(p_ + off, 0, size);
  if (off == v.cell_start()) store_u32(p_ + kOffCellStart, off + size);
  std::byte* slots = p_ + kHeaderSize;
  std::memmove(slots + kSlotSize * i, slots + kSlotSize * (i + 1), kSlotSize * (n - i - 1));
  store_u16(slots + kSlotSize * (n - 1), 0);
  store_u16(p_ + kOffCount, static_cast<uint16_t>(n - 1));
  store_u32(p_ + kOffCellBytes, v.cell_bytes() - size);
  if (n == 1) store_u32(p_ + kOffCellStart, page_size_);
}

void NodeEditor::set_child(uint32_t i, PageNo child, uint64_t checksum) {
  ORDO_ASSERT(view().is_branch() && child != kNullPage);
  uint32_t off = slot_offset(i, kBranchCellHeader);
  store_u64(p_ + off + kBranchOffChild, child);
  store_u64(p_ + off + kBranchOffChecksum, checksum);
}

void NodeEditor::set_child_checksum(uint32_t i, uint64_t checksum) {
  ORDO_ASSERT(view().is_branch());
  uint32_t off = slot_offset(i, kBranchCellHeader);
  store_u64(p_ + off + kBranchOffChecksum, checksum);
}

void NodeEditor::set_child_entries(uint32_t i, uint64_t entries) {
  ORDO_ASSERT(view().is_branch());
  uint32_t off = slot_offset(i, kBranchCellHeader);
  store_u64(p_ + off + kBranchOffEntries, entries);
}

void NodeEditor::add_child_entries(uint32_t i, int64_t delta) {
  ORDO_ASSERT(view().is_branch());
  uint32_t off = slot_offset(i, kBranchCellHeader);
  const uint64_t now = load_u64(p_ + off + kBranchOffEntries);
  // A removal only passes through a child that holds the removed key.
  ORDO_ASSERT(delta >= 0 || now >= static_cast<uint64_t>(-delta));
  store_u64(p_ + off + kBranchOffEntries, now + static_cast<uint64_t>(delta));
}

uint64_t subtree_entries(const NodeView& v) {
  ORDO_ASSERT(v.is_leaf() || v.is_branch());
  if (v.is_leaf()) return v.count();
  uint64_t sum = 0;
  for (uint32_t i = 0; i < v.count(); ++i) sum += v.child_entries(i);
  return sum;
}

}  // namespace ordo::btree
