// Fixtures of ordo-micro: keys, filled leaf and branch pages, and an
// in-memory PageWriter to build whole trees without a file.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ordo/btree/page_access.h"

namespace ordo::micro {

// Node keys as ordo stores them: 16 bytes, big-endian; key(i) < key(i + 1).
inline constexpr size_t kKeyBytes = 16;
using Key = std::array<std::byte, kKeyBytes>;
Key key(uint64_t i);

// The value of every fixture entry: 64 bytes, the size of a nodes record.
inline constexpr size_t kValueBytes = 64;
std::span<const std::byte> value_bytes();

// A page of `page_size` bytes formatted as a leaf holding key(0), key(1), ...
// with 64-byte values until the next one would not fit. `*entries` gets the count.
std::vector<std::byte> full_leaf(uint32_t page_size, uint32_t* entries);

// The same as a branch: key(0) (stored empty, as entry 0 of a branch is) ...
// with child page numbers 2, 3, ...
std::vector<std::byte> full_branch(uint32_t page_size, uint32_t* entries);

// A PageWriter in memory for one never-committed write txn: every page is
// dirty, so the tree edits pages in place. Overflow runs are not supported
// (write_run returns InvalidArgument). One thread.
class MemoryPages : public btree::PageWriter {
 public:
  explicit MemoryPages(uint32_t page_size) : page_size_(page_size) {}

  uint32_t page_size() const override { return page_size_; }
  uint64_t txn_id() const override { return 1; }
  Result<const std::byte*> read(btree::PageNo page_number) override;
  Result<const std::byte*> read_run(btree::PageNo first, uint64_t pages) override;
  bool is_dirty(btree::PageNo page_number) const override;
  std::byte* writable(btree::PageNo page_number) override;
  Result<btree::PageNo> make_dirty(btree::PageNo page_number) override;
  Result<btree::PageNo> allocate() override;
  void free_page(btree::PageNo page_number) override;
  Result<btree::PageNo> write_run(std::span<const std::span<const std::byte>> parts,
                                  uint64_t pages) override;
  void free_run(btree::PageNo first, uint64_t pages) override {}

 private:
  static constexpr btree::PageNo kFirst = 2;  // 0 and 1 are meta pages in a file
  uint32_t page_size_;
  std::vector<std::unique_ptr<std::byte[]>> pages_;  // index: page number - kFirst
};

}  // namespace ordo::micro
