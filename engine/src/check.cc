// Txn::check: a full walk of one snapshot that keeps going past problems and
// accounts for every page below the high-water mark.
#include <xxhash.h>

#include <string>
#include <vector>

#include "ordo/btree/endian.h"
#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"
#include "free_entry.h"
#include "txn_impl.h"

namespace ordo {
namespace {

using btree::NodeView;
using btree::PageNo;

enum class Owner : uint8_t { kNone, kMeta, kTree, kOverflow, kFree };

const char* owner_name(Owner o) {
  switch (o) {
    case Owner::kMeta: return "a meta page";
    case Owner::kTree: return "a tree page";
    case Owner::kOverflow: return "an overflow page";
    case Owner::kFree: return "a free page";
    case Owner::kNone: break;
  }
  return "unused";
}

class Checker {
 public:
  using LeafVisitor = std::function<void(const NodeView& leaf, uint32_t i, PageNo pg)>;

  Checker(btree::PageReader& pages, uint64_t high_water, CheckReport& report,
          const std::function<void(uint64_t, uint64_t)>& progress)
      : pages_(pages),
        ps_(pages.page_size()),
        high_water_(high_water),
        owner_(high_water, Owner::kNone),
        report_(report),
        progress_(progress) {
    report_.high_water_pages = high_water;
    for (PageNo pg = 0; pg < 2 && pg < high_water; ++pg) owner_[pg] = Owner::kMeta;
  }

  void problem(PageNo pg, std::string what) {
    if (report_.problems.size() >= CheckReport::kMaxProblems) {
      report_.truncated = true;
      return;
    }
    report_.problems.push_back({pg, std::move(what)});
  }

  // Claims a page for `kind`; false (with a problem) if outside the file or taken.
  bool claim(PageNo pg, Owner kind, const std::string& context) {
    if (pg < 2 || pg >= high_water_) {
      problem(pg, context + ": page number outside the database (high-water mark " +
                      std::to_string(high_water_) + ")");
      return false;
    }
    if (owner_[pg] != Owner::kNone) {
      problem(pg, context + ": page is already " + owner_name(owner_[pg]) +
                      " (reached twice: a cycle, a shared page or a freed page in use)");
      return false;
    }
    owner_[pg] = kind;
    if (++claimed_ % 4096 == 0 && progress_) progress_(claimed_, high_water_);
    return true;
  }

  // Walks one tree; `visit` sees every leaf entry.
  // Returns the entries found.
  uint64_t tree(const std::string& name, const btree::TreeRoot& root, const LeafVisitor& visit) {
    if (root.root == btree::kNoPage) {
      if (root.entries != 0 || root.depth != 0) problem(0, name + ": empty root with entries");
      return 0;
    }
    if (root.depth == 0 || root.depth > btree::kMaxDepth) {
      problem(root.root, name + ": depth " + std::to_string(root.depth) + " out of range");
      return 0;
    }
    uint64_t entries = walk(name, root.root, root.root_checksum, 0, root.depth, nullptr, nullptr,
                            visit);
    if (entries != root.entries) {
      problem(root.root, name + ": holds " + std::to_string(entries) + " entries, its root says " +
                             std::to_string(root.entries));
    }
    return entries;
  }

  // A user tree: the default tree or a named tree.
  void user_tree(const std::string& name, const btree::TreeRoot& root) {
    report_.trees++;
    report_.entries += tree(name, root, {});
  }

  void leaks() {
    PageNo start = 0;
    for (PageNo pg = 2; pg <= high_water_; ++pg) {
      bool leaked = pg < high_water_ && owner_[pg] == Owner::kNone;
      if (leaked && start == 0) start = pg;
      if (!leaked && start != 0) {
        problem(start, pg - start == 1 ? "page is neither reachable nor free (leaked)"
                                       : "pages " + std::to_string(start) + " to " +
                                             std::to_string(pg - 1) +
                                             " are neither reachable nor free (leaked)");
        start = 0;
      }
    }
  }

 private:
  uint64_t walk(const std::string& name, PageNo pg, uint64_t expected, uint32_t level,
                uint32_t depth, const std::string* lo, const std::string* hi,
                const LeafVisitor& visit) {
    if (!claim(pg, Owner::kTree, name)) return 0;
    report_.tree_pages++;
    auto read = pages_.read(pg);
    if (!read.is_ok()) {
      problem(pg, name + ": " + read.status().message());
      return 0;
    }
    const std::byte* page = *read;
    uint64_t actual = btree::page_checksum(page, ps_);
    if (actual != expected) {
      problem(pg, name + ": checksum mismatch (parent records " + std::to_string(expected) +
                      ", page has " + std::to_string(actual) + ")");
    }
    Status s = btree::check_node_order(page, ps_, pg);
    if (!s.is_ok()) {
      problem(pg, name + ": " + s.message());
      return 0;
    }
    NodeView v(page, ps_);
    const bool leaf = level + 1 == depth;
    if (v.is_leaf() != leaf) {
      problem(pg, name + (leaf ? ": branch page where the depth puts leaves"
                               : ": leaf page above the leaf level"));
      return 0;
    }
    const uint32_t n = v.count();
    const uint32_t first_key = leaf ? 0 : 1;
    if (n > first_key) {
      if (lo != nullptr && v.key(first_key).compare(*lo) < 0) {
        problem(pg, name + ": key below the lower bound set by the parent");
      }
      if (hi != nullptr && v.key(n - 1).compare(*hi) >= 0) {
        problem(pg, name + ": key at or above the upper bound set by the parent");
      }
    }
    if (leaf) {
      for (uint32_t i = 0; i < n; ++i) {
        if (v.is_overflow(i)) overflow(name, v, i, pg);
        if (visit) visit(v, i, pg);
      }
      return n;
    }
    uint64_t entries = 0;
    for (uint32_t i = 0; i < n; ++i) {
      std::string child_lo = i == 0 ? std::string() : v.key(i).str();
      std::string child_hi = i + 1 < n ? v.key(i + 1).str() : std::string();
      entries += walk(name, v.child(i), v.child_checksum(i), level + 1, depth,
                      i == 0 ? lo : &child_lo, i + 1 < n ? &child_hi : hi, visit);
    }
    return entries;
  }

