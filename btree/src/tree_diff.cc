#include "ordo/btree/tree_diff.h"

#include "ordo/assert.h"
#include "tree_internal.h"

namespace ordo::btree {

TreeDiff::TreeDiff(PageReader& pages, const TreeRoot& old_tree, const TreeRoot& new_tree)
    : pages_(pages) {
  ORDO_ASSERT(valid_page_size(pages.page_size()));  // a reader of a decoded meta's file
  old_.root = old_tree;
  old_.root_pending = old_tree.root != kNullPage;
  new_.root = new_tree;
  new_.root_pending = new_tree.root != kNullPage;
}

Result<TreeDiff::Head> TreeDiff::head(Side& side) {
  Head h;
  if (side.root_pending) {
    h.kind = Head::kPage;
    h.page = side.root.root;
    h.checksum = side.root.root_checksum;
    h.height = side.root.depth;
    return h;
  }
  while (!side.stack.empty()) {
    Frame& f = side.stack.back();
    ORDO_ASSERT(f.height >= 1 && f.bytes != nullptr);  // open() pushed a loaded page
    NodeView v(f.bytes, pages_.page_size());
    if (f.index >= v.count()) {
      side.stack.pop_back();
      continue;
    }
    if (f.height == 1) {
      h.kind = Head::kEntry;
      h.lower = v.key(f.index);
    } else {
      h.kind = Head::kPage;
      h.page = v.child(f.index);
      h.checksum = v.child_checksum(f.index);
      h.height = f.height - 1;
      h.lower = f.index == 0 ? f.lower : v.key(f.index);
    }
    if (v.damaged()) return internal::damaged(f.page);
    return h;
  }
  return h;
}

Status TreeDiff::open(Side& side, const Head& h) {
  ORDO_ASSERT(h.kind == Head::kPage && h.height >= 1);
  if (side.stack.size() >= kMaxDepth) {
    return Status::corruption("tree deeper than the depth limit", h.page);
  }
  advance(side);
  ORDO_ASSIGN_OR_RETURN(NodeView v, internal::load_node(pages_, h.page, h.height == 1, h.checksum));
  pages_read_++;
  side.stack.push_back(Frame{h.page, v.data(), 0, h.height, h.lower});
  return Status::ok();
}

void TreeDiff::advance(Side& side) {
  if (side.root_pending) {
    side.root_pending = false;
    return;
  }
  ORDO_ASSERT(!side.stack.empty());  // head() showed an item of the top frame
  side.stack.back().index++;
}

Result<ByteView> TreeDiff::value_of(const Frame& f) const {
  ORDO_ASSERT(f.height == 1);  // only leaf entries have values
  NodeView v(f.bytes, pages_.page_size());
  return internal::leaf_value(pages_, v, f.index, f.page);
}

namespace {

// Whether two leaf entries hold the same value without reading overflow runs
// when both refer to the same run (same first page and checksum).
bool same_overflow_ref(const NodeView& a, uint32_t i, const NodeView& b, uint32_t j) {
  ORDO_DCHECK(a.is_leaf() && b.is_leaf());  // head() showed entries of both
  return a.is_overflow(i) && b.is_overflow(j) && a.value_len(i) == b.value_len(j) &&
         a.value(i).compare(b.value(j)) == 0;
}

}  // namespace

Result<bool> TreeDiff::next(TreeChange* change) {
  if (failed_) return Status::invalid_argument("the diff failed earlier");
  auto fail = [this](const Status& s) {
    failed_ = true;
    return s;
  };
  for (;;) {
    auto a_or = head(old_);
    if (!a_or.is_ok()) return fail(a_or.status());
    auto b_or = head(new_);
    if (!b_or.is_ok()) return fail(b_or.status());
    const Head a = *a_or;
    const Head b = *b_or;
    if (a.kind == Head::kEnd && b.kind == Head::kEnd) return false;
    Side* open_side = nullptr;
    const Head* open_head = nullptr;
    bool emit_old = false;  // the old entry is gone
    bool emit_new = false;  // the new entry is new
    if (a.kind == Head::kEnd) {
      if (b.kind == Head::kEntry) {
        emit_new = true;
      } else {
        open_side = &new_, open_head = &b;
      }
    } else if (b.kind == Head::kEnd) {
      if (a.kind == Head::kEntry) {
        emit_old = true;
      } else {
        open_side = &old_, open_head = &a;
      }
    } else if (a.kind == Head::kPage && b.kind == Head::kPage) {
      if (a.page == b.page && a.checksum == b.checksum) {
        // The same subtree in both versions: the same entries.
        advance(old_);
        advance(new_);
        continue;
      }
      const int c = a.lower.compare(b.lower);
      if (c < 0 || (c == 0 && a.height >= b.height)) {
        open_side = &old_, open_head = &a;
        if (c == 0 && a.height == b.height) {
          Status s = open(new_, b);
          if (!s.is_ok()) return fail(s);
        }
      } else {
        open_side = &new_, open_head = &b;
      }
    } else if (a.kind == Head::kEntry && b.kind == Head::kPage) {
      // Every key left in the new version is >= b.lower.
      if (a.lower.compare(b.lower) < 0) {
        emit_old = true;
      } else {
        open_side = &new_, open_head = &b;
      }
    } else if (a.kind == Head::kPage && b.kind == Head::kEntry) {
      if (b.lower.compare(a.lower) < 0) {
        emit_new = true;
      } else {
        open_side = &old_, open_head = &a;
      }
    } else {
      const int c = a.lower.compare(b.lower);
      if (c < 0) {
        emit_old = true;
      } else if (c > 0) {
        emit_new = true;
      } else {
        const Frame& fa = old_.stack.back();
        const Frame& fb = new_.stack.back();
        NodeView va(fa.bytes, pages_.page_size());
        NodeView vb(fb.bytes, pages_.page_size());
        if (same_overflow_ref(va, fa.index, vb, fb.index)) {
          advance(old_);
          advance(new_);
          continue;
        }
        auto ov = value_of(fa);
        if (!ov.is_ok()) return fail(ov.status());
        auto nv = value_of(fb);
        if (!nv.is_ok()) return fail(nv.status());
        advance(old_);
        advance(new_);
        if (ov->compare(*nv) == 0) continue;
        *change = TreeChange{a.lower, true, true, *ov, *nv};
        return true;
      }
    }
    if (open_side != nullptr) {
      Status s = open(*open_side, *open_head);
      if (!s.is_ok()) return fail(s);
      continue;
    }
    ORDO_ASSERT(emit_old != emit_new);
    Side& side = emit_old ? old_ : new_;
    auto value = value_of(side.stack.back());
    if (!value.is_ok()) return fail(value.status());
    advance(side);
    *change = emit_old ? TreeChange{a.lower, true, false, *value, {}}
                       : TreeChange{b.lower, false, true, {}, *value};
    return true;
  }
}

}  // namespace ordo::btree
