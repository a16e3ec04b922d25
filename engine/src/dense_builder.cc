#include "dense_builder.h"

#include <functional>

#include "ordo/assert.h"

namespace ordo::engine {

using btree::NodeEditor;
using btree::NodeView;
using btree::PageNo;
using btree::PageType;

Result<PageNo> PageEmitter::emit(const std::byte* bytes, uint64_t pages) {
  const PageNo pg = next_;
  ORDO_ASSERT(pages >= 1 && pg >= btree::kFirstDataPage);  // Never over a meta page.
  ORDO_RETURN_IF_ERROR(sink_.write(pg * page_size_, bytes, pages * page_size_));
  next_ += pages;
  return pg;
}

DenseBuilder::DenseBuilder(PageEmitter& out, uint64_t txn_id)
    : out_(out), ps_(out.page_size()), txn_id_(txn_id) {
  ORDO_ASSERT(btree::valid_page_size(ps_));
  leaf_.page.resize(ps_);
}

Result<std::pair<PageNo, uint64_t>> DenseBuilder::emit_page(std::vector<std::byte>& page) {
  // Before it is written: a page this builder formatted and filled.
  const NodeView v(page.data(), ps_);
  ORDO_ASSERT(page.size() == ps_ && (v.is_leaf() || v.is_branch()) && v.count() > 0 &&
              v.txn_id() == txn_id_ && v.used_bytes() <= ps_);
  const uint64_t checksum = btree::page_checksum(page.data(), ps_);
  ORDO_ASSIGN_OR_RETURN(const PageNo pg, out_.emit(page.data()));
  return std::make_pair(pg, checksum);
}

// `entries`: the entries in the subtree under `child`, which its branch
// cell records.
Status DenseBuilder::push(size_t i, const std::string& first_key, PageNo child, uint64_t checksum,
                          uint64_t entries) {
  ORDO_ASSERT(i <= branches_.size() && child >= btree::kFirstDataPage);
  if (i == branches_.size()) {
    if (branches_.size() + 1 >= btree::kMaxDepth) {
      return Status::full("tree reached its maximum depth");
    }
    branches_.emplace_back();
    branches_.back().page.resize(ps_);
  }
  Level* level = &branches_[i];
  if (level->open) {
    NodeEditor ed(level->page.data(), ps_);
    if (ed.fits(btree::branch_cell_size(first_key.size()))) {
      ed.insert_branch(ed.view().count(), first_key, child, checksum, entries);
      return Status::ok();
    }
    ORDO_ASSIGN_OR_RETURN(auto written, emit_page(level->page));
    const uint64_t up_entries = btree::subtree_entries(NodeView(level->page.data(), ps_));
    const std::string up_key = level->first_key;
    ORDO_RETURN_IF_ERROR(push(i + 1, up_key, written.first, written.second, up_entries));
    level = &branches_[i];  // push may have grown branches_
  }
  NodeEditor ed(level->page.data(), ps_);
  ed.init(PageType::kBranch, txn_id_);
  ed.insert_branch(0, ByteView(), child, checksum, entries);  // entry 0's key is stored empty
  level->first_key = first_key;
  level->open = true;
  return Status::ok();
}

Status DenseBuilder::add_cell(ByteView key, uint32_t cell_size,
                              const std::function<void(NodeEditor&)>& insert) {
  NodeEditor ed(leaf_.page.data(), ps_);
  if (leaf_.open && !ed.fits(cell_size)) {
    ORDO_ASSIGN_OR_RETURN(auto written, emit_page(leaf_.page));
    const uint64_t leaf_entries = NodeView(leaf_.page.data(), ps_).count();
    ORDO_RETURN_IF_ERROR(push(0, leaf_.first_key, written.first, written.second, leaf_entries));
    leaf_.open = false;
  }
  if (!leaf_.open) {
    ed.init(PageType::kLeaf, txn_id_);
    leaf_.first_key.assign(key.view());
    leaf_.open = true;
  }
  ORDO_ASSERT(ed.fits(cell_size));  // A cell fits an empty page (max_key_bytes).
  insert(ed);
  entries_++;
  return Status::ok();
}

Status DenseBuilder::add(ByteView key, ByteView value) {
  return add_cell(key, btree::leaf_cell_size(key.size(), value.size()),
                  [&](NodeEditor& ed) { ed.insert_leaf(ed.view().count(), key, value); });
}

Status DenseBuilder::add_overflow(ByteView key, uint64_t value_len, const std::byte* run,
                                  uint64_t run_pages, uint64_t run_checksum) {
  ORDO_ASSERT(run != nullptr && run_pages >= 1);
  ORDO_ASSIGN_OR_RETURN(const PageNo first, out_.emit(run, run_pages));
  return add_cell(key, btree::leaf_cell_size(key.size(), btree::kOverflowRefBytes),
                  [&](NodeEditor& ed) {
                    ed.insert_leaf_overflow(ed.view().count(), key, value_len, first, run_checksum);
                  });
}

Status DenseBuilder::add_leaf(const std::string& lower_bound, PageNo leaf, uint64_t checksum,
                              uint64_t entries) {
  ORDO_ASSERT(!leaf_.open && leaf >= btree::kFirstDataPage);  // no add() on this builder
  entries_ += entries;
  return push(0, lower_bound, leaf, checksum, entries);
}

Result<btree::TreeRoot> DenseBuilder::finish() {
  btree::TreeRoot root;
  if (!leaf_.open) {
    if (branches_.empty()) return root;
    root.entries = entries_;
    return close_branches(root);
  }
  ORDO_ASSIGN_OR_RETURN(auto written, emit_page(leaf_.page));
  leaf_.open = false;
  root.entries = entries_;
  if (branches_.empty()) {
    root.root = written.first;
    root.root_checksum = written.second;
    root.depth = 1;
    return root;
  }
  ORDO_RETURN_IF_ERROR(push(0, leaf_.first_key, written.first, written.second,
                            NodeView(leaf_.page.data(), ps_).count()));
  return close_branches(root);
}

Result<btree::TreeRoot> DenseBuilder::close_branches(btree::TreeRoot root) {
  ORDO_ASSERT(!branches_.empty() && root.entries == entries_);
  // Close every level bottom-up; the top one's page is the root. (Pushing
  // into a full level may add a level above it: the loop sees it.)
  for (size_t i = 0; i < branches_.size(); ++i) {
    ORDO_ASSIGN_OR_RETURN(auto page, emit_page(branches_[i].page));
    branches_[i].open = false;
    if (i + 1 == branches_.size()) {
      root.root = page.first;
      root.root_checksum = page.second;
      root.depth = static_cast<uint32_t>(branches_.size() + 1);
      ORDO_ASSERT(root.depth <= btree::kMaxDepth);  // push() stops below it
      ORDO_DCHECK(btree::subtree_entries(NodeView(branches_[i].page.data(), ps_)) == entries_);
      return root;
    }
    const uint64_t up_entries = btree::subtree_entries(NodeView(branches_[i].page.data(), ps_));
    const std::string up_key = branches_[i].first_key;
    ORDO_RETURN_IF_ERROR(push(i + 1, up_key, page.first, page.second, up_entries));
  }
  return Status::corruption("dense build ended without a root");
}

}  // namespace ordo::engine
