// Byte layout of B+-tree pages (leaf, branch) and the size limits they imply.
// docs/FORMAT.md describes the same numbers; tests check they agree.
//
// Every tree page starts with a 24-byte header:
//   off size field
//     0    1 page type (PageType)
//     1    1 flags (0; reserved)
//     2    2 entry count
//     4    4 cell_start: offset of the lowest cell byte (page size when empty)
//     8    8 txn id that wrote the page
//    16    4 cell_bytes: bytes held by live cells
//    20    4 reserved (0)
// Then a slot array of `count` u16 cell offsets in key order; cells are packed
// from the end of the page downwards.
//   leaf cell:   u16 key_len, u16 value_flags, u32 value_len, key, value
//                value_flags bit 0 (kValueOverflow): the value lives in an
//                overflow run and the cell holds 16 bytes instead of it:
//                u64 first page of the run, u64 XXH3-64 of the whole run.
// An overflow run is ceil((24 + value_len) / page size) adjacent pages: a
// 24-byte header (type kOverflow, txn id; other fields 0), the value, zeros.
//   branch cell: u64 child page number, u64 child XXH3-64 checksum,
//                u64 entries in the child's subtree, u16 key_len, key
// A branch's entry 0 has no lower bound: its key is stored empty and ignored.
// The entry counts make rank and position queries O(depth); the child's
// checksum in its parent covers them, like every other byte of the page.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ordo::btree {

using PageNo = uint64_t;
// "No page": the root of an empty tree, the parent of a root, a child that a
// damaged branch cell cannot name. Pages 0 and 1 are the meta pages, so 0 never
// names a tree or overflow page; never report it as the page of a problem.
inline constexpr PageNo kNullPage = 0;
// The lowest page number of a tree, overflow or free page.
inline constexpr PageNo kFirstDataPage = 2;

enum class PageType : uint8_t {
  kMeta = 1,
  kBranch = 2,
  kLeaf = 3,
  kOverflow = 4,
};

inline constexpr uint16_t kValueOverflow = 1;
inline constexpr uint32_t kOverflowRefBytes = 16;

inline constexpr uint32_t kMinPageSize = 4096;
inline constexpr uint32_t kMaxPageSize = 65536;
inline constexpr uint32_t kDefaultPageSize = 4096;

inline constexpr uint32_t kHeaderSize = 24;
inline constexpr uint32_t kOffType = 0;
inline constexpr uint32_t kOffFlags = 1;
inline constexpr uint32_t kOffCount = 2;
inline constexpr uint32_t kOffCellStart = 4;
inline constexpr uint32_t kOffTxnId = 8;
inline constexpr uint32_t kOffCellBytes = 16;

inline constexpr uint32_t kSlotSize = 2;
inline constexpr uint32_t kLeafCellHeader = 8;
inline constexpr uint32_t kBranchCellHeader = 26;
// Offsets inside a branch cell.
inline constexpr uint32_t kBranchOffChild = 0;
inline constexpr uint32_t kBranchOffChecksum = 8;
inline constexpr uint32_t kBranchOffEntries = 16;
inline constexpr uint32_t kBranchOffKeyLen = 24;

// Deepest tree accepted; deeper means a damaged file (for example a cycle).
inline constexpr uint32_t kMaxDepth = 32;

// Largest key in bytes for a page size: any two maximal cells plus slots fit
// in one page, so a split always succeeds. 1000 bytes at 4 KiB pages.
constexpr uint32_t max_key_bytes(uint32_t page_size) { return page_size / 4 - 24; }
// Largest value in bytes stored in the leaf itself (1024 bytes at 4 KiB
// pages); larger values go to an overflow run.
constexpr uint32_t max_inline_value_bytes(uint32_t page_size) { return page_size / 4; }
// Largest value in bytes (128 MiB).
inline constexpr uint64_t kMaxValueBytes = 128ull << 20;
// Pages of the overflow run holding a value of `value_len` bytes.
constexpr uint64_t overflow_pages(uint64_t value_len, uint32_t page_size) {
  return (kHeaderSize + value_len + page_size - 1) / page_size;
}

constexpr bool valid_page_size(uint32_t page_size) {
  return page_size >= kMinPageSize && page_size <= kMaxPageSize &&
         (page_size & (page_size - 1)) == 0;
}

static_assert(kLeafCellHeader + kSlotSize + max_key_bytes(kMinPageSize) +
                      max_inline_value_bytes(kMinPageSize) <=
                  (kMinPageSize - kHeaderSize) / 2,
              "two maximal leaf cells must fit one page");
static_assert(kLeafCellHeader + kSlotSize + max_key_bytes(kMaxPageSize) +
                      max_inline_value_bytes(kMaxPageSize) <=
                  (kMaxPageSize - kHeaderSize) / 2,
              "two maximal leaf cells must fit one page");

// A split of a branch page always succeeds: two maximal branch cells (a
// separator is at most a key) and their slots fit one page.
static_assert(kBranchCellHeader + kSlotSize + max_key_bytes(kMinPageSize) <=
                  (kMinPageSize - kHeaderSize) / 2,
              "two maximal branch cells must fit one page");
static_assert(kBranchCellHeader + kSlotSize + max_key_bytes(kMaxPageSize) <=
                  (kMaxPageSize - kHeaderSize) / 2,
              "two maximal branch cells must fit one page");

}  // namespace ordo::btree
