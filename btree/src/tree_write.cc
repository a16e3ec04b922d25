#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ordo/assert.h"
#include "ordo/btree/node.h"
#include "ordo/btree/overflow_ref.h"
#include "ordo/btree/tree.h"
#include "ordo/btree/walk.h"
#include "split_point.h"
#include "tree_internal.h"

namespace ordo::btree {

using internal::check_header;

namespace {

struct PathEntry {
  PageNo page;
  uint32_t index;  // child index taken in this branch
  // The branch's bytes as writable() gave them to this operation's descent
  // (a dirty branch stays where it is: branches are never spilled), so that
  // its entry count is kept without another lookup; null: ask writable().
  // No default member values: a put's path array (kMaxDepth entries) stays
  // uninitialized, each entry set whole where a descent fills it.
  std::byte* data;
};
static_assert(std::is_trivially_default_constructible_v<PathEntry>);

}  // namespace

namespace {

// Adds `delta` to the entry count of entry `index` of the branch whose bytes
// are `page`: a dirty branch of this txn on the path its descent checked, so
// only a debug build checks it again (this runs for every put).
inline void bump_entries(std::byte* page, uint32_t page_size, uint32_t index, int64_t delta) {
  const uint32_t off = load_u16(page + kHeaderSize + kSlotSize * index);
  ORDO_DCHECK(NodeView(page, page_size).is_branch() && index < NodeView(page, page_size).count() &&
              off >= kHeaderSize && off + kBranchCellHeader <= page_size);
  std::byte* at = page + off + kBranchOffEntries;
  const uint64_t now = load_u64(at);
  ORDO_DCHECK(delta >= 0 || now >= static_cast<uint64_t>(-delta));
  store_u64(at, now + static_cast<uint64_t>(delta));
}

}  // namespace

// Fills and reads a RightmostPath (its friend).
class RightmostPathAccess {
 public:
  // `path` holds tree.depth - 1 branches; `low_key` is the last leaf's lower bound
  // when `has_low_key`.
  static void fill(RightmostPath& c, const TreeRoot& tree, const PathEntry* path, PageNo leaf,
                   bool has_low_key, ByteView low_key) {
    ORDO_ASSERT(tree.depth >= 1 && tree.depth <= kMaxDepth && leaf != kNullPage);
    // The counts deferred for the path this replaces were flushed first.
    ORDO_ASSERT(c.deferred_entries_ == 0);
    c.root_ = tree.root;
    c.depth_ = tree.depth;
    c.leaf_ = leaf;
    for (uint32_t level = 0; level + 1 < tree.depth; ++level) {
      c.branches_[level] = path[level].page;
      c.indexes_[level] = path[level].index;
      c.branch_data_[level] = path[level].data;
    }
    c.has_low_key_ = has_low_key;
    if (has_low_key)
      c.low_key_.assign(reinterpret_cast<const char*>(low_key.data()), low_key.size());
    c.valid_ = true;
  }
  static PageNo leaf(const RightmostPath& c) {
    ORDO_ASSERT(c.valid_);
    return c.leaf_;
  }
  // A new key went into the last leaf, below its last key or past it.
  static void note_insert(RightmostPath& c, bool below_last) {
    if (below_last) {
      c.puts_since_unordered_ = 0;
    } else if (c.puts_since_unordered_ != UINT32_MAX) {
      c.puts_since_unordered_++;
    }
  }
  // Whether one of the last 64 new keys of the last leaf went below its last key.
  static bool out_of_order(const RightmostPath& c) { return c.puts_since_unordered_ < 64; }
  // One more key in the last leaf, counted in the path's branches by flush().
  static void defer_entry(RightmostPath& c) {
    ORDO_ASSERT(c.valid_);
    c.deferred_entries_++;
  }
  static void copy_path(const RightmostPath& c, PathEntry* path) {
    ORDO_ASSERT(c.valid_ && c.depth_ <= kMaxDepth);
    for (uint32_t level = 0; level + 1 < c.depth_; ++level) {
      path[level] = {c.branches_[level], c.indexes_[level], c.branch_data_[level]};
    }
  }
};

bool RightmostPath::covers(const TreeRoot& tree, ByteView key) const {
  return valid_ && root_ == tree.root && depth_ == tree.depth &&
         (!has_low_key_ || key.compare(ByteView(low_key_)) >= 0);
}

namespace {

// Adds `delta` to the count of the entry taken in each of the `branches`
// (dirty) pages of `path`: a key went in or out of the leaf below them.
void add_entries_along(PageWriter& pw, const PathEntry* path, uint32_t branches, int64_t delta) {
  ORDO_ASSERT(branches < kMaxDepth);
  const uint32_t ps = pw.page_size();
  for (uint32_t level = 0; level < branches; ++level) {
    ORDO_DCHECK(pw.is_dirty(path[level].page));
    std::byte* data = path[level].data;
    ORDO_DCHECK(data == nullptr || pw.writable_in_place(path[level].page, data));
    if (data == nullptr) data = pw.writable(path[level].page);
    bump_entries(data, ps, path[level].index, delta);
  }
}

}  // namespace

void RightmostPath::flush(PageWriter& pw) {
  if (deferred_entries_ == 0) return;
  ORDO_ASSERT(valid_ && deferred_entries_ <= INT64_MAX && depth_ <= kMaxDepth);
  // The path's bytes, kept from writable() when it was filled, are still the pages'.
  PathEntry path[kMaxDepth];
  RightmostPathAccess::copy_path(*this, path);
  add_entries_along(pw, path, depth_ - 1, static_cast<int64_t>(deferred_entries_));
  deferred_entries_ = 0;
}

namespace {

// Where `key` goes in a leaf: past the last entry for a key above them all (one
// comparison, the sequential case), else the binary search of leaf_lower_bound().
uint32_t leaf_position(const NodeView& leaf, ByteView key, bool* found) {
  const uint32_t n = leaf.count();
  if (n > 0 && leaf.key(n - 1).compare(key) < 0) {
    *found = false;
    return n;
  }
  const uint32_t pos = leaf.leaf_lower_bound(key, found);
  ORDO_ASSERT(pos <= n);
  return pos;
}

// Whether leaf entry i sorts after its left neighbour and, with
// `check_right`, before its right one. The search that chose i guarantees
// both (the right one only for a new key) whatever else the page holds.
bool inserted_in_order(const NodeView& leaf, uint32_t i, bool check_right) {
  ORDO_ASSERT(leaf.is_leaf() && i < leaf.count());
  const ByteView key = leaf.key(i);
  if (i > 0 && leaf.key(i - 1).compare(key) >= 0) return false;
  return !check_right || i + 1 >= leaf.count() || key.compare(leaf.key(i + 1)) < 0;
}

// Makes `pg` writable, checking a committed page fully before copying it so a
// damaged page is reported, never built upon. Returns the dirty page and
// its bytes (as writable() gives them).
Result<PageWriter::DirtyPage> cow(PageWriter& pw, PageNo pg, bool expect_leaf,
                                  uint64_t expected_checksum) {
  if (std::byte* data = pw.writable_if_dirty(pg)) return PageWriter::DirtyPage{pg, data};
  // One lookup among the dirty pages per copy: read_clean and copy_clean
  // know the page is not one of them.
  ORDO_ASSIGN_OR_RETURN(const std::byte* clean, pw.read_clean(pg));
  // The check and the copy read every line of the page: ask for them all at
  // once rather than missing on each cell in turn.
  for (uint32_t off = 0; off < pw.page_size(); off += 64) __builtin_prefetch(clean + off);
  ORDO_ASSIGN_OR_RETURN(NodeView v,
                        internal::check_loaded(clean, pw.page_size(), pw.verify_checksums(), pg,
                                               expect_leaf, expected_checksum));
  ORDO_RETURN_IF_ERROR(check_node(v.data(), pw.page_size(), pg));
  ORDO_ASSIGN_OR_RETURN(const PageWriter::DirtyPage copy, pw.copy_clean(pg, clean));
  ORDO_ASSERT(copy.page != kNullPage && copy.page != pg && copy.data != nullptr);
  ORDO_DCHECK(pw.writable_in_place(copy.page, copy.data));
  return copy;
}

// Descends to the leaf for `key`, copying each page on the way. Fills `path`
// with the branches (depth-1 of them) and returns the leaf (its page number
// and writable bytes). When `rightmost` is given and the descent took the
// last child at every level, it becomes this path. `known_indexes`, when given, are the child
// indexes a read-only descent for `key` just took (descend_to_leaf): they are followed instead of
// searched again.
Result<PageWriter::DirtyPage> cow_path(PageWriter& pw, TreeRoot& tree, ByteView key,
                                       PathEntry* path, RightmostPath* rightmost = nullptr,
                                       const uint32_t* known_indexes = nullptr) {
  if (tree.depth == 0 || tree.depth > kMaxDepth) {
    return Status::corruption("tree depth " + std::to_string(tree.depth) + " out of range",
                              tree.root);
  }
  ORDO_ASSIGN_OR_RETURN(PageWriter::DirtyPage at,
                        cow(pw, tree.root, tree.depth == 1, tree.root_checksum));
  tree.root = at.page;
  bool on_rightmost = rightmost != nullptr;
  // The last leaf's lower bound; points into a branch page of the path, which stays
  // in place (set_child edits a cell where it is).
  bool has_low_key = false;
  ByteView low_key;
  for (uint32_t level = 0; level + 1 < tree.depth; ++level) {
    const PageNo pg = at.page;
    NodeEditor ed(at.data, pw.page_size());
    NodeView v = ed.view();
    const uint32_t idx =
        known_indexes != nullptr ? known_indexes[level] : v.branch_child_index(key);
    // A copy holds the bytes the read-only descent searched.
    ORDO_DCHECK(known_indexes == nullptr || v.damaged() || idx == v.branch_child_index(key));
    PageNo child = v.child(idx);
    uint64_t checksum = v.child_checksum(idx);
    if (v.damaged()) return internal::damaged(pg);
    ORDO_ASSERT(v.is_branch() && idx < v.count());
    if (on_rightmost) {
      on_rightmost = idx + 1 == v.count();
      if (on_rightmost && idx > 0) {
        low_key = v.key(idx);
        has_low_key = true;
      }
    }
    ORDO_ASSIGN_OR_RETURN(at, cow(pw, child, level + 2 == tree.depth, checksum));
    if (at.page != child) ed.set_child(idx, at.page, 0);
    path[level] = {pg, idx, ed.data()};
  }
  if (on_rightmost) {
    RightmostPathAccess::fill(*rightmost, tree, path, at.page, has_low_key, low_key);
  }
  ORDO_DCHECK(pw.is_dirty(at.page) && pw.is_dirty(tree.root));
  return at;
}

std::vector<std::byte>& scratch_page(size_t which) {
  ORDO_ASSERT(which < 2);
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

// What a split knows of the tree's right edge (split_point.h).
enum class RightEdge {
  kAscending,   // append(): every later key sorts after this one
  kInOrder,     // put(): no recent key went below the last key of the last leaf
  kOutOfOrder,  // put(): one did
};

// `rightmost`: the page is the last at its level.
Result<SplitResult> split_insert(PageWriter& pw, PageNo pg, uint32_t pos,
                                 std::span<const std::byte> cell, bool rightmost,
                                 bool out_of_order) {
  ORDO_ASSERT(pw.is_dirty(pg));  // The descent copied it.
  const uint32_t ps = pw.page_size();
  std::vector<std::byte>& copy = scratch_page(0);
  copy.assign(pw.writable(pg), pw.writable(pg) + ps);
  NodeView old(copy.data(), ps);
  const bool leaf = old.is_leaf();
  const uint32_t n = old.count();
  ORDO_ASSERT(pos <= n && (leaf || old.is_branch()));

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

  std::vector<internal::SplitCell> split_cells;
  split_cells.reserve(cells.size());
  const uint32_t key_at = leaf ? kLeafCellHeader : kBranchCellHeader;
  const uint32_t len_at = leaf ? 0 : kBranchOffKeyLen;
  for (const auto& c : cells) {
    split_cells.push_back({ByteView(c.data() + key_at, load_u16(c.data() + len_at)),
                           static_cast<uint32_t>(c.size()) + kSlotSize});
  }
  const uint32_t k =
      internal::split_point({split_cells, pos, leaf, rightmost, out_of_order, ps - kHeaderSize});
  ORDO_DCHECK(k >= 1 && k <= n);

  ORDO_ASSIGN_OR_RETURN(PageNo right_pg, pw.allocate());
  ORDO_ASSERT(right_pg != pg && pw.is_dirty(right_pg));
  const PageType type = leaf ? PageType::kLeaf : PageType::kBranch;
  NodeEditor left_ed(pw.writable(pg), ps);
  left_ed.init(type, pw.txn_id());
  for (uint32_t i = 0; i < k; ++i) left_ed.insert_cell(i, cells[i]);

  NodeEditor right_ed(pw.writable(right_pg), ps);
  right_ed.init(type, pw.txn_id());
  SplitResult out{right_pg, {}};
  uint32_t first = k;
  if (leaf) {
    // The shortest separator: the right page's first key cut one byte past
    // where it leaves the left page's last key. Later keys of the right page's
    // prefix group sort at or above it, and so land in the right page.
    const ByteView first_right = split_cells[k].key;
    // Ordered keys make len <= the key's size; the min keeps a page whose keys
    // are out of order (damage the slot checks cannot see) from reading past it.
    const uint32_t len =
        std::min<uint32_t>(internal::common_prefix(split_cells[k - 1].key, first_right) + 1,
                           static_cast<uint32_t>(first_right.size()));
    out.separator.assign(first_right.char_data(), len);
  } else {
    // The separator moves up; the right page's entry 0 keeps only the child.
    const std::byte* c = cells[k].data();
    uint16_t klen = load_u16(c + kBranchOffKeyLen);
    out.separator.assign(reinterpret_cast<const char*>(c + kBranchCellHeader), klen);
    right_ed.insert_branch(0, ByteView(), load_u64(c + kBranchOffChild),
                           load_u64(c + kBranchOffChecksum), load_u64(c + kBranchOffEntries));
    first = k + 1;
  }
  for (uint32_t i = first; i < cells.size(); ++i) {
    right_ed.insert_cell(right_ed.view().count(), cells[i]);
  }
  // Every cell kept: k on the left, the rest on the right (a branch's
  // separator cell became the right page's entry 0).
  ORDO_ASSERT(left_ed.view().count() == k && right_ed.view().count() == cells.size() - k);
  return out;
}

std::span<const std::byte> branch_cell(std::vector<std::byte>& buf, ByteView key, PageNo child,
                                       uint64_t entries) {
  ORDO_ASSERT(child != kNullPage && key.size() <= UINT16_MAX);
  buf.resize(branch_cell_size(key.size()));
  store_u64(buf.data() + kBranchOffChild, child);
  store_u64(buf.data() + kBranchOffChecksum, 0);
  store_u64(buf.data() + kBranchOffEntries, entries);
  store_u16(buf.data() + kBranchOffKeyLen, static_cast<uint16_t>(key.size()));
  if (!key.empty()) std::memcpy(buf.data() + kBranchCellHeader, key.data(), key.size());
  return buf;
}

std::span<const std::byte> leaf_cell(std::vector<std::byte>& buf, ByteView key, ByteView value) {
  // check_key_value bounds both; the value is at most max_inline_value_bytes.
  ORDO_ASSERT(key.size() <= UINT16_MAX && value.size() <= UINT32_MAX);
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

// Writes `value` to a new overflow run and builds the leaf cell referring to it.
Result<std::span<const std::byte>> overflow_cell(PageWriter& pw, std::vector<std::byte>& buf,
                                                 ByteView key, ByteView value) {
  const uint32_t ps = pw.page_size();
  const uint64_t pages = overflow_pages(value.size(), ps);
  ORDO_ASSERT(value.size() <= kMaxValueBytes && pages * ps >= kHeaderSize + value.size());
  std::byte header[kHeaderSize] = {};
  header[kOffType] = static_cast<std::byte>(PageType::kOverflow);
  store_u64(header + kOffTxnId, pw.txn_id());
  // The run's checksum covers header, value and zero padding: the whole run.
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, header, sizeof header);
  XXH3_64bits_update(state, value.data(), value.size());
  static const std::byte kZeros[kMaxPageSize] = {};
  XXH3_64bits_update(state, kZeros, pages * ps - kHeaderSize - value.size());
  const uint64_t checksum = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  std::span<const std::byte> parts[2] = {{header, sizeof header}, value.span()};
  ORDO_ASSIGN_OR_RETURN(PageNo first, pw.write_run(parts, pages));
  ORDO_ASSERT(first >= kFirstDataPage);
  buf.resize(leaf_cell_size(key.size(), kOverflowRefBytes));
  store_u16(buf.data(), static_cast<uint16_t>(key.size()));
  store_u16(buf.data() + 2, kValueOverflow);
  store_u32(buf.data() + 4, static_cast<uint32_t>(value.size()));
  if (!key.empty()) std::memcpy(buf.data() + kLeafCellHeader, key.data(), key.size());
  encode_overflow_ref({first, checksum}, buf.data() + kLeafCellHeader + key.size());
  return std::span<const std::byte>(buf);
}

// Frees the overflow run of leaf entry i, if it has one.
Status free_value(PageWriter& pw, const NodeView& leaf, uint32_t i, PageNo leaf_page) {
  if (!leaf.is_overflow(i)) return Status::ok();
  ORDO_ASSIGN_OR_RETURN(const OverflowRun run, leaf_overflow_run(leaf, i, leaf_page));
  ORDO_ASSERT(run.pages >= 1);
  pw.free_run(run.ref.first, run.pages);
  return Status::ok();
}

// The leaf cell for key and value, writing the value to an overflow run when
// it is too large for the leaf.
Result<std::span<const std::byte>> make_cell(PageWriter& pw, std::vector<std::byte>& buf,
                                             ByteView key, ByteView value) {
  if (value.size() > max_inline_value_bytes(pw.page_size())) {
    return overflow_cell(pw, buf, key, value);
  }
  // Two maximal cells fit one page (page_format.h), so a split always succeeds.
  ORDO_ASSERT(2 * (leaf_cell_size(key.size(), value.size()) + kSlotSize) <=
              pw.page_size() - kHeaderSize);
  return leaf_cell(buf, key, value);
}

// An empty tree's first entry: a root leaf holding `cell`.
Status start_tree(PageWriter& pw, TreeRoot& tree, std::span<const std::byte> cell) {
  ORDO_ASSERT(tree.root == kNullPage);
  ORDO_ASSIGN_OR_RETURN(PageNo pg, pw.allocate());
  NodeEditor ed(pw.writable(pg), pw.page_size());
  ed.init(PageType::kLeaf, pw.txn_id());
  ed.insert_cell(0, cell);
  tree = TreeRoot{pg, 1, 1, 0};
  return Status::ok();
}

// Whether the page at `level` under `path` is the last at its level: the
// descent took the last child of every branch above it.
bool on_right_edge(PageWriter& pw, const PathEntry* path, uint32_t level) {
  ORDO_ASSERT(level < kMaxDepth);
  for (uint32_t l = 0; l < level; ++l) {
    if (path[l].index + 1 != NodeView(pw.writable(path[l].page), pw.page_size()).count()) {
      return false;
    }
  }
  return true;
}

// Inserts `cell` at `pos` of the page at `level`, splitting upwards as needed.
// `limit_bytes`: a page may fill up to this many bytes (the page size, or less
// for appends at a chosen fill factor). With RightEdge::kAscending a split
// never moves old cells right.
Status insert_with_split(PageWriter& pw, TreeRoot& tree, const PathEntry* path, uint32_t level,
                         PageNo pg, uint32_t pos, std::span<const std::byte> cell,
                         uint32_t limit_bytes, RightEdge edge) {
  std::vector<std::byte> cell_buf(cell.begin(), cell.end());
  std::vector<std::byte> up_buf;
  for (;;) {
    ORDO_ASSERT(level < tree.depth && pw.is_dirty(pg));
    NodeEditor ed(pw.writable(pg), pw.page_size());
    const uint32_t size = static_cast<uint32_t>(cell_buf.size());
    const NodeView v = ed.view();
    if (ed.fits(size) && (v.count() == 0 || v.used_bytes() + size + kSlotSize <= limit_bytes)) {
      ed.insert_cell(pos, cell_buf);
      return Status::ok();
    }
    ORDO_ASSIGN_OR_RETURN(SplitResult split, split_insert(pw, pg, pos, cell_buf,
                                                          edge != RightEdge::kAscending &&
                                                              on_right_edge(pw, path, level),
                                                          edge == RightEdge::kOutOfOrder));
    if (level == 0) {
      if (tree.depth >= kMaxDepth) return Status::full("tree reached its maximum depth");
      ORDO_ASSIGN_OR_RETURN(PageNo root, pw.allocate());
      NodeEditor r(pw.writable(root), pw.page_size());
      r.init(PageType::kBranch, pw.txn_id());
      const uint64_t left_entries = subtree_entries(NodeView(pw.writable(pg), pw.page_size()));
      const uint64_t right_entries =
          subtree_entries(NodeView(pw.writable(split.right), pw.page_size()));
      ORDO_DCHECK(left_entries + right_entries == tree.entries);
      r.insert_branch(0, ByteView(), pg, 0, left_entries);
      r.insert_branch(1, split.separator, split.right, 0, right_entries);
      tree.root = root;
      tree.depth++;
      ORDO_ASSERT(tree.depth <= kMaxDepth);
      return Status::ok();
    }
    const PageNo left_pg = pg;
    --level;
    pg = path[level].page;
    pos = path[level].index + 1;
    // The parent's entry for the left half held the count of both (with the
    // new key): it gets the left's, the right half's new entry the rest.
    NodeEditor parent(pw.writable(pg), pw.page_size());
    const uint64_t before = parent.view().child_entries(path[level].index);
    ORDO_DCHECK(parent.view().child(path[level].index) == left_pg);
    const uint64_t left_entries = subtree_entries(NodeView(pw.writable(left_pg), pw.page_size()));
    const uint64_t right_entries =
        subtree_entries(NodeView(pw.writable(split.right), pw.page_size()));
    ORDO_DCHECK(left_entries + right_entries == before);
    parent.set_child_entries(path[level].index, left_entries);
    branch_cell(up_buf, split.separator, split.right, right_entries);
    cell_buf.swap(up_buf);
  }
}

}  // namespace

namespace {

// Puts `cell` at `pos` of the dirty leaf `leaf_pg` (being edited by `leaf`),
// in place of the entry there when `found`, splitting as needed. The leaf was
// reached by `path`, or, when `cached`, by `rightmost`'s cached path.
Status put_in_leaf(PageWriter& pw, TreeRoot& tree, PathEntry* path, PageNo leaf_pg,
                   NodeEditor& leaf, bool cached, uint32_t pos, bool found,
                   std::span<const std::byte> cell, RightmostPath* rightmost) {
  ORDO_DCHECK(pw.is_dirty(leaf_pg));  // A cached leaf is this txn's too.
  ORDO_ASSERT(leaf.view().is_leaf() && pos <= leaf.view().count());
  const bool last_leaf = rightmost != nullptr && rightmost->valid() &&
                         RightmostPathAccess::leaf(*rightmost) == leaf_pg;
  if (last_leaf && !found) {
    RightmostPathAccess::note_insert(*rightmost, pos < leaf.view().count());
  }
  if (found) {
    ORDO_RETURN_IF_ERROR(free_value(pw, leaf.view(), pos, leaf_pg));
    leaf.remove(pos);
  } else {
    tree.entries++;
    if (cached) {
      RightmostPathAccess::defer_entry(*rightmost);
    } else {
      add_entries_along(pw, path, tree.depth - 1, 1);
    }
  }
  if (leaf.fits(static_cast<uint32_t>(cell.size()))) {
    leaf.insert_cell(pos, cell);
    ORDO_DCHECK(inserted_in_order(leaf.view(), pos, !found));
    return Status::ok();
  }
  // A split changes the path's pages and separators: the next put descends again.
  if (cached) RightmostPathAccess::copy_path(*rightmost, path);
  const RightEdge edge = last_leaf && RightmostPathAccess::out_of_order(*rightmost)
                             ? RightEdge::kOutOfOrder
                             : RightEdge::kInOrder;
  // The split reads the path's counts: the deferred ones are written first.
  if (rightmost != nullptr) rightmost->invalidate(pw);
  return insert_with_split(pw, tree, path, tree.depth - 1, leaf_pg, pos, cell, pw.page_size(),
                           edge);
}

}  // namespace

Status put(PageWriter& pw, TreeRoot& tree, ByteView key, ByteView value, RightmostPath* rightmost) {
  ORDO_RETURN_IF_ERROR(check_key_value(pw.page_size(), key, value));
  thread_local std::vector<std::byte> cell_buf;
  ORDO_ASSIGN_OR_RETURN(std::span<const std::byte> cell, make_cell(pw, cell_buf, key, value));
  if (tree.root == kNullPage) return start_tree(pw, tree, cell);
  PathEntry path[kMaxDepth];
  // At the right edge, the cached path's leaf: no root-to-leaf search.
  const bool cached = rightmost != nullptr && rightmost->covers(tree, key);
  // A descent refills the cache: the old path's deferred counts go first.
  if (rightmost != nullptr && !cached) rightmost->flush(pw);
  PageWriter::DirtyPage leaf_page{kNullPage, nullptr};
  if (cached) {
    const PageNo pg = RightmostPathAccess::leaf(*rightmost);
    leaf_page = {pg, pw.writable(pg)};
  } else {
    ORDO_ASSIGN_OR_RETURN(leaf_page, cow_path(pw, tree, key, path, rightmost));
  }
  const PageNo leaf_pg = leaf_page.page;
  NodeEditor leaf(leaf_page.data, pw.page_size());
  ORDO_ASSERT(leaf.view().is_leaf());
  bool found = false;
  const uint32_t pos = leaf_position(leaf.view(), key, &found);
  if (leaf.view().damaged()) return internal::damaged(leaf_pg);
  return put_in_leaf(pw, tree, path, leaf_pg, leaf, cached, pos, found, cell, rightmost);
}

Status append(PageWriter& pw, TreeRoot& tree, ByteView key, ByteView value, double fill) {
  ORDO_RETURN_IF_ERROR(check_key_value(pw.page_size(), key, value));
  if (tree.root != kNullPage) {
    // Order check before anything changes.
    PageNo pg = tree.root;
    uint64_t expected = tree.root_checksum;
    for (uint32_t level = 0; level + 1 < tree.depth; ++level) {
      ORDO_ASSIGN_OR_RETURN(NodeView v, internal::load_node(pw, pg, false, expected));
      const PageNo child = v.child(v.count() - 1);
      expected = v.child_checksum(v.count() - 1);
      if (v.damaged()) return internal::damaged(pg);
      pg = child;
    }
    ORDO_ASSIGN_OR_RETURN(NodeView leaf, internal::load_node(pw, pg, true, expected));
    if (leaf.count() > 0 && leaf.key(leaf.count() - 1).compare(key) >= 0) {
      return Status::invalid_argument("append: key does not sort after the last key of the tree");
    }
    if (leaf.damaged()) return internal::damaged(pg);
  }
  thread_local std::vector<std::byte> cell_buf;
  ORDO_ASSIGN_OR_RETURN(std::span<const std::byte> cell, make_cell(pw, cell_buf, key, value));
  if (tree.root == kNullPage) return start_tree(pw, tree, cell);
  PathEntry path[kMaxDepth];
  ORDO_ASSIGN_OR_RETURN(const PageWriter::DirtyPage leaf, cow_path(pw, tree, key, path));
  const PageNo leaf_pg = leaf.page;
  const uint32_t pos = NodeView(leaf.data, pw.page_size()).count();
  ORDO_DCHECK(pw.is_dirty(leaf_pg));
  tree.entries++;
  add_entries_along(pw, path, tree.depth - 1, 1);
  const uint32_t limit = static_cast<uint32_t>(pw.page_size() * std::clamp(fill, 0.5, 1.0));
  return insert_with_split(pw, tree, path, tree.depth - 1, leaf_pg, pos, cell, limit,
                           RightEdge::kAscending);
}

namespace {

// Frees every page and overflow run of a tree, each page after its children.
class FreeVisitor : public PageVisitor {
 public:
  explicit FreeVisitor(PageWriter& pw) : pw_(pw) {}
  Status overflow(const PageRef&, const NodeView&, uint32_t, const OverflowRun& run) override {
    ORDO_ASSERT(run.pages >= 1);
    pw_.free_run(run.ref.first, run.pages);
    return Status::ok();
  }
  Status leave(const PageRef& ref, const NodeView&) override {
    ORDO_ASSERT(ref.page >= kFirstDataPage);  // The walk checked it before visiting.
    pw_.free_page(ref.page);
    return Status::ok();
  }