  void overflow(const std::string& name, const NodeView& leaf, uint32_t i, PageNo leaf_pg) {
    const uint64_t len = leaf.value_len(i);
    const PageNo first = btree::load_u64(leaf.value(i).data());
    const uint64_t expected = btree::load_u64(leaf.value(i).data() + 8);
    if (len > btree::kMaxValueBytes) {
      problem(leaf_pg, name + ": overflow value longer than the maximum");
      return;
    }
    const uint64_t n = btree::overflow_pages(len, ps_);
    if (first < 2 || first >= high_water_ || n > high_water_ - first) {
      problem(first, name + ": overflow run of " + std::to_string(n) +
                         " pages runs past the end of the database (referenced by page " +
                         std::to_string(leaf_pg) + ")");
      return;
    }
    for (uint64_t k = 0; k < n; ++k) {
      if (!claim(first + k, Owner::kOverflow, name + " overflow run")) return;
    }
    report_.overflow_pages += n;
    auto run = pages_.read_run(first, n);
    if (!run.is_ok()) {
      problem(first, name + ": " + run.status().message());
      return;
    }
    if (static_cast<btree::PageType>((*run)[btree::kOffType]) != btree::PageType::kOverflow) {
      problem(first, name + ": overflow run does not start with an overflow page");
    }
    if (XXH3_64bits(*run, n * ps_) != expected) {
      problem(first, name + ": overflow run checksum mismatch (referenced by page " +
                         std::to_string(leaf_pg) + ")");
    }
  }

  btree::PageReader& pages_;
  const uint32_t ps_;
  const uint64_t high_water_;
  std::vector<Owner> owner_;
  CheckReport& report_;
  const std::function<void(uint64_t, uint64_t)>& progress_;
  uint64_t claimed_ = 0;

 public:
  void free_entry(const NodeView& leaf, uint32_t i, PageNo pg) {
    if (leaf.is_overflow(i)) {
      problem(pg, "free tree: entry " + std::to_string(i) + " has an overflow value");
      return;
    }
    auto entry = engine::decode_free_entry(leaf.key(i), leaf.value(i), pg);
    if (!entry.is_ok()) {
      problem(pg, "free tree: entry " + std::to_string(i) + ": " + entry.status().message());
      return;
    }
    for (uint64_t k = 0; k < entry->page_count(); ++k) {
      if (claim(entry->page(k), Owner::kFree, "free tree entry")) report_.free_pages++;
    }
  }
};

}  // namespace

Result<CheckReport> Txn::check(const std::function<void(uint64_t, uint64_t)>& progress) {
  if (!impl_) return Status::txn_ended("txn already committed, aborted or moved from");
  const engine::Meta& meta = impl_->snapshot();
  CheckReport report;
  Checker c(impl_->pages(), meta.page_high_water, report, progress);
  c.user_tree("default tree", meta.default_tree);
  report.free_tree_entries = c.tree(
      "free tree", meta.free_tree,
      [&](const NodeView& leaf, uint32_t i, PageNo pg) { c.free_entry(leaf, i, pg); });
  std::vector<std::pair<std::string, btree::TreeRoot>> named;
  report.catalog_entries = c.tree("catalog", meta.catalog, [&](const NodeView& leaf, uint32_t i,
                                                                PageNo pg) {
    ByteView value = leaf.value(i);
    if (leaf.is_overflow(i) || value.size() != engine::kTreeRootBytes || leaf.key(i).empty()) {
      c.problem(pg, "catalog: malformed entry " + std::to_string(i));
      return;
    }
    named.emplace_back(leaf.key(i).str(), engine::decode_tree_root(value.data()));
  });
  if (named.size() != meta.tree_count) {
    c.problem(0, "catalog holds " + std::to_string(named.size()) + " trees, the meta says " +
                     std::to_string(meta.tree_count));
  }
  for (const auto& [name, root] : named) c.user_tree("tree '" + name + "'", root);
  if (report.free_pages != meta.free_pages) {
    c.problem(0, "free tree lists " + std::to_string(report.free_pages) +
                     " pages, the meta says " + std::to_string(meta.free_pages));
  }
  c.leaks();
  if (progress) progress(meta.page_high_water, meta.page_high_water);
  return report;
}

}  // namespace ordo
