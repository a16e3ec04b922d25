#include "snapshot_walk.h"

#include <xxhash.h>

#include <string>

#include "ordo/btree/endian.h"

namespace ordo::engine {
namespace {

using btree::NodeView;
using btree::PageNo;

Status walk_page(btree::PageReader& pages, PageNo pg, uint64_t expected, uint32_t level,
                 uint32_t depth, PageNo parent, const TreeWalk& walk) {
  ORDO_ASSIGN_OR_RETURN(const std::byte* p, pages.read(pg));
  const uint32_t ps = pages.page_size();
  if (walk.verify) {
    const uint64_t actual = btree::page_checksum(p, ps);
    if (actual != expected) {
      return Status::corruption("checksum mismatch: parent records " + std::to_string(expected) +
                                    ", page has " + std::to_string(actual),
                                pg);
    }
  }
  ORDO_RETURN_IF_ERROR(btree::check_node_order(p, ps, pg));
  NodeView v(p, ps);
  const bool leaf = level + 1 == depth;
  if (v.is_leaf() != leaf) {
    return Status::corruption(leaf ? "expected a leaf page" : "expected a branch page", pg);
  }
  if (!leaf && v.count() == 0) return Status::corruption("empty branch page", pg);
  if (walk.page) ORDO_RETURN_IF_ERROR(walk.page(pg, v, level, parent, expected));
  if (leaf) {
    if (walk.entry) {
      for (uint32_t i = 0; i < v.count(); ++i) ORDO_RETURN_IF_ERROR(walk.entry(v, i, pg));
    }
    return Status::ok();
  }
  for (uint32_t i = 0; i < v.count(); ++i) {
    ORDO_RETURN_IF_ERROR(
        walk_page(pages, v.child(i), v.child_checksum(i), level + 1, depth, pg, walk));
  }
  return Status::ok();
}

}  // namespace

Status walk_tree(btree::PageReader& pages, const btree::TreeRoot& root, const TreeWalk& walk) {
  if (root.root == btree::kNoPage) return Status::ok();
  if (root.depth == 0 || root.depth > btree::kMaxDepth) {
    return Status::corruption("tree depth " + std::to_string(root.depth) + " out of range",
                              root.root);
  }
  return walk_page(pages, root.root, root.root_checksum, 0, root.depth, btree::kNoPage, walk);
}

Result<OverflowRun> read_overflow(btree::PageReader& pages, const NodeView& leaf, uint32_t i,
                                  PageNo leaf_pg, bool verify) {
  const ByteView ref = leaf.value(i);
  if (leaf.damaged() || ref.size() != btree::kOverflowRefBytes) {
    return Status::corruption("bad overflow reference", leaf_pg);
  }
  const uint64_t len = leaf.value_len(i);
  if (len > btree::kMaxValueBytes) return Status::corruption("overflow value too long", leaf_pg);
  OverflowRun run;
  run.first = btree::load_u64(ref.data());
  run.checksum = btree::load_u64(ref.data() + 8);
  run.pages = btree::overflow_pages(len, pages.page_size());
  ORDO_ASSIGN_OR_RETURN(run.bytes, pages.read_run(run.first, run.pages));
  if (static_cast<btree::PageType>(run.bytes[btree::kOffType]) != btree::PageType::kOverflow) {
    return Status::corruption("overflow run does not start with an overflow page", run.first);
  }
  if (verify && XXH3_64bits(run.bytes, run.pages * pages.page_size()) != run.checksum) {
    return Status::corruption("overflow run checksum mismatch (referenced by page " +
                                  std::to_string(leaf_pg) + ")",
                              run.first);
  }
  return run;
}

}  // namespace ordo::engine
