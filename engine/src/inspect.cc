// The inspection API (ordo/inspect.h).
#include "ordo/inspect.h"

#include <cstdint>

#include "free_entry.h"
#include "meta.h"
#include "ordo/assert.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/node.h"
#include "ordo/btree/overflow_ref.h"
#include "ordo/btree/walk.h"
#include "ordo/io/page_file.h"
#include "ordo/io/reader_slots.h"
#include "snapshot_pages.h"
#include "txn_internals.h"

namespace ordo::inspect {

using btree::NodeView;
using btree::PageNo;
using engine::Meta;

const char* tree_kind_name(TreeKind kind) {
  switch (kind) {
    case TreeKind::kDefault:
      return "default";
    case TreeKind::kNamed:
      return "named";
    case TreeKind::kCatalog:
      return "catalog";
    case TreeKind::kFree:
      return "free";
    case TreeKind::kKept:
      return "kept";
  }
  return "?";
}

const char* page_kind_name(PageKind kind) {
  switch (kind) {
    case PageKind::kMeta:
      return "meta";
    case PageKind::kBranch:
      return "branch";
    case PageKind::kLeaf:
      return "leaf";
    case PageKind::kOverflow:
      return "overflow";
    case PageKind::kFree:
      return "free";
    case PageKind::kUnreachable:
      return "unreachable";
    case PageKind::kLog:
      return "log";
  }
  return "?";
}

const char* free_state_name(FreeState state) {
  switch (state) {
    case FreeState::kReusable:
      return "reusable";
    case FreeState::kRecent:
      return "recent";
    case FreeState::kPinned:
      return "pinned";
  }
  return "?";
}

namespace {

Result<TxnImpl*> read_impl(Txn& txn) {
  ORDO_ASSIGN_OR_RETURN(TxnImpl * impl, TxnInternals::impl(txn));
  if (impl->is_write()) {
    return Status::invalid_argument("the inspection API reads committed snapshots: use a ReadTxn");
  }
  return impl;
}

btree::TreeRoot root_of(const Meta& meta, const TreeSummary& t,
                        const std::vector<btree::TreeRoot>& named, size_t index) {
  switch (t.kind) {
    case TreeKind::kDefault:
      return meta.default_tree;
    case TreeKind::kCatalog:
      return meta.catalog;
    case TreeKind::kFree:
      return meta.free_tree;
    case TreeKind::kKept:
      return meta.kept;
    case TreeKind::kNamed:
      break;
  }
  ORDO_ASSERT(index >= 1 && index - 1 < named.size());  // trees[0] is the default tree
  return named[index - 1];
}

// The trees and, for the named ones, their roots (named[i] is trees[i + 1]).
Status collect_trees(TxnImpl& impl, std::vector<TreeSummary>* trees,
                     std::vector<btree::TreeRoot>* named) {
  ORDO_ASSERT(impl.live() && !impl.is_write());  // read_impl() checked it
  const Meta& m = impl.snapshot();
  auto summary = [](TreeKind kind, std::string name, const btree::TreeRoot& r) {
    TreeSummary s;
    s.kind = kind;
    s.name = std::move(name);
    s.entries = r.entries;
    s.depth = r.depth;
    s.root_page = r.root;
    return s;
  };
  const size_t trees_before = trees->size(), named_before = named->size();
  trees->push_back(summary(TreeKind::kDefault, "", m.default_tree));
  btree::Cursor c(impl.pages(), m.catalog);
  Status s = c.first();
  while (s.is_ok() && c.valid()) {
    const ByteView v = c.value();
    if (v.size() != engine::kTreeRootBytes) {
      return Status::corruption("catalog entry has a bad size", m.catalog.root);
    }
    const btree::TreeRoot root = engine::decode_tree_root(v.data());
    trees->push_back(summary(TreeKind::kNamed, c.key().str(), root));
    named->push_back(root);
    s = c.next();
  }
  ORDO_RETURN_IF_ERROR(s);
  ORDO_RETURN_IF_ERROR(c.status());
  trees->push_back(summary(TreeKind::kCatalog, "", m.catalog));
  trees->push_back(summary(TreeKind::kFree, "", m.free_tree));
  const bool kept = m.kept.root != btree::kNullPage;
  if (kept) trees->push_back(summary(TreeKind::kKept, "", m.kept));
  // named[i] is trees[i + 1]: root_of() relies on it.
  ORDO_ASSERT(trees->size() - trees_before == named->size() - named_before + 3 + (kept ? 1 : 0));
  return Status::ok();
}

// A walk that goes on past damage: a page it cannot decode is reported and
// its subtree skipped. Checksums are not verified (describe_page reports
// them). `visit` sees each page it could decode and may end the walk
// (returns true).
using PageVisit = std::function<bool(const btree::PageRef& ref, const NodeView& node)>;

class TolerantVisitor : public btree::PageVisitor {
 public:
  TolerantVisitor(const std::string& label, const std::function<void(std::string)>& problem,
                  const PageVisit& visit)
      : label_(label), problem_(problem), visit_(visit) {}
  Status damaged(const btree::PageRef& ref, Status problem) override {
    problem_(label_ + ": page " + std::to_string(ref.page) + ": " + problem.message());
    return Status::ok();
  }
  Result<btree::WalkStep> page(const btree::PageRef& ref, const NodeView& node) override {
    if (visit_(ref, node)) return btree::WalkStep::kStop;
    return ref.leaf() ? btree::WalkStep::kSkip : btree::WalkStep::kDescend;
  }

