#include <cstring>
#include <string>
#include <vector>

#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"
#include "tree_internal.h"

namespace ordo::btree {

using internal::check_header;

namespace {

struct PathEntry {
  PageNo page;
  uint32_t index;  // child index taken in this branch
};

// Makes `pg` writable, checking a committed page fully before copying it so a
// damaged page is reported, never built upon.
Result<PageNo> cow(PageWriter& pw, PageNo pg, bool expect_leaf) {
  if (pw.is_dirty(pg)) return pg;
  ORDO_ASSIGN_OR_RETURN(const std::byte* p, pw.read(pg));
  ORDO_RETURN_IF_ERROR(check_node(p, pw.page_size(), pg));
  ORDO_RETURN_IF_ERROR(check_header(NodeView(p, pw.page_size()), pg, expect_leaf));
  return pw.make_dirty(pg);
}

// Descends to the leaf for `key`, copying each page on the way. Fills `path`
// with the branches (depth-1 of them) and returns the leaf's page number.
Result<PageNo> cow_path(PageWriter& pw, TreeRoot& tree, ByteView key, PathEntry* path) {
  if (tree.depth == 0 || tree.depth > kMaxDepth) {
    return Status::corruption("tree depth " + std::to_string(tree.depth) + " out of range",
                              tree.root);
  }
  ORDO_ASSIGN_OR_RETURN(PageNo pg, cow(pw, tree.root, tree.depth == 1));
  tree.root = pg;
  for (uint32_t level = 0; level + 1 < tree.depth; ++level) {
    NodeEditor ed(pw.writable(pg), pw.page_size());
    NodeView v = ed.view();
    uint32_t idx = v.branch_child_index(key);
    PageNo child = v.child(idx);
    if (v.damaged()) return internal::damaged(pg);
    ORDO_ASSIGN_OR_RETURN(PageNo copy, cow(pw, child, level + 2 == tree.depth));
    if (copy != child) ed.set_child(idx, copy, 0);
    path[level] = {pg, idx};
    pg = copy;
  }
  return pg;
}

std::vector<std::byte>& scratch_page(size_t which) {
  thread_local std::vector<std::byte> bufs[2];
  return bufs[which];
}

// Splits page `pg` while inserting `cell` at `pos`. The left part stays in
// `pg`; the right part goes to a new page. Returns the new page and the
// separator (first key of the right part).
struct SplitResult {
  PageNo right;
  std::string separator;
};

Result<SplitResult> split_insert(PageWriter& pw, PageNo pg, uint32_t pos,
                                 std::span<const std::byte> cell) {
  const uint32_t ps = pw.page_size();
  std::vector<std::byte>& copy = scratch_page(0);
  copy.assign(pw.writable(pg), pw.writable(pg) + ps);
  NodeView old(copy.data(), ps);
  const bool leaf = old.is_leaf();
  const uint32_t n = old.count();

  // Cell images in key order, the new one at pos.
  std::vector<std::span<const std::byte>> cells;
  cells.reserve(n + 1);
  for (uint32_t i = 0; i < n; ++i) {
    if (i == pos) cells.push_back(cell);
    uint32_t off = load_u16(copy.data() + kHeaderSize + kSlotSize * i);
    cells.emplace_back(copy.data() + off, old.cell_size(i));
  }
  if (pos == n) cells.push_back(cell);
  if (old.damaged()) return internal::damaged(pg);

  // Appending past the last entry: keep the old page full, start a new one.
  uint32_t k = n;
  if (pos != n) {
    const uint64_t usable = ps - kHeaderSize;
    uint64_t total = 0;
    for (auto& c : cells) total += c.size() + kSlotSize;
    uint64_t left = 0, best_gap = UINT64_MAX;
    for (uint32_t i = 1; i <= n; ++i) {
      left += cells[i - 1].size() + kSlotSize;
      uint64_t right = total - left;
      if (left > usable) break;
      if (right > usable) continue;
      uint64_t gap = left > right ? left - right : right - left;
      if (gap < best_gap) {
        best_gap = gap;
        k = i;
      }
    }
  }

  ORDO_ASSIGN_OR_RETURN(PageNo right_pg, pw.allocate());
  const PageType type = leaf ? PageType::kLeaf : PageType::kBranch;
  NodeEditor left_ed(pw.writable(pg), ps);
  left_ed.init(type, pw.txn_id());
  for (uint32_t i = 0; i < k; ++i) left_ed.insert_cell(i, cells[i]);

  NodeEditor right_ed(pw.writable(right_pg), ps);
  right_ed.init(type, pw.txn_id());
  SplitResult out{right_pg, {}};
  uint32_t first = k;
  if (leaf) {
    uint16_t klen = load_u16(cells[k].data());
    out.separator.assign(reinterpret_cast<const char*>(cells[k].data() + kLeafCellHeader), klen);
  } else {
    // The separator moves up; the right page's entry 0 keeps only the child.
    const std::byte* c = cells[k].data();
    uint16_t klen = load_u16(c + 16);
    out.separator.assign(reinterpret_cast<const char*>(c + kBranchCellHeader), klen);
    right_ed.insert_branch(0, ByteView(), load_u64(c), load_u64(c + 8));
    first = k + 1;
  }
  for (uint32_t i = first; i < cells.size(); ++i) {
    right_ed.insert_cell(right_ed.view().count(), cells[i]);
  }
  return out;
}

std::span<const std::byte> branch_cell(std::vector<std::byte>& buf, ByteView key, PageNo child) {
  buf.resize(branch_cell_size(key.size()));
  store_u64(buf.data(), child);
  store_u64(buf.data() + 8, 0);
  store_u16(buf.data() + 16, static_cast<uint16_t>(key.size()));
  if (!key.empty()) std::memcpy(buf.data() + kBranchCellHeader, key.data(), key.size());
  return buf;
}

std::span<const std::byte> leaf_cell(std::vector<std::byte>& buf, ByteView key, ByteView value) {
  buf.resize(leaf_cell_size(key.size(), value.size()));
  store_u16(buf.data(), static_cast<uint16_t>(key.size()));
  store_u16(buf.data() + 2, 0);
  store_u32(buf.data() + 4, static_cast<uint32_t>(value.size()));
  if (!key.empty()) std::memcpy(buf.data() + kLeafCellHeader, key.data(), key.size());
  if (!value.empty()) {
    std::memcpy(buf.data() + kLeafCellHeader + key.size(), value.data(), value.size());
  }
  return buf;
}

// Inserts `cell` at `pos` of the page at `level`, splitting upwards as needed.
Status insert_with_split(PageWriter& pw, TreeRoot& tree, const PathEntry* path, uint32_t level,
                         PageNo pg, uint32_t pos, std::span<const std::byte> cell) {
  std::vector<std::byte> cell_buf(cell.begin(), cell.end());
  std::vector<std::byte> up_buf;
  for (;;) {
    NodeEditor ed(pw.writable(pg), pw.page_size());
    if (ed.fits(static_cast<uint32_t>(cell_buf.size()))) {
      ed.insert_cell(pos, cell_buf);
      return Status::ok();
    }
    ORDO_ASSIGN_OR_RETURN(SplitResult split, split_insert(pw, pg, pos, cell_buf));
    if (level == 0) {
      if (tree.depth >= kMaxDepth) return Status::full("tree reached its maximum depth");
      ORDO_ASSIGN_OR_RETURN(PageNo root, pw.allocate());
      NodeEditor r(pw.writable(root), pw.page_size());
      r.init(PageType::kBranch, pw.txn_id());
      r.insert_branch(0, ByteView(), pg, 0);
      r.insert_branch(1, split.separator, split.right, 0);
      tree.root = root;
      tree.depth++;
      return Status::ok();
    }
    --level;
    pg = path[level].page;
    pos = path[level].index + 1;
    branch_cell(up_buf, split.separator, split.right);
    cell_buf.swap(up_buf);
  }
}

}  // namespace

Status put(PageWriter& pw, TreeRoot& tree, ByteView key, ByteView value) {
  ORDO_RETURN_IF_ERROR(check_key_value(pw.page_size(), key, value));
  thread_local std::vector<std::byte> cell_buf;
  if (tree.root == kNoPage) {
    ORDO_ASSIGN_OR_RETURN(PageNo pg, pw.allocate());
    NodeEditor ed(pw.writable(pg), pw.page_size());
    ed.init(PageType::kLeaf, pw.txn_id());
    ed.insert_leaf(0, key, value);
    tree = TreeRoot{pg, 1, 1, 0};
    return Status::ok();
  }
  PathEntry path[kMaxDepth];
  ORDO_ASSIGN_OR_RETURN(PageNo leaf_pg, cow_path(pw, tree, key, path));
  NodeEditor leaf(pw.writable(leaf_pg), pw.page_size());
  bool found = false;
  uint32_t pos = leaf.view().leaf_lower_bound(key, &found);
  if (leaf.view().damaged()) return internal::damaged(leaf_pg);
  if (found) {
    leaf.remove(pos);
  } else {
    tree.entries++;
  }
  uint32_t size = leaf_cell_size(key.size(), value.size());
  if (leaf.fits(size)) {
    leaf.insert_leaf(pos, key, value);
    return Status::ok();
  }
  return insert_with_split(pw, tree, path, tree.depth - 1, leaf_pg, pos,
                           leaf_cell(cell_buf, key, value));
}

Status remove(PageWriter& pw, TreeRoot& tree, ByteView key, bool* found) {
  ByteView ignored;
  ORDO_RETURN_IF_ERROR(find(pw, tree, key, found, &ignored));
  if (!*found) return Status::ok();
  PathEntry path[kMaxDepth];
  ORDO_ASSIGN_OR_RETURN(PageNo pg, cow_path(pw, tree, key, path));
  NodeEditor leaf(pw.writable(pg), pw.page_size());
  bool present = false;
  uint32_t pos = leaf.view().leaf_lower_bound(key, &present);
  if (!present || leaf.view().damaged()) return internal::damaged(pg);
  leaf.remove(pos);
  tree.entries--;

  // Free pages left empty, bottom-up.
  uint32_t level = tree.depth - 1;
  while (NodeView(pw.writable(pg), pw.page_size()).count() == 0) {
    pw.free_page(pg);
    if (level == 0) {
      tree = TreeRoot{};
      return Status::ok();
    }
    --level;
    pg = path[level].page;
    NodeEditor(pw.writable(pg), pw.page_size()).remove(path[level].index);
  }
  // A root branch with a single child is replaced by that child.
  while (tree.depth > 1) {
    NodeView root(pw.writable(tree.root), pw.page_size());
    if (root.count() != 1) break;
    PageNo child = root.child(0);
    uint64_t checksum = root.child_checksum(0);
    pw.free_page(tree.root);
    tree.root = child;
    tree.root_checksum = checksum;
    tree.depth--;
  }
  return Status::ok();
}

namespace {

Status finalize_page(PageWriter& pw, PageNo pg) {
  NodeEditor ed(pw.writable(pg), pw.page_size());
  NodeView v = ed.view();
  if (!v.is_branch()) return Status::ok();
  for (uint32_t i = 0; i < v.count(); ++i) {
    PageNo child = v.child(i);
    if (!pw.is_dirty(child)) continue;
    ORDO_RETURN_IF_ERROR(finalize_page(pw, child));
    ed.set_child_checksum(i, page_checksum(pw.writable(child), pw.page_size()));
  }
  return Status::ok();
}

}  // namespace

Status finalize(PageWriter& pw, TreeRoot& tree) {
  if (tree.root == kNoPage || !pw.is_dirty(tree.root)) return Status::ok();
  ORDO_RETURN_IF_ERROR(finalize_page(pw, tree.root));
  tree.root_checksum = page_checksum(pw.writable(tree.root), pw.page_size());
  return Status::ok();
}

}  // namespace ordo::btree
