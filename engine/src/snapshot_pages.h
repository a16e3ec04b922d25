// Page access for a read txn: committed pages straight from the mapping.
#pragma once

#include <string>

#include "meta.h"
#include "ordo/assert.h"
#include "ordo/btree/page_access.h"
#include "ordo/io/page_file.h"

namespace ordo::engine {

// Reads a committed page through the mapping, refusing numbers outside the
// snapshot's pages so a damaged reference never reads out of bounds.
inline Result<const std::byte*> read_committed(const io::PageFile& file, uint32_t page_size,
                                               uint64_t high_water, btree::PageNo pg) {
  if (pg < kFirstDataPage || pg >= high_water) {
    return Status::corruption(
        "page number outside the database (high-water mark " + std::to_string(high_water) + ")",
        pg);
  }
  const std::byte* p = file.data(pg * page_size, page_size);
  if (p == nullptr) return Status::corruption("page lies beyond the end of the file", pg);
  return p;
}

// The contiguous bytes of an overflow run, checked to lie inside the snapshot.
inline Result<const std::byte*> read_committed_run(const io::PageFile& file, uint32_t page_size,
                                                   uint64_t high_water, btree::PageNo first,
                                                   uint64_t pages) {
  if (first < kFirstDataPage || pages == 0 || first >= high_water || pages > high_water - first) {
    return Status::corruption("overflow run of " + std::to_string(pages) +
                                  " pages lies outside the database (high-water mark " +
                                  std::to_string(high_water) + ")",
                              first);
  }
  const std::byte* p = file.data(first * page_size, pages * page_size);
  if (p == nullptr)
    return Status::corruption("overflow run lies beyond the end of the file", first);
  return p;
}

class SnapshotPages : public btree::PageReader {
 public:
  SnapshotPages(const io::PageFile& file, uint32_t page_size, uint64_t high_water, bool verify)
      : file_(file), page_size_(page_size), high_water_(high_water), verify_(verify) {
    // From a decoded meta (decode_meta() checked both).
    ORDO_ASSERT(btree::valid_page_size(page_size) && high_water >= kFirstDataPage);
  }
  // Reads a later snapshot of the same file (a renewed read txn).
  void set_high_water(uint64_t high_water) {
    ORDO_ASSERT(high_water >= kFirstDataPage);  // a decoded meta's
    high_water_ = high_water;
  }
  bool verify_checksums() const override { return verify_; }
  uint32_t page_size() const override { return page_size_; }
  Result<const std::byte*> read(btree::PageNo pg) override {
    return read_committed(file_, page_size_, high_water_, pg);
  }
  Result<const std::byte*> read_run(btree::PageNo first, uint64_t pages) override {
    return read_committed_run(file_, page_size_, high_water_, first, pages);
  }
  Mapping mapping() const override {
    if (high_water_ <= kFirstDataPage) return {};
    const std::byte* base = file_.data(0, high_water_ * page_size_);
    return base == nullptr ? Mapping{} : Mapping{base, kFirstDataPage, high_water_};
  }

 private:
  const io::PageFile& file_;
  uint32_t page_size_;
  uint64_t high_water_;
  bool verify_;
};

}  // namespace ordo::engine
