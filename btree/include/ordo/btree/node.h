// NodeView and NodeEditor: reading and changing one leaf or branch page in the
// layout of page_format.h.
//
// A NodeView never trusts the page: every slot and cell access is bounds-checked,
// and a bad one marks the view damaged (damaged() == true) and yields an empty
// result instead of reading outside the page. Callers turn damaged() into a
// Corruption status naming the page. NodeEditor assumes a page that was
// checked with check_node() or built by this code; it asserts (ORDO_ASSERT)
// its preconditions, so breaking one aborts instead of damaging the page.
//
// Thread-safety: views over committed pages may be used from many threads;
// an editor is used by the one writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ordo/btree/endian.h"
#include "ordo/btree/page_format.h"
#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::btree {

// Bytes of a leaf cell's value held in the cell itself (the value, or the
// overflow reference).
inline uint64_t inline_value_len(const std::byte* cell) {
  return (load_u16(cell + 2) & kValueOverflow) ? kOverflowRefBytes : load_u32(cell + 4);
}

class NodeView {
 public:
  NodeView(const std::byte* page, uint32_t page_size) : p_(page), page_size_(page_size) {}

  PageType type() const { return static_cast<PageType>(p_[kOffType]); }
  bool is_leaf() const { return type() == PageType::kLeaf; }
  bool is_branch() const { return type() == PageType::kBranch; }
  uint32_t count() const { return load_u16(p_ + kOffCount); }
  uint32_t cell_start() const { return load_u32(p_ + kOffCellStart); }
  uint64_t txn_id() const { return load_u64(p_ + kOffTxnId); }
  uint32_t cell_bytes() const { return load_u32(p_ + kOffCellBytes); }
  // Bytes in use: header, slots and live cells.
  uint32_t used_bytes() const { return kHeaderSize + kSlotSize * count() + cell_bytes(); }
  uint32_t free_bytes() const { return page_size_ - used_bytes(); }
  uint32_t page_size() const { return page_size_; }
  const std::byte* data() const { return p_; }

  // Key of entry i. For a branch, entry 0's key is empty.
  ByteView key(uint32_t i) const {
    return is_leaf() ? key_in(i, kLeafCellHeader, 0)
                     : key_in(i, kBranchCellHeader, kBranchOffKeyLen);
  }
  // Leaf only: the value bytes held in the cell of entry i: the value, or for
  // an overflow value its 16-byte reference (first page, run checksum).
  ByteView value(uint32_t i) const {
    const uint32_t off = cell_offset(i, kLeafCellHeader);
    if (off == 0) return {};
    const uint64_t klen = load_u16(p_ + off);
    const uint64_t vlen = inline_value_len(p_ + off);
    if (off + kLeafCellHeader + klen + vlen > page_size_) return (mark_damaged(), ByteView{});
    return ByteView(p_ + off + kLeafCellHeader + klen, vlen);
  }
  // Leaf only: whether entry i's value lives in an overflow run.
  bool is_overflow(uint32_t i) const {
    const uint32_t off = cell_offset(i, kLeafCellHeader);
    return off != 0 && (load_u16(p_ + off + 2) & kValueOverflow) != 0;
  }
  // Leaf only: the length of entry i's value in bytes (wherever it lives).
  uint64_t value_len(uint32_t i) const {
    const uint32_t off = cell_offset(i, kLeafCellHeader);
    return off == 0 ? 0 : load_u32(p_ + off + 4);
  }
  // Branch only: child page number and its checksum.
  PageNo child(uint32_t i) const {
    const uint32_t off = cell_offset(i, kBranchCellHeader);
    return off == 0 ? kNullPage : load_u64(p_ + off + kBranchOffChild);
  }
  uint64_t child_checksum(uint32_t i) const {
    const uint32_t off = cell_offset(i, kBranchCellHeader);
    return off == 0 ? 0 : load_u64(p_ + off + kBranchOffChecksum);
  }
  // Branch only: the number of entries in the subtree under child i.
  uint64_t child_entries(uint32_t i) const {
    const uint32_t off = cell_offset(i, kBranchCellHeader);
    return off == 0 ? 0 : load_u64(p_ + off + kBranchOffEntries);
  }
  // Bytes the cell of entry i occupies, without its slot.
  uint32_t cell_size(uint32_t i) const;

  // Leaf: first index whose key >= `key`; *found when equal.
  uint32_t leaf_lower_bound(ByteView key, bool* found) const {
    const uint32_t n = count();
    const uint32_t lo = lower_bound_in(key, 0, n, kLeafCellHeader, 0, false);
    *found = lo < n && !damaged_ && key_in(lo, kLeafCellHeader, 0).compare(key) == 0;
    return lo;
  }
  // Branch: index of the child whose range holds `key` (last entry whose key
  // <= key, entry 0 standing for minus infinity).
  uint32_t branch_child_index(ByteView key) const {
    return lower_bound_in(key, 1, count(), kBranchCellHeader, kBranchOffKeyLen, true) - 1;
  }

  bool damaged() const { return damaged_; }

