// Txn::check: a full walk of one snapshot that keeps going past problems and
// accounts for every page below the high-water mark.
#include <string>
#include <vector>

#include "free_entry.h"
#include "kept_snapshots.h"
#include "log_record.h"
#include "ordo/assert.h"
#include "ordo/btree/node.h"
#include "ordo/btree/overflow_ref.h"
#include "ordo/btree/tree.h"
#include "ordo/btree/walk.h"
#include "txn_impl.h"
#include "txn_internals.h"
#include "txn_log.h"

namespace ordo {
namespace {

using btree::NodeView;
using btree::PageNo;

enum class Owner : uint8_t { kNone, kMeta, kTree, kOverflow, kFree, kLog };

const char* owner_name(Owner o) {
  switch (o) {
    case Owner::kMeta:
      return "a meta page";
    case Owner::kLog:
      return "a page of the log area";
    case Owner::kTree:
      return "a tree page";
    case Owner::kOverflow:
      return "an overflow page";
    case Owner::kFree:
      return "a free page";
    case Owner::kNone:
      break;
  }
  return "unused";
}

class Checker {
 public:
  using LeafVisitor = std::function<void(const NodeView& leaf, uint32_t i, PageNo pg)>;

  Checker(btree::PageReader& pages, const engine::Meta& meta, CheckReport& report,
          const std::function<void(uint64_t, uint64_t)>& progress)
      : Checker(pages, meta.page_high_water, report, progress) {
    for (PageNo pg = meta.log_first_page;
         pg < meta.log_first_page + meta.log_pages && pg < high_water_; ++pg) {
      owner_[pg] = Owner::kLog;
      report_.log_pages++;
    }
  }

  Checker(btree::PageReader& pages, uint64_t high_water, CheckReport& report,
          const std::function<void(uint64_t, uint64_t)>& progress)
      : pages_(pages),
        ps_(pages.page_size()),
        high_water_(high_water),
        owner_(high_water, Owner::kNone),
        report_(report),
        progress_(progress) {
    ORDO_ASSERT(btree::valid_page_size(ps_));
    report_.high_water_pages = high_water;
    for (PageNo pg = 0; pg < 2 && pg < high_water; ++pg) owner_[pg] = Owner::kMeta;
  }

  void problem(PageNo pg, std::string what) {
    ORDO_ASSERT(report_.problems.size() <= CheckReport::kMaxProblems);
    if (report_.problems.size() >= CheckReport::kMaxProblems) {
      report_.truncated = true;
      return;
    }
    report_.problems.push_back({pg, std::move(what)});
  }