 private:
  const std::string& label_;
  const std::function<void(std::string)>& problem_;
  const PageVisit& visit_;
};

// Returns true when `visit` ended the walk.
bool tolerant_walk(btree::PageReader& pages, const std::string& label, const btree::TreeRoot& root,
                   const std::function<void(std::string)>& problem, const PageVisit& visit) {
  bool stopped = false;
  const PageVisit stopping = [&](const btree::PageRef& ref, const NodeView& node) {
    stopped = visit(ref, node);
    return stopped;
  };
  TolerantVisitor visitor(label, problem, stopping);
  btree::WalkOptions options;
  options.verify_checksums = false;
  Status s = btree::walk_tree(pages, root, visitor, options);
  if (!s.is_ok()) problem(label + ": " + s.message());
  return stopped;
}

std::string tree_label(const TreeSummary& t) {
  switch (t.kind) {
    case TreeKind::kDefault:
      return "default tree";
    case TreeKind::kCatalog:
      return "catalog";
    case TreeKind::kFree:
      return "free tree";
    case TreeKind::kKept:
      return "kept snapshots";
    case TreeKind::kNamed:
      break;
  }
  return "tree '" + t.name + "'";
}

}  // namespace

Result<std::vector<TreeSummary>> trees(Txn& txn) {
  ORDO_ASSIGN_OR_RETURN(TxnImpl * impl, read_impl(txn));
  std::vector<TreeSummary> out;
  std::vector<btree::TreeRoot> named;
  ORDO_RETURN_IF_ERROR(collect_trees(*impl, &out, &named));
  return out;
}

Result<PageMap> page_map(Txn& txn, const std::function<void(uint64_t, uint64_t)>& progress) {
  ORDO_ASSIGN_OR_RETURN(TxnImpl * impl, read_impl(txn));
  const Meta& meta = impl->snapshot();
  PageMap map;
  map.page_size = meta.page_size;
  map.high_water = meta.page_high_water;
  std::vector<btree::TreeRoot> named;
  ORDO_RETURN_IF_ERROR(collect_trees(*impl, &map.trees, &named));
  map.pages.resize(meta.page_high_water);
  for (uint64_t i = 0; i < map.pages.size(); ++i) {
    map.pages[i].page = i;
    if (i < engine::kFirstDataPage) map.pages[i].kind = PageKind::kMeta;
    if (engine::in_log_area(meta, i)) map.pages[i].kind = PageKind::kLog;
  }
  uint64_t seen = 0;
  btree::PageReader& pages = impl->pages();
  for (size_t t = 0; t < map.trees.size(); ++t) {
    const btree::TreeRoot root = root_of(meta, map.trees[t], named, t);
    const std::string label = tree_label(map.trees[t]);
    const auto problem = [&](std::string p) { map.problems.push_back(std::move(p)); };
    const PageVisit visit = [&](const btree::PageRef& ref, const NodeView& v) {
      const PageNo pg = ref.page;
      // The walk reads through the snapshot, which refuses pages outside it.
      ORDO_ASSERT(pg >= engine::kFirstDataPage && pg < map.pages.size());
      PageSummary& s = map.pages[pg];
      s.kind = v.is_leaf() ? PageKind::kLeaf : PageKind::kBranch;
      s.tree = static_cast<int32_t>(t);
      s.level = ref.level;
      s.entries = v.count();
      s.used_bytes = v.used_bytes();
      s.txn_id = v.txn_id();
      if (v.is_leaf()) {
        for (uint32_t i = 0; i < v.count(); ++i) {
          if (!v.is_overflow(i)) {
            if (map.trees[t].kind == TreeKind::kFree) {
              auto e = engine::decode_free_entry(v.key(i), v.value(i), pg);
              if (!e.is_ok()) {
                map.problems.push_back(label + ": " + e.status().to_string());
                continue;
              }
              for (uint64_t k = 0; k < e->page_count(); ++k) {
                const PageNo fp = e->page(k);
                if (fp < engine::kFirstDataPage || fp >= map.pages.size()) {
                  map.problems.push_back(label + ": lists page " + std::to_string(fp) +
                                         " outside the database");
                  continue;
                }
                map.pages[fp].kind = PageKind::kFree;
                map.pages[fp].freed_by = e->freed_by;
                map.pages[fp].txn_id = e->written_by;
              }
            }
            continue;
          }
          s.overflow_refs++;
          const auto run = btree::leaf_overflow_run(v, i, pg);
          if (!run.is_ok()) {
            map.problems.push_back(label + ": page " + std::to_string(pg) + ": " +
                                   run.status().message());
            continue;
          }
          const PageNo first = run->ref.first;
          const uint64_t n = run->pages;
          if (first >= map.pages.size() || n > map.pages.size() - first) {
            map.problems.push_back(label + ": page " + std::to_string(pg) +
                                   ": overflow run outside the database");
            continue;
          }
          uint64_t run_txn = 0;
          if (auto p = pages.read(first); p.is_ok())
            run_txn = btree::load_u64(*p + btree::kOffTxnId);
          for (uint64_t k = 0; k < n; ++k) {
            PageSummary& o = map.pages[first + k];
            o.kind = PageKind::kOverflow;
            o.tree = static_cast<int32_t>(t);
            o.run_first = first;
            o.run_pages = n;
            o.txn_id = run_txn;
          }
          seen += n;
        }
      }
      if (++seen % 4096 == 0 && progress) progress(seen, map.high_water);
      return false;
    };
    tolerant_walk(pages, label, root, problem, visit);
  }
  if (progress) progress(map.high_water, map.high_water);
  return map;
}

Result<PageDetail> describe_page(Txn& txn, uint64_t page_number) {
  ORDO_ASSIGN_OR_RETURN(TxnImpl * impl, read_impl(txn));
  const Meta& meta = impl->snapshot();
  const uint32_t ps = meta.page_size;
  if (page_number >= meta.page_high_water) {
    return Status::invalid_argument("page " + std::to_string(page_number) +
                                    " is at or past the high-water mark " +
                                    std::to_string(meta.page_high_water));
  }
  const io::PageFile& file = impl->db().file();
  const std::byte* raw = file.data(page_number * ps, ps);
  if (raw == nullptr)
    return Status::corruption("page lies beyond the end of the file", page_number);
  PageDetail d;
  d.page = page_number;
  d.bytes.assign(reinterpret_cast<const char*>(raw), ps);
  d.type_byte = static_cast<uint8_t>(raw[btree::kOffType]);
  if (page_number < engine::kFirstDataPage) {
    d.kind = PageKind::kMeta;
    d.owned = true;
    Meta m;
    std::string text;
    if (engine::decode_meta(raw, &m, &text) != engine::MetaProblem::kNone) d.problem = text;
    d.txn_id = m.txn_id;
    return d;
  }
  if (engine::in_log_area(meta, page_number)) {
    d.kind = PageKind::kLog;
    d.owned = true;
    return d;
  }
  std::vector<TreeSummary> trees;
  std::vector<btree::TreeRoot> named;
  ORDO_RETURN_IF_ERROR(collect_trees(*impl, &trees, &named));
  btree::PageReader& pages = impl->pages();
  std::vector<std::string> problems;
  for (size_t t = 0; t < trees.size() && !d.owned; ++t) {
    const auto problem = [&](std::string p) { problems.push_back(std::move(p)); };
    const PageVisit visit = [&](const btree::PageRef& ref, const NodeView& v) {
      const PageNo pg = ref.page;
      if (pg == page_number) {
        d.kind = v.is_leaf() ? PageKind::kLeaf : PageKind::kBranch;
        d.level = ref.level;
        d.has_parent = true;
        d.parent = ref.parent;
        d.expected_checksum = ref.expected_checksum;
        d.owned = true;
      } else if (v.is_leaf()) {
        for (uint32_t i = 0; i < v.count(); ++i) {
          if (!v.is_overflow(i)) continue;
          const auto run = btree::leaf_overflow_run(v, i, pg);
          if (!run.is_ok()) continue;
          const PageNo first = run->ref.first;
          if (page_number < first || page_number - first >= run->pages) continue;
          d.kind = PageKind::kOverflow;
          d.run_first = first;
          d.run_pages = run->pages;
          d.owned = true;
          d.has_parent = page_number == first;
          d.parent = pg;
          d.expected_checksum = run->ref.checksum;
          break;
        }
      }
      if (!d.owned && v.is_leaf() && trees[t].kind == TreeKind::kFree) {
        for (uint32_t i = 0; i < v.count(); ++i) {
          auto e = engine::decode_free_entry(v.key(i), v.value(i), pg);
          if (!e.is_ok()) continue;
          for (uint64_t k = 0; k < e->page_count(); ++k) {
            if (e->page(k) != page_number) continue;
            d.kind = PageKind::kFree;
            d.freed_by = e->freed_by;
            d.written_by = e->written_by;
            d.owned = true;
          }
        }
      }
      if (d.owned) {
        d.tree = trees[t].name;
        d.tree_kind = trees[t].kind;
      }
      return d.owned;
    };
    tolerant_walk(pages, tree_label(trees[t]), root_of(meta, trees[t], named, t), problem, visit);
  }
  if (!d.owned) d.kind = PageKind::kUnreachable;
  // The header, as stored (meaningful for tree and overflow pages).
  NodeView v(raw, ps);
  d.flags = static_cast<uint8_t>(raw[btree::kOffFlags]);
  d.count = v.count();
  d.cell_start = v.cell_start();
  d.txn_id = v.txn_id();
  d.cell_bytes = v.cell_bytes();
  if (d.kind == PageKind::kOverflow) {
    if (d.has_parent) {
      auto run = pages.read_run(d.run_first, d.run_pages);
      if (run.is_ok()) {
        d.actual_checksum = btree::overflow_run_checksum(*run, d.run_pages, ps);
        d.checksum_ok = d.actual_checksum == d.expected_checksum;
      } else {
        d.problem = run.status().message();
      }
    }
    return d;
  }
  const auto type = static_cast<btree::PageType>(d.type_byte);
  if (type != btree::PageType::kLeaf && type != btree::PageType::kBranch) return d;
  d.actual_checksum = btree::page_checksum(raw, ps);
  d.checksum_ok = d.has_parent && d.actual_checksum == d.expected_checksum;
  Status structure = btree::check_node_order(raw, ps, page_number);
  if (!structure.is_ok()) {
    d.problem = structure.message();
    return d;
  }
  for (uint32_t i = 0; i < v.count(); ++i) {
    CellDetail c;
    c.key = v.key(i).str();
    if (v.is_leaf()) {
      c.value_len = v.value_len(i);
      c.overflow = v.is_overflow(i);
      const auto ref = btree::decode_overflow_ref(v.value(i), page_number);
      if (c.overflow && ref.is_ok()) {
        c.run_first = ref->first;
        c.run_checksum = ref->checksum;
      } else {
        c.value = v.value(i).str();
      }
    } else {
      c.child = v.child(i);
      c.child_checksum = v.child_checksum(i);
      c.child_entries = v.child_entries(i);
      auto child = pages.read(c.child);
      if (child.is_ok()) {
        c.child_actual_checksum = btree::page_checksum(*child, ps);
        c.child_checksum_ok = c.child_actual_checksum == c.child_checksum;
      }
    }
    d.cells.push_back(std::move(c));
  }
  if (v.damaged()) d.problem = "cell out of bounds";
  return d;
}

Result<std::vector<FreeEntryInfo>> free_entries(Txn& txn) {
  ORDO_ASSIGN_OR_RETURN(TxnImpl * impl, read_impl(txn));
  const Meta& meta = impl->snapshot();
  ORDO_ASSIGN_OR_RETURN(const engine::ReuseRule rule, impl->db().reuse_rule(meta.txn_id));
  std::vector<FreeEntryInfo> out;
  btree::Cursor c(impl->pages(), meta.free_tree);
  Status s = c.first();
  while (s.is_ok() && c.valid()) {
    ORDO_ASSIGN_OR_RETURN(const engine::FreeEntry e,
                          engine::decode_free_entry(c.key(), c.value(), meta.free_tree.root));
    FreeEntryInfo info;
    info.freed_by = e.freed_by;
    info.written_by = e.written_by;
    info.chunk = e.chunk;
    for (uint64_t i = 0; i < e.page_count(); ++i) info.pages.push_back(e.page(i));
    if (rule.recent(e)) {
      info.state = FreeState::kRecent;
    } else {
      ORDO_ASSIGN_OR_RETURN(const bool reusable, rule.reusable(e));
      info.state = reusable ? FreeState::kReusable : FreeState::kPinned;
    }
    out.push_back(std::move(info));
    s = c.next();
  }
  ORDO_RETURN_IF_ERROR(s);
  return out;
}

Result<std::vector<ReaderSlot>> reader_slots(const std::string& path) {
  ORDO_ASSIGN_OR_RETURN(std::vector<io::HeldReaderSlot> held, io::reader_slot_holders(path));
  std::vector<ReaderSlot> out;
  out.reserve(held.size());
  for (io::HeldReaderSlot& slot : held) out.push_back({slot.txn_id, std::move(slot.pids)});
  return out;
}

}  // namespace ordo::inspect
