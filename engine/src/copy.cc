// ReadTxn::copy_to, copy_to_fd and Database::copy_to: a consistent copy of
// one snapshot, page for page or compacted (dense_builder.h).

#include <string>
#include <vector>

#include "copy_internal.h"
#include "dense_builder.h"
#include "free_entry.h"
#include "meta.h"
#include "ordo/assert.h"
#include "ordo/base/replacement_file.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/page_format.h"
#include "ordo/btree/walk.h"
#include "ordo/io/backend.h"
#include "snapshot_pages.h"
#include "txn_internals.h"

namespace ordo {
namespace engine {
namespace {

using btree::NodeView;
using btree::PageNo;

// Adds every leaf entry of a tree, in key order, to a DenseBuilder; overflow
// runs are read and checked against their reference on the way.
class EntryCopier : public btree::PageVisitor {
 public:
  EntryCopier(btree::PageReader& pages, DenseBuilder& builder, std::function<void()> added)
      : pages_(pages), builder_(builder), added_(std::move(added)) {}

  Result<btree::WalkStep> page(const btree::PageRef& ref, const NodeView& node) override {
    if (!ref.leaf()) return btree::WalkStep::kDescend;
    ORDO_ASSERT(node.is_leaf());  // The walk checked the type against the depth.
    for (uint32_t i = 0; i < node.count(); ++i) {
      const ByteView key = node.key(i);
      if (!node.is_overflow(i)) {
        const ByteView value = node.value(i);
        if (node.damaged()) return Status::corruption("cell out of bounds", ref.page);
        ORDO_RETURN_IF_ERROR(builder_.add(key, value));
      } else {
        ORDO_ASSIGN_OR_RETURN(const btree::OverflowRun run,
                              btree::leaf_overflow_run(node, i, ref.page));
        ORDO_ASSIGN_OR_RETURN(const std::byte* bytes,
                              btree::read_overflow_run(pages_, run, ref.page, true));
        ORDO_RETURN_IF_ERROR(
            builder_.add_overflow(key, run.value_len, bytes, run.pages, run.ref.checksum));
      }
      added_();
    }
    return btree::WalkStep::kSkip;
  }

 private:
  btree::PageReader& pages_;
  DenseBuilder& builder_;
  std::function<void()> added_;
};

// Pages between progress reports.
constexpr uint64_t kProgressPages = 512;

class Copier {
 public:
  Copier(TxnImpl& txn, const CopyOptions& options)
      : txn_(txn),
        file_(txn.db().file()),
        snap_(txn.snapshot()),
        ps_(snap_.page_size),
        options_(options) {
    ORDO_ASSERT(btree::valid_page_size(ps_));
    ORDO_ASSERT(txn_.live());  // TxnInternals::impl() answered an ended txn
  }

  // Writes the whole copy into `sink` (which must be seekable for a
  // one-pass compact copy; a stream gets two passes).
  Result<CopyResult> run(CopySink& sink) {
    ORDO_RETURN_IF_ERROR(count_trees());
    // Kept snapshots are not copied; their pages are free-tree pages that a
    // plain copy writes as zeros, so a snapshot that keeps some is copied
    // compact (the copy keeps none and leaks no page).
    if (!options_.compact && snap_.kept.root == btree::kNullPage) return plain(sink);
    if (sink.seekable()) return compact(sink, /*write_meta_first=*/false, nullptr);
    // A stream: the meta pages come first and name the roots, so a first
    // pass computes them without writing.
    std::unique_ptr<CopySink> counter = null_sink();
    Meta planned;
    ORDO_ASSIGN_OR_RETURN(CopyResult first, compact(*counter, false, &planned, /*report=*/false));
    (void)first;
    return compact(sink, /*write_meta_first=*/true, &planned);
  }

 private:
  // The copy's meta: the snapshot's, made for a file of `high_water` pages
  // whose pages are all durable before the meta is seen (no one-sync check).
  // A checkpoint of a new log epoch, whose log area the copy holds as zeros:
  // no record of the source's log is taken for one of the copy's.
  Meta copy_meta(uint64_t high_water) const {
    Meta m = snap_;
    m.page_high_water = high_water;
    m.file_bytes = high_water * ps_;
    m.flags = 0;
    m.log_epoch++;
    ORDO_ASSERT(high_water >= kFirstDataPage + m.log_pages);  // metas and log area at least
    return m;
  }

  // Pages 0 and 1: the meta in slot txn_id mod 2, the other slot zeros (no
  // older commit exists in the copy).
  Status write_metas(CopySink& sink, const Meta& meta) {
    // A checkpoint meta (copy_meta()) of this page size.
    ORDO_ASSERT(meta.page_size == ps_ && (meta.flags & kMetaFlagLogged) == 0);
    std::vector<std::byte> pages(2 * ps_);
    encode_meta(meta, pages.data() + slot_of_epoch(meta.log_epoch) * ps_);
    return sink.write(0, pages.data(), pages.size());
  }

