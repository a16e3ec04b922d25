#include "upgrade_v4.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "copy_internal.h"
#include "dense_builder.h"
#include "free_entry.h"
#include "ordo/assert.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/node.h"

namespace ordo::engine {
namespace {

using btree::load_u16;
using btree::load_u64;
using btree::NodeView;
using btree::PageNo;
using btree::TreeRoot;

// Version 3 branch cells: u64 child, u64 checksum, u16 key length, key.
constexpr uint32_t kV3BranchCellHeader = 18;

// Gathers the new pages in memory, from the first page the emitter hands out;
// they are written to the file in one go once every tree is converted.
class MemorySink : public CopySink {
 public:
  explicit MemorySink(uint64_t base_bytes) : base_(base_bytes) {}
  bool seekable() const override { return true; }
  Status write(uint64_t offset, const std::byte* data, size_t size) override {
    ORDO_ASSERT(offset >= base_);  // the emitter numbers pages from the base up
    const uint64_t at = offset - base_;
    if (bytes_.size() < at + size) bytes_.resize(at + size);
    if (data != nullptr) {
      std::memcpy(bytes_.data() + at, data, size);
    } else {
      std::memset(bytes_.data() + at, 0, size);
    }
    return Status::ok();
  }
  Status finish() override { return Status::ok(); }
  uint64_t bytes() const override { return bytes_.size(); }
  const std::vector<std::byte>& data() const { return bytes_; }

 private:
  uint64_t base_;
  std::vector<std::byte> bytes_;
};

class Converter {
 public:
  Converter(const io::PageFile& file, const Meta& v3, PageEmitter& out)
      : file_(file), v3_(v3), ps_(v3.page_size), out_(out) {
    ORDO_ASSERT(btree::valid_page_size(ps_));
  }

  // The tree with version 4 branches; a tree of one leaf as it is.
  Result<TreeRoot> tree(const TreeRoot& root) {
    if (root.root == btree::kNullPage) return root;
    if (root.depth == 1) {
      ORDO_ASSIGN_OR_RETURN(const std::byte* p, page(root.root, root.root_checksum));
      ORDO_RETURN_IF_ERROR(btree::check_node(p, ps_, root.root));
      return root;
    }
    DenseBuilder b(out_, txn());
    ORDO_RETURN_IF_ERROR(
        visit(root.root, root.root_checksum, root.depth - 1, std::string(),
              [&](const std::string& lower, PageNo pg, uint64_t checksum, const NodeView& leaf) {
                return b.add_leaf(lower, pg, checksum, leaf.count());
              }));
    ORDO_ASSIGN_OR_RETURN(TreeRoot converted, b.finish());
    if (converted.entries != root.entries) {
      return Status::corruption("tree records " + std::to_string(root.entries) +
                                    " entries, its leaves hold " +
                                    std::to_string(converted.entries),
                                root.root);
    }
    return converted;
  }

  // Calls `fn` with every leaf entry of a tree whose pages are all left
  // behind (the catalog, the free tree).
  Status entries(const TreeRoot& root,
                 const std::function<Status(ByteView key, ByteView value, PageNo leaf)>& fn) {
    if (root.root == btree::kNullPage) return Status::ok();
    return visit(root.root, root.root_checksum, root.depth - 1, std::string(),
                 [&](const std::string&, PageNo pg, uint64_t, const NodeView& leaf) -> Status {
                   left_behind_.push_back(pg);
                   for (uint32_t i = 0; i < leaf.count(); ++i) {
                     if (leaf.is_overflow(i)) {
                       return Status::corruption("catalog or free tree value in an overflow run",
                                                 pg);
                     }
                     ORDO_RETURN_IF_ERROR(fn(leaf.key(i), leaf.value(i), pg));
                   }
                   if (leaf.damaged()) return Status::corruption("cell out of bounds", pg);
                   return Status::ok();
                 });
  }

  uint64_t txn() const { return v3_.txn_id + 1; }
  std::vector<PageNo>& left_behind() { return left_behind_; }

