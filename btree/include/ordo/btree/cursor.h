// Cursor: ordered iteration over one tree of one snapshot, both directions.
//
// Positions: after first()/last()/seek() the cursor is on an entry (valid())
// or past the end (!valid()). next()/prev() from an invalid cursor do nothing.
// key()/value() REQUIRE valid(); their views are valid as PageReader::read
// documents (in a write txn: until the next write in that txn).
// Every positioning call returns Corruption when it meets a damaged page.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>

#include "ordo/btree/page_access.h"
#include "ordo/btree/tree.h"
#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::btree {

namespace internal {
class DescentLoader;
}  // namespace internal

class Cursor {
 public:
  Cursor(PageReader& pages, const TreeRoot& tree)
      : pages_(&pages), page_size_(pages.page_size()), tree_(tree) {}

  Status first();
  Status last();
  // Positions on the first entry whose key >= `key`.
  Status seek(ByteView key);
  Status next();
  Status prev();

  bool valid() const { return valid_; }
  ByteView key() const;
  // An overflow value whose run is damaged yields an empty view and sets
  // status() to Corruption.
  ByteView value() const;
  // Corruption met by value(); ok otherwise.
  const Status& status() const { return status_; }

 private:
  struct Level {
    const std::byte* page = nullptr;
    PageNo page_number = kNullPage;
    uint32_t index = 0;
    uint32_t count = 0;
  };
  enum class Edge { kFirst, kLast };

  // Loads stack_[level] from page `pg` and sets its index to the edge.
  Status load_level(internal::DescentLoader& loader, uint32_t level, PageNo pg,
                    uint64_t expected_checksum, Edge edge);
  // Refills levels below `level` following the current indexes to `edge`.
  Status descend_from(internal::DescentLoader& loader, uint32_t level, Edge edge);
  // first() or last(): the root, then the edge child at every level.
  Status to_edge(Edge edge);

  PageReader* pages_;
  uint32_t page_size_;
  TreeRoot tree_;
  Level stack_[kMaxDepth];
  bool valid_ = false;
  mutable Status status_;
};

}  // namespace ordo::btree