  Status count_trees() {
    ORDO_ASSERT(named_.empty());  // once per copy, by run()
    result_.txn_id = snap_.txn_id;
    result_.entries = snap_.default_tree.entries;
    btree::Cursor c(txn_.pages(), snap_.catalog);
    Status s = c.first();
    while (s.is_ok() && c.valid()) {
      const ByteView v = c.value();
      if (v.size() != kTreeRootBytes) {
        return Status::corruption("catalog entry has a bad size", snap_.catalog.root);
      }
      named_.emplace_back(c.key().str(), decode_tree_root(v.data()));
      result_.entries += named_.back().second.entries;
      s = c.next();
    }
    ORDO_RETURN_IF_ERROR(s);
    ORDO_RETURN_IF_ERROR(c.status());
    result_.trees = named_.size();
    return Status::ok();
  }

  void report(uint64_t done, uint64_t total, bool force = false) {
    if (!options_.progress) return;
    ORDO_ASSERT(done >= reported_);  // pages are written in ascending order
    if (force || done - reported_ >= kProgressPages) {
      reported_ = done;
      options_.progress(done, total);
    }
  }

  Result<CopyResult> plain(CopySink& sink) {
    const uint64_t hw = snap_.page_high_water;
    // Free pages are written as zeros: a writer may be reusing them.
    std::vector<bool> free(hw, false);
    btree::Cursor c(txn_.pages(), snap_.free_tree);
    Status s = c.first();
    while (s.is_ok() && c.valid()) {
      ORDO_ASSIGN_OR_RETURN(const FreeEntry e,
                            decode_free_entry(c.key(), c.value(), snap_.free_tree.root));
      for (uint64_t i = 0; i < e.page_count(); ++i) {
        const PageNo pg = e.page(i);
        if (pg < kFirstDataPage || pg >= hw) {
          return Status::corruption("free tree lists a page outside the database",
                                    snap_.free_tree.root);
        }
        free[pg] = true;
      }
      s = c.next();
    }
    ORDO_RETURN_IF_ERROR(s);
    // decode_meta() checked that the log area lies below the high-water mark.
    ORDO_ASSERT(snap_.log_pages == 0 || snap_.log_first_page + snap_.log_pages <= hw);
    for (PageNo pg = snap_.log_first_page; pg < snap_.log_first_page + snap_.log_pages; ++pg) {
      free[pg] = true;  // the log area: zeros
    }
    ORDO_RETURN_IF_ERROR(write_metas(sink, copy_meta(hw)));
    constexpr uint64_t kRunPages = 256;
    PageNo pg = kFirstDataPage;
    while (pg < hw) {
      const bool is_free = free[pg];
      PageNo end = pg + 1;
      while (end < hw && end - pg < kRunPages && free[end] == is_free) ++end;
      if (is_free) {
        ORDO_RETURN_IF_ERROR(sink.write(pg * ps_, nullptr, (end - pg) * ps_));
      } else {
        ORDO_ASSIGN_OR_RETURN(const std::byte* p, read_committed_run(file_, ps_, hw, pg, end - pg));
        ORDO_RETURN_IF_ERROR(sink.write(pg * ps_, p, (end - pg) * ps_));
      }
      pg = end;
      report(pg, hw);
    }
    report(hw, hw, true);
    ORDO_RETURN_IF_ERROR(sink.finish());
    result_.pages = hw;
    result_.bytes = hw * ps_;
    result_.free_pages = snap_.free_pages;
    return result_;
  }

  // One tree of the snapshot, rewritten densely.
  Result<btree::TreeRoot> compact_tree(const btree::TreeRoot& root, PageEmitter& out,
                                       uint64_t total) {
    DenseBuilder builder(out, snap_.txn_id);
    btree::PageReader& pages = txn_.pages();
    EntryCopier copier(pages, builder, [&] { report(out.next_page(), total); });
    ORDO_RETURN_IF_ERROR(btree::walk_tree(pages, root, copier));
    ORDO_ASSIGN_OR_RETURN(btree::TreeRoot built, builder.finish());
    ORDO_RETURN_IF_ERROR(btree::check_entry_count(root, built.entries));
    return built;
  }