 private:
  using LeafFn = std::function<Status(const std::string& lower, PageNo pg, uint64_t checksum,
                                      const NodeView& leaf)>;

  // Page `pg` of the version 3 state, checked against `checksum`.
  Result<const std::byte*> page(PageNo pg, uint64_t checksum) {
    if (pg < kFirstDataPage || pg >= v3_.page_high_water || in_log_area(v3_, pg)) {
      return Status::corruption("tree page " + std::to_string(pg) + " out of range", pg);
    }
    const std::byte* p = file_.data(pg * ps_, ps_);
    if (p == nullptr) return Status::corruption("page past the end of the file", pg);
    if (XXH3_64bits(p, ps_) != checksum) {
      return Status::corruption("checksum mismatch with the parent's record", pg);
    }
    return p;
  }

  // Visits the leaves under `pg` in key order; `lower` is the smallest key
  // the page may hold (its separator in the parent).
  Status visit(PageNo pg, uint64_t checksum, uint32_t levels_below, const std::string& lower,
               const LeafFn& leaf_fn) {
    ORDO_ASSERT(levels_below < btree::kMaxDepth);
    ORDO_ASSIGN_OR_RETURN(const std::byte* p, page(pg, checksum));
    if (levels_below == 0) {
      ORDO_RETURN_IF_ERROR(btree::check_node(p, ps_, pg));
      const NodeView leaf(p, ps_);
      if (!leaf.is_leaf()) return Status::corruption("expected a leaf page", pg);
      return leaf_fn(lower, pg, checksum, leaf);
    }
    if (static_cast<btree::PageType>(p[btree::kOffType]) != btree::PageType::kBranch) {
      return Status::corruption("expected a branch page", pg);
    }
    const uint32_t n = load_u16(p + btree::kOffCount);
    const uint32_t slots_end = btree::kHeaderSize + btree::kSlotSize * n;
    if (n == 0 || slots_end > ps_) return Status::corruption("branch header out of bounds", pg);
    left_behind_.push_back(pg);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t off = load_u16(p + btree::kHeaderSize + btree::kSlotSize * i);
      if (off < slots_end || off + kV3BranchCellHeader > ps_) {
        return Status::corruption("cell " + std::to_string(i) + " out of bounds", pg);
      }
      const uint32_t klen = load_u16(p + off + 16);
      if (off + kV3BranchCellHeader + klen > ps_) {
        return Status::corruption("cell " + std::to_string(i) + " out of bounds", pg);
      }
      const std::string key =
          i == 0 ? lower
                 : std::string(reinterpret_cast<const char*>(p + off + kV3BranchCellHeader), klen);
      ORDO_RETURN_IF_ERROR(
          visit(load_u64(p + off), load_u64(p + off + 8), levels_below - 1, key, leaf_fn));
    }
    return Status::ok();
  }