  // Claims a page for `kind`; false (with a problem) if outside the file or
  // taken. `referrer`: the page naming it, which a problem names in place of
  // a meta page number (0 would read as "no page").
  bool claim(PageNo pg, Owner kind, const std::string& context, PageNo referrer) {
    ORDO_ASSERT(kind != Owner::kNone && owner_.size() == high_water_);
    if (pg < engine::kFirstDataPage) {
      problem(referrer, context + ": names page " + std::to_string(pg) +
                            ", a meta page, as one of its pages");
      return false;
    }
    if (pg >= high_water_) {
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
    // Each data page is claimed once at most.
    ORDO_ASSERT(claimed_ + engine::kFirstDataPage <= high_water_);
    return true;
  }

  // Walks one tree whose root record lies in page `holder` (a meta page or
  // a catalog leaf); `visit` sees every leaf entry. Returns the entries found.
  uint64_t tree(const std::string& name, const btree::TreeRoot& root, PageNo holder,
                const LeafVisitor& visit) {
    if (root.root == btree::kNullPage) {
      if (root.entries != 0 || root.depth != 0) problem(holder, name + ": empty root with entries");
      return 0;
    }
    if (root.depth == 0 || root.depth > btree::kMaxDepth) {
      problem(root.root, name + ": depth " + std::to_string(root.depth) + " out of range");
      return 0;
    }
    TreeChecker checker(*this, name, holder, visit);
    // The checker reports every problem and goes on, so the walk ends ok.
    const Status walked = btree::walk_tree(pages_, root, checker);
    ORDO_ASSERT(walked.is_ok());
    const Status count = btree::check_entry_count(root, checker.entries());
    if (!count.is_ok()) problem(root.root, name + ": " + count.message());
    return checker.entries();
  }

  // A user tree: the default tree or a named tree.
  void user_tree(const std::string& name, const btree::TreeRoot& root, PageNo holder) {
    report_.trees++;
    report_.entries += tree(name, root, holder, {});
  }

  void leaks() {
    ORDO_ASSERT(owner_.size() == high_water_);
    PageNo start = 0;
    for (PageNo pg = 2; pg <= high_water_; ++pg) {
      bool leaked = pg < high_water_ && owner_[pg] == Owner::kNone;
      if (leaked && start == 0) start = pg;
      if (!leaked && start != 0) {
        problem(start, pg - start == 1
                           ? "page is neither reachable nor free (leaked)"
                           : "pages " + std::to_string(start) + " to " + std::to_string(pg - 1) +
                                 " are neither reachable nor free (leaked)");
        start = 0;
      }
    }
  }

 private:
  // The walk of one tree: claims each page before it is read, reports each
  // problem and goes on past it.
  class TreeChecker : public btree::PageVisitor {
   public:
    TreeChecker(Checker& c, const std::string& name, PageNo holder, const LeafVisitor& visit)
        : c_(c), name_(name), holder_(holder), visit_(visit) {}
    uint64_t entries() const { return entries_; }

    bool enter(const btree::PageRef& ref) override {
      const PageNo referrer = ref.parent != btree::kNullPage ? ref.parent : holder_;
      if (!c_.claim(ref.page, Owner::kTree, name_, referrer)) return false;
      c_.report_.tree_pages++;
      return true;
    }
    Status damaged(const btree::PageRef& ref, Status problem) override {
      ORDO_ASSERT(!problem.is_ok());
      const PageNo pg = problem.page_number() != Status::kNoPage ? problem.page_number() : ref.page;
      c_.problem(pg, name_ + ": " + problem.message());
      return Status::ok();
    }
    Result<btree::WalkStep> page(const btree::PageRef& ref, const NodeView& v) override {
      ORDO_ASSERT(v.is_leaf() == ref.leaf());  // The walk checked the type.
      const uint32_t n = v.count();
      const uint32_t first_key = ref.leaf() ? 0 : 1;
      if (n > first_key) {
        if (ref.lower && v.key(first_key).compare(*ref.lower) < 0) {
          c_.problem(ref.page, name_ + ": key below the lower bound set by the parent");
        }
        if (ref.upper && v.key(n - 1).compare(*ref.upper) >= 0) {
          c_.problem(ref.page, name_ + ": key at or above the upper bound set by the parent");
        }
      }
      if (ref.leaf()) {
        entries_ += n;
        if (visit_) {
          for (uint32_t i = 0; i < n; ++i) visit_(v, i, ref.page);
        }
      }
      return btree::WalkStep::kDescend;
    }
    Status overflow(const btree::PageRef& leaf, const NodeView&, uint32_t,
                    const btree::OverflowRun& run) override {
      c_.overflow(name_, run, leaf.page);
      return Status::ok();
    }

   private:
    Checker& c_;
    const std::string& name_;
    const PageNo holder_;  // the page holding the root record
    const LeafVisitor& visit_;
    uint64_t entries_ = 0;
  };

  void overflow(const std::string& name, const btree::OverflowRun& run, PageNo leaf_pg) {
    const PageNo first = run.ref.first;
    const uint64_t n = run.pages;
    if (first >= high_water_ || n > high_water_ - first) {
      problem(first, name + ": overflow run of " + std::to_string(n) +
                         " pages runs past the end of the database (referenced by page " +
                         std::to_string(leaf_pg) + ")");
      return;
    }
    ORDO_ASSERT(n >= 1);  // leaf_overflow_run() counts the header's page
    for (uint64_t k = 0; k < n; ++k) {
      if (!claim(first + k, Owner::kOverflow, name + " overflow run", leaf_pg)) return;
    }
    report_.overflow_pages += n;
    auto bytes = pages_.read_run(first, n);
    if (!bytes.is_ok()) {
      problem(first, name + ": " + bytes.status().message());
      return;
    }
    if (!btree::starts_overflow_run(*bytes)) {
      problem(first, name + ": overflow run does not start with an overflow page");
    }
    if (btree::overflow_run_checksum(*bytes, n, ps_) != run.ref.checksum) {
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
      if (claim(entry->page(k), Owner::kFree, "free tree entry", pg)) report_.free_pages++;
    }
  }
};

// The log records from the checkpoint of `meta`'s epoch up to `meta`: each
// present, whole, with operations that decode, and the last one carrying
// `meta` itself. Says nothing when a later checkpoint took that slot since,
// nor for a kept snapshot: its state lies in the kept snapshots tree of the
// commit that keeps it (checked with that tree), not in the log.
void check_log(const io::PageFile& file, const engine::Meta& meta, CheckReport& report,
               const std::function<void(PageNo, std::string)>& problem) {
  if (meta.from_kept_record) return;
  const int slot = engine::slot_of_epoch(meta.log_epoch);
  const std::byte* p = file.data(static_cast<uint64_t>(slot) * meta.page_size, meta.page_size);
  engine::Meta c;
  std::string text;
  if (p == nullptr || engine::decode_meta(p, &c, &text) != engine::MetaProblem::kNone ||
      c.log_epoch != meta.log_epoch) {
    return;
  }
  if (c.txn_id > meta.txn_id) {
    problem(slot, "checkpoint txn " + std::to_string(c.txn_id) + " is past the snapshot's txn " +
                      std::to_string(meta.txn_id) + " in the same log epoch");
    return;
  }
  engine::Meta last = c;
  const engine::LogScan scan =
      engine::scan_log(file, c, engine::LogPosition::after(c), [&](const engine::LogRecord& r) {
        if (r.meta.txn_id > meta.txn_id) return false;
        last = r.meta;
        report.log_records++;
        report.log_bytes += r.bytes;
        if (!engine::log_ops_decode(r.ops)) {
          problem(
              meta.log_first_page + r.offset_bytes / meta.page_size,
              "log record of txn " + std::to_string(r.meta.txn_id) + ": operations do not decode");
        }
        return r.meta.txn_id < meta.txn_id;
      });
  (void)scan;
  // The scan stopped before any record past the snapshot.
  ORDO_ASSERT(last.txn_id >= c.txn_id && last.txn_id <= meta.txn_id);
  if (last.txn_id != meta.txn_id) {
    problem(meta.log_first_page, "the log holds txns " + std::to_string(c.txn_id + 1) + ".." +
                                     std::to_string(last.txn_id) + " after checkpoint txn " +
                                     std::to_string(c.txn_id) + ", not the snapshot's txn " +
                                     std::to_string(meta.txn_id));
    return;
  }
  if (last.txn_id != c.txn_id &&
      (last.default_tree.root != meta.default_tree.root || last.catalog.root != meta.catalog.root ||
       last.free_tree.root != meta.free_tree.root ||
       last.page_high_water != meta.page_high_water)) {
    problem(meta.log_first_page, "log record of txn " + std::to_string(meta.txn_id) +
                                     " names other roots than the snapshot");
  }
}

}  // namespace

Result<CheckReport> Txn::check(const std::function<void(uint64_t, uint64_t)>& progress) {
  if (!impl_ || !impl_->live()) return TxnInternals::ended();
  const engine::Meta& meta = impl_->snapshot();
  // The meta page of this snapshot's checkpoint: it (or a log record after
  // it) holds the three roots.
  const PageNo meta_page = static_cast<PageNo>(engine::slot_of_epoch(meta.log_epoch));
  CheckReport report;
  Checker c(impl_->pages(), meta, report, progress);
  check_log(impl_->db().file(), meta, report,
            [&](PageNo pg, std::string what) { c.problem(pg, std::move(what)); });
  c.user_tree("default tree", meta.default_tree, meta_page);
  report.free_tree_entries =
      c.tree("free tree", meta.free_tree, meta_page,
             [&](const NodeView& leaf, uint32_t i, PageNo pg) { c.free_entry(leaf, i, pg); });
  struct Named {
    std::string name;
    btree::TreeRoot root;
    PageNo leaf;  // the catalog leaf holding its root record
  };
  std::vector<Named> named;
  report.catalog_entries =
      c.tree("catalog", meta.catalog, meta_page, [&](const NodeView& leaf, uint32_t i, PageNo pg) {
        ByteView value = leaf.value(i);
        if (leaf.is_overflow(i) || value.size() != engine::kTreeRootBytes || leaf.key(i).empty()) {
          c.problem(pg, "catalog: malformed entry " + std::to_string(i));
          return;
        }
        named.push_back({leaf.key(i).str(), engine::decode_tree_root(value.data()), pg});
      });
  if (named.size() != meta.tree_count) {
    c.problem(meta_page, "catalog holds " + std::to_string(named.size()) +
                             " trees, the meta says " + std::to_string(meta.tree_count));
  }
  for (const Named& t : named) c.user_tree("tree '" + t.name + "'", t.root, t.leaf);
  // The kept snapshots' own records (the pages they reach are free-tree pages).
  c.tree("kept snapshots", meta.kept, meta_page, [&](const NodeView& leaf, uint32_t i, PageNo pg) {
    if (leaf.is_overflow(i) || leaf.key(i).size() != engine::kKeptKeyBytes ||
        leaf.value(i).size() != engine::kKeptRecordBytes) {
      c.problem(pg, "kept snapshots: malformed entry " + std::to_string(i));
      return;
    }
    // Its fields, as a read at the snapshot takes them.
    auto record = engine::decode_kept(leaf.key(i), leaf.value(i), meta, pg);
    if (!record.is_ok()) c.problem(pg, "kept snapshots: " + record.status().message());
  });
  if (report.free_pages != meta.free_pages) {
    c.problem(meta_page, "free tree lists " + std::to_string(report.free_pages) +
                             " pages, the meta says " + std::to_string(meta.free_pages));
  }
  c.leaks();
  // Every page is counted once at most (claim()), the meta pages never.
  ORDO_ASSERT(report.tree_pages + report.overflow_pages + report.free_pages + report.log_pages +
                  engine::kFirstDataPage <=
              meta.page_high_water);
  if (progress) progress(meta.page_high_water, meta.page_high_water);
  return report;
}

}  // namespace ordo