  // `planned`: out (first pass) or in (second pass: the meta to write first
  // and to match). `report_progress`: false for a first pass.
  Result<CopyResult> compact(CopySink& sink, bool write_meta_first, Meta* planned,
                             bool report_progress = true) {
    ORDO_ASSERT(snap_.free_pages <= snap_.page_high_water);  // decode_meta() checked it
    const uint64_t total = snap_.page_high_water - snap_.free_pages;
    std::function<void(uint64_t, uint64_t)> progress;
    if (!report_progress) std::swap(progress, options_.progress);
    if (write_meta_first) ORDO_RETURN_IF_ERROR(write_metas(sink, *planned));
    // The log area first, as a new file has it (zeros), then the trees.
    if (snap_.log_pages > 0) {
      ORDO_RETURN_IF_ERROR(sink.write(kFirstDataPage * ps_, nullptr, snap_.log_pages * ps_));
    }
    PageEmitter out(sink, ps_, kFirstDataPage + snap_.log_pages);
    Meta meta = snap_;
    meta.log_first_page = kFirstDataPage;
    meta.log_epoch++;
    ORDO_ASSIGN_OR_RETURN(meta.default_tree, compact_tree(snap_.default_tree, out, total));
    DenseBuilder catalog(out, snap_.txn_id);
    std::vector<std::pair<std::string, btree::TreeRoot>> roots;
    for (const auto& [name, root] : named_) {
      ORDO_ASSIGN_OR_RETURN(btree::TreeRoot built, compact_tree(root, out, total));
      roots.emplace_back(name, built);
    }
    for (const auto& [name, root] : roots) {
      std::byte bytes[kTreeRootBytes];
      encode_tree_root(root, bytes);
      ORDO_RETURN_IF_ERROR(catalog.add(name, ByteView(bytes, sizeof bytes)));
    }
    ORDO_ASSIGN_OR_RETURN(meta.catalog, catalog.finish());
    meta.free_tree = btree::TreeRoot{};
    meta.free_pages = 0;
    meta.kept = btree::TreeRoot{};
    meta.tree_count = roots.size();
    const uint64_t hw = out.next_page();
    meta = [&] {
      Meta m = meta;
      m.page_high_water = hw;
      m.file_bytes = hw * ps_;
      m.flags = 0;
      return m;
    }();
    if (!report_progress) {
      std::swap(progress, options_.progress);
      *planned = meta;
    } else if (write_meta_first) {
      std::vector<std::byte> a(ps_), b(ps_);  // encode_meta writes a whole page
      encode_meta(*planned, a.data());
      encode_meta(meta, b.data());
      if (a != b)
        return Status::corruption("the snapshot changed between the two passes of a copy");
    } else {
      ORDO_RETURN_IF_ERROR(write_metas(sink, meta));
    }
    if (report_progress) report(hw, hw, true);  // a first pass reports nothing
    ORDO_RETURN_IF_ERROR(sink.finish());
    result_.pages = hw;
    result_.bytes = hw * ps_;
    result_.free_pages = 0;
    return result_;
  }

  TxnImpl& txn_;
  const io::PageFile& file_;
  const Meta snap_;
  const uint32_t ps_;
  CopyOptions options_;
  std::vector<std::pair<std::string, btree::TreeRoot>> named_;
  CopyResult result_;
  uint64_t reported_ = 0;
};

}  // namespace

Result<CopyResult> copy_to_path(Txn& txn, const std::string& path, const CopyOptions& options,
                                const CopyHooks& hooks) {
  ORDO_ASSIGN_OR_RETURN(TxnImpl * impl, TxnInternals::impl(txn));
  ORDO_RETURN_IF_ERROR(impl->db().check_process());
  base::ReplacementFile target;
  ORDO_RETURN_IF_ERROR(
      target.create(path, options.overwrite, impl->db().file().path(), base::kCopyOutput));
  Result<std::unique_ptr<io::WriteBackend>> backend =
      hooks.backend_factory ? hooks.backend_factory(target.fd())
                            : io::make_backend(target.fd(), io::BackendKind::kPosix);
  ORDO_RETURN_IF_ERROR(backend.status());
  std::unique_ptr<CopySink> sink = file_sink(std::move(backend).value());
  Copier copier(*impl, options);
  ORDO_ASSIGN_OR_RETURN(CopyResult result, copier.run(*sink));
  sink.reset();
  ORDO_RETURN_IF_ERROR(target.publish(options.overwrite, hooks.on_event));
  return result;
}

}  // namespace engine

Result<CopyResult> ReadTxn::copy_to(const std::string& path, const CopyOptions& options) {
  return engine::copy_to_path(*this, path, options, {});
}

Result<CopyResult> ReadTxn::copy_to_fd(int fd, const CopyOptions& options) {
  ORDO_ASSIGN_OR_RETURN(TxnImpl * impl, TxnInternals::impl(*this));
  ORDO_RETURN_IF_ERROR(impl->db().check_process());
  if (fd < 0) return Status::invalid_argument("copy_to_fd: bad file descriptor");
  std::unique_ptr<engine::CopySink> sink = engine::stream_sink(fd);
  engine::Copier copier(*impl, options);
  return copier.run(*sink);
}

Result<CopyResult> Database::copy_to(const std::string& path, const CopyOptions& options) {
  ORDO_ASSIGN_OR_RETURN(ReadTxn txn, begin_read());
  return txn.copy_to(path, options);
}

}  // namespace ordo
