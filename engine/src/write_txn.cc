// WriteTxn: tree changes, ID issue, and the commit protocol.
#include <cstring>
#include <string>

#include "ordo/btree/page_format.h"
#include "page_memory.h"
#include "txn_impl.h"

namespace ordo {

WriteTxnImpl::WriteTxnImpl(DatabaseImpl& db, std::unique_lock<std::mutex> lock,
                           const engine::Meta& snapshot, engine::ReuseRule rule)
    : TxnImpl(db, snapshot),
      lock_(std::move(lock)),
      pages_(db.file(), db.page_buffers(), snapshot, snapshot.txn_id + 1, std::move(rule),
             db.options().txn_memory_budget_bytes, db.options().verify_checksums),
      catalog_(snapshot.catalog),
      tree_count_(snapshot.tree_count) {
  TreeState& default_tree = trees_[0];
  default_tree.loaded = true;
  default_tree.root = snapshot.default_tree;
}

Status WriteTxnImpl::note(Status s) {
  if (!s.is_ok() && !s.is_invalid_argument() && !s.is_not_found() && failed_.is_ok()) {
    failed_ = s;
  }
  return s;
}

Result<WriteTxnImpl::TreeState*> WriteTxnImpl::state_of(const Tree& tree) {
  if (!failed_.is_ok()) {
    return Status::invalid_argument("write txn failed earlier and can only be aborted: " +
                                    failed_.to_string());
  }
  if (finished_) return Status::invalid_argument("write txn already committed or aborted");
  TreeState& st = trees_[tree.id];
  if (st.loaded && st.dropped) {
    return Status::not_found("no tree named '" + tree.name + "' (dropped or renamed)");
  }
  if (!st.loaded) {
    auto root = lookup_catalog(tree.name);
    if (!root.is_ok()) return note(root.status());
    st.loaded = true;
    st.name = tree.name;
    st.root = *root;
  } else if (st.name != tree.name) {
    return Status::invalid_argument("tree handle does not belong to this database");
  }
  return &st;
}

Result<btree::TreeRoot> WriteTxnImpl::root_of(const Tree& tree) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, state_of(tree));
  return st->root;
}

Result<Tree> WriteTxnImpl::create_tree(std::string_view name) {
  ORDO_RETURN_IF_ERROR(check_tree_name(name));
  Tree tree{db_.tree_id(name), std::string(name)};
  auto existing = state_of(tree);
  if (existing.is_ok()) return tree;
  if (!existing.status().is_not_found()) return existing.status();
  // The catalog entry is written now so list_trees/open_tree in this txn see it.
  std::byte empty[engine::kTreeRootBytes];
  engine::encode_tree_root(btree::TreeRoot{}, empty);
  ORDO_RETURN_IF_ERROR(note(btree::put(pages_, catalog_, name, ByteView(empty, sizeof empty))));
  TreeState& st = trees_[tree.id];
  st = TreeState{true, true, false, std::string(name), btree::TreeRoot{}, {}};
  tree_count_++;
  return tree;
}

Status WriteTxnImpl::drop_tree(std::string_view name) {
  ORDO_RETURN_IF_ERROR(check_tree_name(name));
  Tree tree{db_.tree_id(name), std::string(name)};
  ORDO_ASSIGN_OR_RETURN(TreeState * st, state_of(tree));
  ORDO_RETURN_IF_ERROR(note(pages_.maybe_spill()));
  st->rightmost.invalidate();
  ORDO_RETURN_IF_ERROR(note(btree::drop(pages_, st->root)));
  bool found = false;
  ORDO_RETURN_IF_ERROR(note(btree::remove(pages_, catalog_, name, &found)));
  st->dropped = true;
  st->dirty = false;
  tree_count_--;
  return Status::ok();
}

Status WriteTxnImpl::rename_tree(std::string_view from, std::string_view to) {
  ORDO_RETURN_IF_ERROR(check_tree_name(to));
  Tree old_tree{db_.tree_id(from), std::string(from)};
  ORDO_ASSIGN_OR_RETURN(TreeState * old_state, state_of(old_tree));
  Tree new_tree{db_.tree_id(to), std::string(to)};
  auto existing = state_of(new_tree);
  if (existing.is_ok()) {
    return Status::invalid_argument("cannot rename to '" + std::string(to) + "': it exists");
  }
  if (!existing.status().is_not_found()) return existing.status();
  btree::TreeRoot root = old_state->root;
  bool found = false;
  ORDO_RETURN_IF_ERROR(note(btree::remove(pages_, catalog_, from, &found)));
  std::byte bytes[engine::kTreeRootBytes];
  engine::encode_tree_root(root, bytes);
  ORDO_RETURN_IF_ERROR(note(btree::put(pages_, catalog_, to, ByteView(bytes, sizeof bytes))));
  old_state->dropped = true;
  old_state->rightmost.invalidate();
  old_state->dirty = false;
  trees_[new_tree.id] = TreeState{true, true, false, std::string(to), root, {}};
  return Status::ok();
}

Status WriteTxnImpl::put(const Tree& tree, ByteView key, ByteView value) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, state_of(tree));
  ORDO_RETURN_IF_ERROR(note(pages_.maybe_spill()));
  st->dirty = true;
  return note(btree::put(pages_, st->root, key, value, &st->rightmost));
}

Status WriteTxnImpl::append(const Tree& tree, ByteView key, ByteView value) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, state_of(tree));
  ORDO_RETURN_IF_ERROR(note(pages_.maybe_spill()));
  st->dirty = true;
  st->rightmost.invalidate();
  return note(btree::append(pages_, st->root, key, value, db_.options().append_fill));
}