 private:
  // Offset of the cell of entry i, or 0 (and damaged) when out of range.
  uint32_t cell_offset(uint32_t i, uint32_t header_bytes) const {
    const uint32_t n = count();
    if (i >= n) return mark_damaged();
    return checked_cell(load_u16(p_ + kHeaderSize + kSlotSize * i), kHeaderSize + kSlotSize * n,
                        header_bytes);
  }
  // `off` when a cell of at least `header_bytes` at `off` lies between the
  // slot array (ending at `slots_end`) and the page end; else 0, damaged.
  uint32_t checked_cell(uint32_t off, uint32_t slots_end, uint32_t header_bytes) const {
    // Slot offsets are u16; in 64 KiB pages offset 0 stands for 65536 only
    // when empty, which a live cell never is, so no special case is needed.
    if (off < slots_end || off + header_bytes > page_size_ || slots_end > page_size_) {
      return mark_damaged();
    }
    return off;
  }
  uint32_t mark_damaged() const {
    damaged_ = true;
    return 0;
  }
  // Key of entry i in a page whose cells start with `header_bytes` bytes and
  // keep the key length at byte `len_at` of the cell.
  ByteView key_in(uint32_t i, uint32_t header_bytes, uint32_t len_at) const {
    const uint32_t off = cell_offset(i, header_bytes);
    if (off == 0) return {};
    const uint32_t klen = load_u16(p_ + off + len_at);
    if (off + header_bytes + klen > page_size_) return (mark_damaged(), ByteView{});
    return ByteView(p_ + off + header_bytes, klen);
  }
  // Binary search over entries [lo, hi): the first whose key is > `key`
  // (`upper`) or >= `key`. The slot-array bound is checked once, each probed
  // cell against it and the page end, so the loop reads nothing outside the page.
  uint32_t lower_bound_in(ByteView key, uint32_t lo, uint32_t hi, uint32_t header_bytes,
                          uint32_t len_at, bool upper) const {
    const uint32_t slots_end = kHeaderSize + kSlotSize * hi;
    if (slots_end > page_size_) return (mark_damaged(), lo);
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      const uint32_t off =
          checked_cell(load_u16(p_ + kHeaderSize + kSlotSize * mid), slots_end, header_bytes);
      if (off == 0) return lo;
      const uint32_t klen = load_u16(p_ + off + len_at);
      if (off + header_bytes + klen > page_size_) return (mark_damaged(), lo);
      const int c = ByteView(p_ + off + header_bytes, klen).compare(key);
      if (upper ? c <= 0 : c < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  const std::byte* p_;
  uint32_t page_size_;
  mutable bool damaged_ = false;
};

// Entries in the subtree under this page: a leaf's count, or the sum of a
// branch's child counts (which its parent's cell records).
uint64_t subtree_entries(const NodeView& v);

// Verifies the header and every slot and cell lie inside the page and that
// the page has the expected type. Returns Corruption naming `page_number`.
Status check_node(const std::byte* page, uint32_t page_size, PageNo page_number);
// The same, plus ascending keys (entry 0 of a branch excepted).
Status check_node_order(const std::byte* page, uint32_t page_size, PageNo page_number);

// `inline_len`: the value bytes stored in the cell (kOverflowRefBytes for an
// overflow value).
inline uint32_t leaf_cell_size(size_t key_len, size_t inline_len) {
  return kLeafCellHeader + static_cast<uint32_t>(key_len + inline_len);
}
inline uint32_t branch_cell_size(size_t key_len) {
  return kBranchCellHeader + static_cast<uint32_t>(key_len);
}

class NodeEditor {
 public:
  NodeEditor(std::byte* page, uint32_t page_size) : p_(page), page_size_(page_size) {}

  NodeView view() const { return NodeView(p_, page_size_); }
  // Formats an empty page of `type` written by `txn_id`.
  void init(PageType type, uint64_t txn_id);
  void set_txn_id(uint64_t txn_id) { store_u64(p_ + kOffTxnId, txn_id); }

  // True when a cell of `cell_size` bytes plus its slot fits (maybe after compaction).
  bool fits(uint32_t cell_size) const { return view().free_bytes() >= cell_size + kSlotSize; }
  // REQUIRES: fits(leaf_cell_size(key, value)).
  void insert_leaf(uint32_t i, ByteView key, ByteView value);
  // A leaf entry whose value lives in the overflow run at `first`.
  // REQUIRES: fits(leaf_cell_size(key, kOverflowRefBytes)).
  void insert_leaf_overflow(uint32_t i, ByteView key, uint64_t value_len, PageNo first,
                            uint64_t run_checksum);
  // `entries`: the entries in the child's subtree.
  // REQUIRES: fits(branch_cell_size(key)).
  void insert_branch(uint32_t i, ByteView key, PageNo child, uint64_t checksum, uint64_t entries);
  // Inserts a raw cell image (a leaf or branch cell copied from another page).
  // REQUIRES: fits(cell.size()).
  void insert_cell(uint32_t i, std::span<const std::byte> cell);
  void remove(uint32_t i);
  // Keeps the entry's count: the new child holds the same entries.
  void set_child(uint32_t i, PageNo child, uint64_t checksum);
  void set_child_checksum(uint32_t i, uint64_t checksum);
  void set_child_entries(uint32_t i, uint64_t entries);
  // Adds `delta` (+1 or -1 for one key) to entry i's count. REQUIRES: the
  // count stays >= 0.
  void add_child_entries(uint32_t i, int64_t delta);
  // Packs live cells at the end of the page and zeroes the gap, so that page
  // bytes depend only on content (checksums and files stay deterministic).
  void compact();

  std::byte* data() { return p_; }

 private:
  // Reserves `size` bytes for a new cell and a slot at index i; returns the cell offset.
  uint32_t make_room(uint32_t i, uint32_t size);
  // The cell offset of entry i. REQUIRES: i < count and the cell's first
  // `header_bytes` bytes inside the page (asserted).
  uint32_t slot_offset(uint32_t i, uint32_t header_bytes) const;

  std::byte* p_;
  uint32_t page_size_;
};

}  // namespace ordo::btree