 private:
  PageWriter& pw_;
};

}  // namespace

Status drop(PageWriter& pw, TreeRoot& tree) {
  FreeVisitor visitor(pw);
  WalkOptions options;
  options.verify_checksums = pw.verify_checksums();
  options.check_order = false;
  ORDO_RETURN_IF_ERROR(walk_tree(pw, tree, visitor, options));
  tree = TreeRoot{};
  return Status::ok();
}

namespace {

// Merges the page at `level` (under path[level-1]) with a neighbour when it is
// under a quarter full and both fit one page. Returns true when it merged, so
// the parent lost an entry and may itself be underfull.
Result<bool> merge_with_sibling(PageWriter& pw, const PathEntry* path, uint32_t level, PageNo pg,
                                bool leaf) {
  const uint32_t ps = pw.page_size();
  if (level == 0 || NodeView(pw.writable(pg), ps).used_bytes() >= ps / 4) return false;
  const PageNo parent = path[level - 1].page;
  NodeEditor pe(pw.writable(parent), ps);
  const uint32_t idx = path[level - 1].index;
  const uint32_t n = pe.view().count();
  if (n < 2) return false;
  ORDO_ASSERT(idx < n && pe.view().is_branch());  // The entry the descent took.
  const uint32_t right_idx = idx + 1 < n ? idx + 1 : idx;
  const uint32_t sib_idx = right_idx == idx ? idx - 1 : idx + 1;
  ORDO_ASSIGN_OR_RETURN(const PageWriter::DirtyPage sib,
                        cow(pw, pe.view().child(sib_idx), leaf, pe.view().child_checksum(sib_idx)));
  pe.set_child(sib_idx, sib.page, 0);
  const PageNo left_pg = pe.view().child(right_idx - 1);
  const PageNo right_pg = pe.view().child(right_idx);
  ORDO_ASSERT(pw.is_dirty(left_pg) && pw.is_dirty(right_pg) && left_pg != right_pg);
  NodeEditor left(pw.writable(left_pg), ps);
  NodeView right(pw.writable(right_pg), ps);
  ORDO_ASSERT(left.view().is_leaf() == leaf && right.is_leaf() == leaf);
  const ByteView separator = pe.view().key(right_idx);
  uint64_t need = left.view().used_bytes() + right.cell_bytes() + kSlotSize * right.count();
  if (!leaf) need += separator.size();  // right's entry 0 takes the separator as its key
  if (need > ps) return false;
  std::vector<std::byte> cell;
  const uint32_t merged_count = left.view().count() + right.count();
  for (uint32_t i = 0; i < right.count(); ++i) {
    uint32_t at = left.view().count();
    if (!leaf && i == 0) {
      left.insert_branch(at, separator, right.child(0), right.child_checksum(0),
                         right.child_entries(0));
      continue;
    }
    uint32_t off = load_u16(right.data() + kHeaderSize + kSlotSize * i);
    left.insert_cell(at, std::span<const std::byte>(right.data() + off, right.cell_size(i)));
  }
  ORDO_ASSERT(left.view().count() == merged_count && left.view().used_bytes() <= ps);
  const uint64_t merged_entries =
      pe.view().child_entries(right_idx - 1) + pe.view().child_entries(right_idx);
  ORDO_DCHECK(subtree_entries(left.view()) == merged_entries);
  pe.set_child_entries(right_idx - 1, merged_entries);
  pw.free_page(right_pg);
  pe.remove(right_idx);
  return true;
}

}  // namespace

namespace {

// Removes entry `pos` of the dirty leaf `pg`, reached by `path`; then, bottom
// up, frees empty pages, merges underfull ones with a neighbour, and
// collapses a root branch with a single child.
Status remove_at(PageWriter& pw, TreeRoot& tree, const PathEntry* path, PageNo pg, uint32_t pos) {
  NodeEditor leaf(pw.writable(pg), pw.page_size());
  ORDO_ASSERT(pos < leaf.view().count() && pw.is_dirty(pg));
  ORDO_RETURN_IF_ERROR(free_value(pw, leaf.view(), pos, pg));
  leaf.remove(pos);
  tree.entries--;
  add_entries_along(pw, path, tree.depth - 1, -1);

  // Bottom-up: free empty pages, merge underfull ones with a neighbour.
  for (uint32_t level = tree.depth - 1;; --level) {
    if (NodeView(pw.writable(pg), pw.page_size()).count() == 0) {
      pw.free_page(pg);
      if (level == 0) {
        tree = TreeRoot{};
        return Status::ok();
      }
      NodeEditor parent(pw.writable(path[level - 1].page), pw.page_size());
      ORDO_DCHECK(parent.view().child_entries(path[level - 1].index) == 0);
      parent.remove(path[level - 1].index);
    } else {
      ORDO_ASSIGN_OR_RETURN(bool merged,
                            merge_with_sibling(pw, path, level, pg, level + 1 == tree.depth));
      if (!merged) break;
    }
    if (level == 0) break;
    pg = path[level - 1].page;
  }
  // A root branch with a single child is replaced by that child.
  // The child may be a sibling this txn never copied: read, do not write.
  while (tree.depth > 1) {
    ORDO_ASSIGN_OR_RETURN(NodeView root,
                          internal::load_node(pw, tree.root, false, tree.root_checksum));
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

}  // namespace

Status remove(PageWriter& pw, TreeRoot& tree, ByteView key, bool* found) {
  *found = false;
  // A key too long to store is in no tree.
  if (!check_key_value(pw.page_size(), key, ByteView()).is_ok()) return Status::ok();
  // update(): one read-only search, then a copy of the path it found (no
  // second search), and only when the key is there.
  ORDO_ASSIGN_OR_RETURN(const UpdateOutcome out, update(pw, tree, key, Update{}));
  ORDO_ASSERT(out.applied && out.changed == out.found);
  *found = out.found;
  return Status::ok();
}

namespace {

// Whether `update` applies to a key that is `found` holding `current`.
bool update_applies(const Update& update, bool found, ByteView current) {
  switch (update.when) {
    case Update::When::kAlways:
      return true;
    case Update::When::kAbsent:
      return !found;
    case Update::When::kEquals:
      return found && current.compare(update.expected) == 0;
  }
  ORDO_ASSERT(false);  // every When is handled above
  return false;
}

}  // namespace

Result<UpdateOutcome> update(PageWriter& pw, TreeRoot& tree, ByteView key, const Update& update,
                             RightmostPath* rightmost) {
  ORDO_RETURN_IF_ERROR(check_key_value(pw.page_size(), key, update.value.value_or(ByteView())));
  UpdateOutcome out;
  // The one search: read-only, so that a write that does not apply copies
  // no page. At the right edge the cached path's leaf (dirty already).
  const bool cached =
      tree.root != kNullPage && rightmost != nullptr && rightmost->covers(tree, key);
  if (rightmost != nullptr && !cached) rightmost->flush(pw);  // as in put()
  PathEntry path[kMaxDepth];
  uint32_t indexes[kMaxDepth];
  PageNo leaf_pg = kNullPage;
  uint32_t pos = 0;
  if (tree.root != kNullPage) {
    Result<NodeView> leaf =
        cached ? Result<NodeView>(
                     NodeView(pw.writable(RightmostPathAccess::leaf(*rightmost)), pw.page_size()))
               : internal::descend_to_leaf(pw, tree, key, &leaf_pg, indexes);
    if (!leaf.is_ok()) return leaf.status();
    if (cached) leaf_pg = RightmostPathAccess::leaf(*rightmost);
    ORDO_ASSERT(leaf->is_leaf() && leaf_pg != kNullPage);
    pos = leaf_position(*leaf, key, &out.found);
    if (leaf->damaged()) return internal::damaged(leaf_pg);
    ByteView current;
    // The value is read only when the decision or the caller needs it.
    if (out.found && (update.when == Update::When::kEquals || update.old_value != nullptr)) {
      ORDO_ASSIGN_OR_RETURN(current, internal::leaf_value(pw, *leaf, pos, leaf_pg));
    }
    out.applied = update_applies(update, out.found, current);
    // Copied before any page changes: the old value's pages may be freed.
    if (out.applied && out.found && update.old_value != nullptr) {
      update.old_value->assign(current.char_data(), current.size());
    }
  } else {
    out.applied = update_applies(update, false, ByteView());
  }
  if (!out.applied || (!out.found && !update.value)) return out;
  out.changed = true;

  if (!update.value) {  // remove the present key
    if (cached) {
      RightmostPathAccess::copy_path(*rightmost, path);
    } else {
      ORDO_ASSIGN_OR_RETURN(const PageWriter::DirtyPage leaf_page,
                            cow_path(pw, tree, key, path, nullptr, indexes));
      leaf_pg = leaf_page.page;
    }
    if (rightmost != nullptr) rightmost->invalidate(pw);
    ORDO_RETURN_IF_ERROR(remove_at(pw, tree, path, leaf_pg, pos));
    return out;
  }
  thread_local std::vector<std::byte> cell_buf;
  ORDO_ASSIGN_OR_RETURN(std::span<const std::byte> cell,
                        make_cell(pw, cell_buf, key, *update.value));
  if (tree.root == kNullPage) {
    ORDO_RETURN_IF_ERROR(start_tree(pw, tree, cell));
    return out;
  }
  std::byte* leaf_data = nullptr;
  if (cached) {
    leaf_data = pw.writable(leaf_pg);
  } else {
    ORDO_ASSIGN_OR_RETURN(const PageWriter::DirtyPage leaf_page,
                          cow_path(pw, tree, key, path, rightmost, indexes));
    leaf_pg = leaf_page.page;
    leaf_data = leaf_page.data;
  }
  NodeEditor leaf(leaf_data, pw.page_size());
  // The copy holds the entries the search saw: `pos` still places the key.
  ORDO_DCHECK(!out.found || leaf.view().key(pos).compare(key) == 0);
  ORDO_RETURN_IF_ERROR(
      put_in_leaf(pw, tree, path, leaf_pg, leaf, cached, pos, out.found, cell, rightmost));
  return out;
}

namespace {

// Leaves are only read: a leaf the txn already wrote out early (spilled)
// stays where it is.
Status finalize_page(PageWriter& pw, PageNo pg) {
  ORDO_ASSERT(pw.is_dirty(pg));  // Only pages this txn wrote get new checksums.
  ORDO_ASSIGN_OR_RETURN(const std::byte* page, pw.read(pg));
  if (!NodeView(page, pw.page_size()).is_branch()) return Status::ok();
  NodeEditor ed(pw.writable(pg), pw.page_size());
  NodeView v = ed.view();
  for (uint32_t i = 0; i < v.count(); ++i) {
    PageNo child = v.child(i);
    if (!pw.is_dirty(child)) continue;
    ORDO_RETURN_IF_ERROR(finalize_page(pw, child));
    ORDO_ASSIGN_OR_RETURN(const std::byte* child_page, pw.read(child));
    // Every edit kept the counts of the pages it changed exact.
    ORDO_DCHECK(v.child_entries(i) == subtree_entries(NodeView(child_page, pw.page_size())));
    ed.set_child_checksum(i, page_checksum(child_page, pw.page_size()));
  }
  return Status::ok();
}

}  // namespace

Status finalize(PageWriter& pw, TreeRoot& tree) {
  if (tree.root == kNullPage || !pw.is_dirty(tree.root)) return Status::ok();
  ORDO_RETURN_IF_ERROR(finalize_page(pw, tree.root));
  ORDO_ASSIGN_OR_RETURN(const std::byte* root, pw.read(tree.root));
  ORDO_DCHECK(tree.entries == subtree_entries(NodeView(root, pw.page_size())));
  tree.root_checksum = page_checksum(root, pw.page_size());
  return Status::ok();
}

}  // namespace ordo::btree