Status WriteTxnImpl::del(const Tree& tree, ByteView key) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, state_of(tree));
  ORDO_RETURN_IF_ERROR(note(pages_.maybe_spill()));
  bool found = false;
  st->rightmost.invalidate();
  ORDO_RETURN_IF_ERROR(note(btree::remove(pages_, st->root, key, &found)));
  if (!found) return Status::not_found("key not found");
  st->dirty = true;
  return Status::ok();
}

Status WriteTxnImpl::commit() {
  if (finished_) return Status::invalid_argument("write txn already committed or aborted");
  if (!failed_.is_ok()) {
    finished_ = true;
    return Status::invalid_argument("write txn failed earlier and was aborted: " +
                                    failed_.to_string());
  }
  finished_ = true;
  engine::Meta meta = snapshot_;
  meta.txn_id = txn_id();
  std::byte root_bytes[engine::kTreeRootBytes];
  for (auto& [id, st] : trees_) {
    if (!st.loaded || !st.dirty) continue;
    ORDO_RETURN_IF_ERROR(btree::finalize(pages_, st.root));
    if (id == 0) {
      meta.default_tree = st.root;
    } else {
      engine::encode_tree_root(st.root, root_bytes);
      ORDO_RETURN_IF_ERROR(
          btree::put(pages_, catalog_, st.name, ByteView(root_bytes, sizeof root_bytes)));
    }
  }
  ORDO_RETURN_IF_ERROR(btree::finalize(pages_, catalog_));
  ORDO_RETURN_IF_ERROR(pages_.record_free_pages());
  ORDO_RETURN_IF_ERROR(btree::finalize(pages_, pages_.free_tree()));
  meta.catalog = catalog_;
  meta.free_tree = pages_.free_tree();
  meta.free_pages = pages_.free_page_count();
  meta.page_high_water = pages_.next_page();
  meta.tree_count = tree_count_;
  meta.last_uuid = db_.uuid_generator().last();
  meta.last_id64 = db_.id64_generator().last().value;
  meta.flags = db_.options().commit_protocol == CommitProtocol::kOneSync ? engine::kMetaFlagOneSync
                                                                         : 0;
  return write_and_publish(meta);
}

Status WriteTxnImpl::write_and_publish(engine::Meta& meta) {
  io::PageFile& file = db_.file();
  const uint32_t ps = meta.page_size;
  Status grown = file.grow_to(meta.page_high_water * ps);
  if (!grown.is_ok()) return grown;
  meta.file_bytes = file.file_bytes();

  const bool sync = db_.options().sync_commits;
  const bool two_sync = db_.options().commit_protocol == CommitProtocol::kTwoSync;
  std::vector<io::WriteSpan> spans = pages_.write_spans();
  // The meta goes last: until it is durable the previous commit stays the one
  // a crash recovers to.
  std::byte* meta_page = static_cast<std::byte*>(engine::page_zalloc(ps));
  engine::encode_meta(meta, meta_page);
  const io::WriteSpan meta_span{(meta.txn_id % 2) * ps, meta_page, ps};
  const std::span<const io::WriteSpan> meta_spans(&meta_span, 1);
  Status s;
  if (two_sync) {
    // Pages durable first, then the meta and its own sync.
    s = spans.empty() ? Status::ok() : file.write(spans, sync);
    if (s.is_ok()) s = file.write(meta_spans, sync);
  } else {
    // One-sync: one batch. The meta starts only after every page write completed
    // (into the page cache, so readers in other processes never see the meta
    // first), and is skipped when one failed; one fdatasync behind both.
    s = file.write_ordered(spans, meta_spans, sync);
  }
  engine::page_free(meta_page);
  if (!s.is_ok()) {
    if (s.is_io_error()) db_.poison(s);
    return s;
  }
  db_.publish(meta);
  auto& c = db_.counters();
  c.commits++;
  c.pages_written += spans.size() + 1;
  c.pages_reused += pages_.pages_reused();
  c.pages_spilled += pages_.pages_spilled();
  c.overflow_pages_written += pages_.overflow_pages_written();
  return Status::ok();
}

// Public WriteTxn.

WriteTxnImpl& WriteTxn::writer() { return static_cast<WriteTxnImpl&>(*impl_); }

namespace {
Status ended() { return Status::invalid_argument("write txn already committed or aborted"); }
}  // namespace

Result<Tree> WriteTxn::create_tree(std::string_view name) {
  if (!impl_) return ended();
  return writer().create_tree(name);
}
Status WriteTxn::put(const Tree& tree, ByteView key, ByteView value) {
  if (!impl_) return ended();
  return writer().put(tree, key, value);
}
Status WriteTxn::del(const Tree& tree, ByteView key) {
  if (!impl_) return ended();
  return writer().del(tree, key);
}
Status WriteTxn::append(const Tree& tree, ByteView key, ByteView value) {
  if (!impl_) return ended();
  return writer().append(tree, key, value);
}
Status WriteTxn::drop_tree(std::string_view name) {
  if (!impl_) return ended();
  if (name.empty()) return Status::invalid_argument("the default tree cannot be dropped");
  return writer().drop_tree(name);
}
Status WriteTxn::rename_tree(std::string_view from, std::string_view to) {
  if (!impl_) return ended();
  if (from.empty()) return Status::invalid_argument("the default tree cannot be renamed");
  return writer().rename_tree(from, to);
}
Uuid WriteTxn::next_id() { return db_->uuid_generator().next(); }
Id64 WriteTxn::next_id64() { return db_->id64_generator().next(); }

Status WriteTxn::commit() {
  if (!impl_) return ended();
  Status s = writer().commit();
  impl_.reset();  // releases the writer lock and the dirty pages
  return s;
}

void WriteTxn::abort() { impl_.reset(); }

}  // namespace ordo