  const io::PageFile& file_;
  const Meta& v3_;
  const uint32_t ps_;
  PageEmitter& out_;
  std::vector<PageNo> left_behind_;
};

// The new catalog: every named tree converted, its root record rewritten.
Result<TreeRoot> convert_catalog(Converter& c, const Meta& v3, PageEmitter& out) {
  std::vector<std::pair<std::string, std::string>> named;
  ORDO_RETURN_IF_ERROR(
      c.entries(v3.catalog, [&](ByteView key, ByteView value, PageNo leaf) -> Status {
        if (value.size() != kTreeRootBytes) {
          return Status::corruption("catalog entry has a bad size", leaf);
        }
        named.emplace_back(key.str(), value.str());
        return Status::ok();
      }));
  DenseBuilder catalog(out, c.txn());
  for (auto& [name, value] : named) {
    const TreeRoot old = decode_tree_root(reinterpret_cast<const std::byte*>(value.data()));
    ORDO_ASSIGN_OR_RETURN(const TreeRoot converted, c.tree(old));
    encode_tree_root(converted, reinterpret_cast<std::byte*>(value.data()));
    ORDO_RETURN_IF_ERROR(catalog.add(name, value));
  }
  return catalog.finish();
}

// The new free tree: the old entries, then the pages left behind as freed by
// the upgrade's txn (written by an unknown txn: the widest range).
Result<TreeRoot> convert_free_tree(Converter& c, const Meta& v3, PageEmitter& out,
                                   uint64_t* freed) {
  std::vector<std::pair<std::string, std::string>> entries;
  ORDO_RETURN_IF_ERROR(
      c.entries(v3.free_tree, [&](ByteView key, ByteView value, PageNo leaf) -> Status {
        const Status decoded = decode_free_entry(key, value, leaf).status();
        if (decoded.is_ok()) entries.emplace_back(key.str(), value.str());
        return decoded;
      }));
  std::vector<PageNo>& pages = c.left_behind();
  std::sort(pages.begin(), pages.end());
  *freed = pages.size();
  DenseBuilder tree(out, c.txn());
  for (const auto& [key, value] : entries) ORDO_RETURN_IF_ERROR(tree.add(key, value));
  const size_t per_chunk = btree::max_inline_value_bytes(v3.page_size) / 8;
  for (size_t begin = 0, chunk = 0; begin < pages.size(); begin += per_chunk, ++chunk) {
    const size_t end = std::min(pages.size(), begin + per_chunk);
    std::string value(8 * (end - begin), '\0');
    for (size_t i = begin; i < end; ++i) {
      btree::store_u64(reinterpret_cast<std::byte*>(value.data()) + 8 * (i - begin), pages[i]);
    }
    ORDO_RETURN_IF_ERROR(tree.add(free_key(c.txn(), 0, static_cast<uint32_t>(chunk)), value));
  }
  return tree.finish();
}

// Every tree of `v3` converted into pages that `out` numbers; the new roots
// and the pages left behind go into the returned meta.
Result<Meta> convert_all(const io::PageFile& file, const Meta& v3, PageEmitter& out) {
  Converter c(file, v3, out);
  Meta meta = v3;
  ORDO_ASSIGN_OR_RETURN(meta.default_tree, c.tree(v3.default_tree));
  ORDO_ASSIGN_OR_RETURN(meta.catalog, convert_catalog(c, v3, out));
  uint64_t freed = 0;
  // Last: it lists what the others left behind, and its own old pages.
  ORDO_ASSIGN_OR_RETURN(meta.free_tree, convert_free_tree(c, v3, out, &freed));
  meta.txn_id = c.txn();
  meta.free_pages += freed;
  return meta;
}

}  // namespace

Status check_v3_state(const io::PageFile& file, const Meta& v3) {
  MemorySink sink(v3.page_high_water * v3.page_size);
  PageEmitter out(sink, v3.page_size, v3.page_high_water);
  return convert_all(file, v3, out).status();
}

Result<Meta> rewrite_for_v4(io::PageFile& file, const Meta& v3) {
  const uint32_t ps = v3.page_size;
  MemorySink sink(v3.page_high_water * ps);
  PageEmitter out(sink, ps, v3.page_high_water);
  ORDO_ASSIGN_OR_RETURN(Meta meta, convert_all(file, v3, out));
  meta.page_high_water = out.next_page();
  meta.flags = 0;
  meta.log_epoch = v3.log_epoch + 1;
  ORDO_ASSERT(sink.data().size() == (meta.page_high_water - v3.page_high_water) * ps);
  ORDO_RETURN_IF_ERROR(file.grow_to(meta.page_high_water * ps));
  if (!sink.data().empty()) {
    const io::WriteSpan span{v3.page_high_water * ps, sink.data().data(), sink.data().size()};
    ORDO_RETURN_IF_ERROR(file.write(std::span<const io::WriteSpan>(&span, 1), false));
  }
  ORDO_RETURN_IF_ERROR(file.sync());
  meta.file_bytes = file.file_bytes();
  return meta;
}

}  // namespace ordo::engine
