// IdArray: the workload's own list of node IDs (16 bytes each), kept where
// it does not blur the engine's memory figures when asked to.
//
// At 10,000,000 nodes the list alone is 160 MB. On the heap it would count in
// RssAnon, the figure a one-txn load is judged by (peak RssAnon under the
// txn memory budget). File-backed, it is a MAP_SHARED mapping of a scratch
// file: its resident pages count in RssFile and the kernel can write them
// back and drop them, as it can the database's own mapping.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/status.h"
#include "ordo/uuid.h"

namespace ordo::bench {

// Move-only. One thread at a time.
class IdArray {
 public:
  // `count` zero IDs on the heap.
  static IdArray on_heap(uint64_t count);
  // `count` zero IDs in a MAP_SHARED mapping of a new file at `path`; the
  // file is unlinked at once (the mapping keeps it alive), so nothing is left
  // behind whatever happens. IOError when it cannot be made or mapped.
  static Result<IdArray> file_backed(const std::string& path, uint64_t count);

  IdArray(IdArray&& other) noexcept;
  IdArray& operator=(IdArray&& other) noexcept;
  ~IdArray();

  Uuid& operator[](uint64_t i) { return data_[i]; }
  const Uuid& operator[](uint64_t i) const { return data_[i]; }
  uint64_t size() const { return count_; }
  std::span<const Uuid> view() const { return {data_, count_}; }

  bool is_file_backed() const { return mapped_bytes_ != 0; }
  // "heap (RssAnon)" or "file-backed MAP_SHARED (RssFile)".
  std::string_view storage() const;

 private:
  IdArray() = default;
  void release();

  std::vector<Uuid> heap_;
  Uuid* data_ = nullptr;
  uint64_t count_ = 0;
  size_t mapped_bytes_ = 0;  // non-zero: data_ is a mapping of that length
};

}  // namespace ordo::bench
