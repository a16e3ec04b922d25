#include "commit_checks.h"

#include <cstdio>
#include <unordered_map>

#include "ordo/assert.h"
#include "ordo/btree/node.h"
#include "ordo/btree/walk.h"

namespace ordo::engine {
namespace {

using btree::PageNo;

// The pages of a commit, as a PageReader that verifies every read.
class WrittenPages : public btree::PageReader {
 public:
  WrittenPages(uint32_t page_size, std::span<const io::WriteSpan> spans) : page_size_(page_size) {
    for (const io::WriteSpan& s : spans) {
      pages_.emplace(s.offset_bytes / page_size, static_cast<const std::byte*>(s.data));
    }
    ORDO_ASSERT(pages_.size() == spans.size());  // No page is written twice.
  }
  bool written(PageNo pg) const { return pages_.count(pg) != 0; }
  uint32_t page_size() const override { return page_size_; }
  Result<const std::byte*> read(PageNo pg) override {
    auto it = pages_.find(pg);
    if (it == pages_.end()) return Status::corruption("not written by this commit", pg);
    return it->second;
  }
  Result<const std::byte*> read_run(PageNo first, uint64_t) override {
    return Status::corruption("overflow runs are not among the commit's pages", first);
  }
  bool verify_checksums() const override { return true; }

 private:
  uint32_t page_size_;
  std::unordered_map<PageNo, const std::byte*> pages_;
};

// Enters only written pages: the others were verified when committed.
class WrittenOnly : public btree::PageVisitor {
 public:
  explicit WrittenOnly(const WrittenPages& pages) : pages_(pages) {}
  bool enter(const btree::PageRef& ref) override { return pages_.written(ref.page); }

 private:
  const WrittenPages& pages_;
};

bool checksums_match(const Meta& meta, std::span<const btree::TreeRoot> roots,
                     std::span<const io::WriteSpan> spans) {
  WrittenPages pages(meta.page_size, spans);
  WrittenOnly visitor(pages);
  btree::WalkOptions options;
  // Key order is the tree algorithms' job on pages that passed check_node
  // only; a damaged file must not abort here.
  options.check_order = false;
  for (const btree::TreeRoot& root : roots) {
    Status s = btree::walk_tree(pages, root, visitor, options);
    if (!s.is_ok()) {
      std::fprintf(stderr, "commit of txn %llu: %s\n", static_cast<unsigned long long>(meta.txn_id),
                   s.to_string().c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

void check_pages_before_write(const Meta& meta, std::span<const btree::TreeRoot> roots,
                              std::span<const io::WriteSpan> spans, uint64_t stamp_txn) {
  const uint32_t ps = meta.page_size;
  for (const io::WriteSpan& s : spans) {
    ORDO_ASSERT(s.size_bytes == ps && s.offset_bytes % ps == 0);
    const PageNo pg = s.offset_bytes / ps;
    ORDO_ASSERT(pg >= kFirstDataPage && pg < meta.page_high_water);
    const btree::NodeView v(static_cast<const std::byte*>(s.data), ps);
    ORDO_ASSERT(v.is_leaf() || v.is_branch());
    if (stamp_txn == 0) {
      ORDO_ASSERT(v.txn_id() == meta.txn_id);
    } else {
      ORDO_ASSERT(v.txn_id() == stamp_txn);  // a commit_as() commit's pages
    }
    ORDO_ASSERT(btree::kHeaderSize + btree::kSlotSize * v.count() <= v.cell_start() &&
                v.cell_start() <= ps && v.used_bytes() <= ps);
  }
  ORDO_DCHECK(checksums_match(meta, roots, spans));
}

}  // namespace ordo::engine
