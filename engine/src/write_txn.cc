// WriteTxn: tree changes, ID issue, and the commit protocol.
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "commit_checks.h"
#include "commit_write.h"
#include "log_record.h"
#include "ordo/assert.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/page_format.h"
#include "page_memory.h"
#include "tree_handles.h"
#include "txn_impl.h"

namespace ordo {

WriteTxnImpl::WriteTxnImpl(std::shared_ptr<DatabaseImpl> db, engine::WriterLock lock,
                           const engine::Meta& snapshot, engine::ReuseRule rule)
    : TxnImpl(std::move(db), snapshot),
      lock_(std::move(lock)),
      pages_(db_->file(), db_->page_buffers(), snapshot, snapshot.txn_id + 1, std::move(rule),
             db_->options().txn_memory_budget_bytes, db_->options().verify_checksums,
             db_->options().run_reclaim_limit_pages),
      // A txn whose operations outgrow a quarter of the log commits as a
      // checkpoint: its pages are then written once.
      log_(db_->options().commit_protocol == CommitProtocol::kLog && !db_->replaying()
               ? engine::log_area_bytes(snapshot) / 4
               : 0,
           db_->record_buffer()),
      catalog_(snapshot.catalog),
      tree_count_(snapshot.tree_count) {
  // Begun under the writer gate from the committed state, which only this
  // txn's commit changes now.
  ORDO_ASSERT(db_->writer_gate().held_by_this_thread());
  ORDO_ASSERT(snapshot.txn_id == db_->committed().txn_id && !db_->options().read_only);
  TreeState& default_tree = trees_[0];
  default_tree.loaded = true;
  default_tree.root = snapshot.default_tree;
}

Status WriteTxnImpl::note(Status s) {
  ORDO_ASSERT(!finished_);  // only operations note failures; commit() ends the txn
  if (!s.is_ok() && !s.is_invalid_argument() && !s.is_not_found() && failed_.is_ok()) {
    failed_ = s;
  }
  // An EIO from a spill or an overflow write: what the file holds is unknown
  // to this handle, as after a failed commit.
  if (s.is_io_error()) db_->poison(s);
  return s;
}

Status WriteTxnImpl::check_writable() const {
  // A forked child's copy of the txn shares the parent's file: a large value
  // or a spill would be written into it at once, onto pages the parent may
  // since have reused.
  ORDO_RETURN_IF_ERROR(db_->check_process());
  if (!failed_.is_ok()) {
    return Status::invalid_argument("write txn failed earlier and can only be aborted: " +
                                    failed_.to_string());
  }
  if (finished_) return Status::txn_ended("write txn already committed or aborted");
  return Status::ok();
}

WriteTxnImpl::TreeState& WriteTxnImpl::tree_state(uint32_t id) {
  if (recent_ids_[0] == id) return *recent_[0];
  if (recent_ids_[1] != id) {
    recent_ids_[1] = id;
    recent_[1] = &trees_[id];
  }
  std::swap(recent_ids_[0], recent_ids_[1]);
  std::swap(recent_[0], recent_[1]);
  ORDO_ASSERT(recent_ids_[0] == id);
  ORDO_DCHECK(recent_[0] == &trees_[id]);  // a second lookup: debug builds only
  return *recent_[0];
}

Result<WriteTxnImpl::TreeState*> WriteTxnImpl::state_of(const Tree& tree) {
  ORDO_RETURN_IF_ERROR(check_writable());
  ORDO_RETURN_IF_ERROR(db_->check_tree_handle(tree));
  const uint32_t id = TreeHandles::id(tree);
  TreeState& st = tree_state(id);
  if (st.loaded && st.dropped) {
    return Status::not_found("no tree named '" + tree.name() + "' (dropped or renamed)");
  }
  if (!st.loaded) {
    save_tree(id, st);
    auto root = lookup_catalog(tree.name());
    if (!root.is_ok()) return note(root.status());
    st.loaded = true;
    st.name = tree.name();
    st.root = *root;
    ORDO_ASSERT(!st.dropped && !st.dirty);  // First use of the tree in this txn.
  } else if (st.name != tree.name()) {
    return Status::invalid_argument("tree handle does not belong to this database");
  }
  return &st;
}

Result<WriteTxnImpl::TreeState*> WriteTxnImpl::writable_state(const Tree& tree) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, state_of(tree));
  ORDO_ASSERT(!finished_ && st->loaded && !st->dropped);  // state_of() checked them
  save_tree(TreeHandles::id(tree), *st);
  detach_cursors();
  return st;
}

Result<btree::TreeRoot> WriteTxnImpl::root_of(const Tree& tree) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, state_of(tree));
  ORDO_ASSERT(st->loaded && !st->dropped);  // state_of() answered the others
  // The reader may count: the branches get the counts puts deferred.
  st->rightmost.flush(pages_);
  return st->root;
}

uint32_t WriteTxnImpl::incarnation_of(const Tree& tree) const {
  auto it = trees_.find(TreeHandles::id(tree));
  return it == trees_.end() ? 0 : it->second.incarnation;
}

Result<Tree> WriteTxnImpl::create_tree(std::string_view name) {
  ORDO_RETURN_IF_ERROR(check_tree_name(name));
  Tree tree = db_->tree_handle(name);
  auto existing = state_of(tree);
  if (existing.is_ok()) return tree;
  if (!existing.status().is_not_found()) return existing.status();
  detach_cursors();
  // The catalog entry is written now so list_trees/open_tree in this txn see it.
  std::byte empty[engine::kTreeRootBytes];
  engine::encode_tree_root(btree::TreeRoot{}, empty);
  ORDO_RETURN_IF_ERROR(note(btree::put(pages_, catalog_, name, ByteView(empty, sizeof empty))));
  TreeState& st = tree_state(TreeHandles::id(tree));
  ORDO_ASSERT(!st.loaded || st.dropped);  // state_of() found no such tree
  save_tree(TreeHandles::id(tree), st);
  const uint32_t incarnation = st.incarnation + 1;  // another tree than a dropped one
  st = TreeState{};
  st.incarnation = incarnation;
  st.loaded = true;
  st.dirty = true;
  st.name = std::string(name);
  tree_count_++;
  ORDO_ASSERT(st.root.root == btree::kNullPage);  // A new tree starts empty.
  log_.create_tree(name);
  return tree;
}

Status WriteTxnImpl::drop_tree(std::string_view name) {
  ORDO_RETURN_IF_ERROR(check_tree_name(name));
  ORDO_ASSIGN_OR_RETURN(TreeState * st, writable_state(db_->tree_handle(name)));
  ORDO_RETURN_IF_ERROR(note(pages_.maybe_spill()));
  st->rightmost.invalidate(pages_);
  ORDO_RETURN_IF_ERROR(note(btree::drop(pages_, st->root)));
  bool found = false;
  ORDO_RETURN_IF_ERROR(note(btree::remove(pages_, catalog_, name, &found)));
  ORDO_ASSERT(found);  // state_of() found it in the catalog, or create_tree() put it there
  ORDO_ASSERT(st->root.root == btree::kNullPage);  // btree::drop freed every page
  st->dropped = true;
  st->dirty = false;
  tree_count_--;
  log_.drop_tree(name);
  return Status::ok();
}

Status WriteTxnImpl::rename_tree(std::string_view from, std::string_view to) {
  // As WriteTxn::rename_tree(), for the replay of a log record too.
  if (from.empty()) return Status::invalid_argument("the default tree cannot be renamed");
  ORDO_RETURN_IF_ERROR(check_tree_name(to));
  ORDO_ASSIGN_OR_RETURN(TreeState * old_state, writable_state(db_->tree_handle(from)));
  const Tree new_tree = db_->tree_handle(to);
  auto existing = state_of(new_tree);
  if (existing.is_ok()) {
    return Status::invalid_argument("cannot rename to '" + std::string(to) + "': it exists");
  }
  if (!existing.status().is_not_found()) return existing.status();
  btree::TreeRoot root = old_state->root;
  bool found = false;
  ORDO_RETURN_IF_ERROR(note(btree::remove(pages_, catalog_, from, &found)));
  ORDO_ASSERT(found);  // as in drop_tree()
  std::byte bytes[engine::kTreeRootBytes];
  engine::encode_tree_root(root, bytes);
  ORDO_RETURN_IF_ERROR(note(btree::put(pages_, catalog_, to, ByteView(bytes, sizeof bytes))));
  old_state->dropped = true;
  old_state->rightmost.invalidate(pages_);
  old_state->dirty = false;
  TreeState& renamed = tree_state(TreeHandles::id(new_tree));
  ORDO_ASSERT(&renamed != old_state);               // Two names, two ids (TreeRegistry).
  ORDO_ASSERT(!renamed.loaded || renamed.dropped);  // state_of() found no such tree
  save_tree(TreeHandles::id(new_tree), renamed);
  const uint32_t incarnation = renamed.incarnation + 1;
  renamed = TreeState{};
  renamed.incarnation = incarnation;
  renamed.loaded = true;
  renamed.dirty = true;
  renamed.name = std::string(to);
  renamed.root = root;
  log_.rename_tree(from, to);
  return Status::ok();
}

Status WriteTxnImpl::put(const Tree& tree, ByteView key, ByteView value) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, writable_state(tree));
  ORDO_RETURN_IF_ERROR(note(pages_.maybe_spill()));
  st->dirty = true;
  ORDO_RETURN_IF_ERROR(note(btree::put(pages_, st->root, key, value, &st->rightmost)));
  ORDO_ASSERT(st->root.root != btree::kNullPage);
  log_.put(st->name, key, value);
  return Status::ok();
}

Status WriteTxnImpl::append(const Tree& tree, ByteView key, ByteView value) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, writable_state(tree));
  ORDO_RETURN_IF_ERROR(note(pages_.maybe_spill()));
  st->dirty = true;
  st->rightmost.invalidate(pages_);
  ORDO_RETURN_IF_ERROR(
      note(btree::append(pages_, st->root, key, value, db_->options().append_fill)));
  ORDO_ASSERT(st->root.root != btree::kNullPage);
  log_.append(st->name, key, value);
  return Status::ok();
}

Status WriteTxnImpl::del(const Tree& tree, ByteView key) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, writable_state(tree));
  ORDO_RETURN_IF_ERROR(note(pages_.maybe_spill()));
  bool found = false;
  st->rightmost.invalidate(pages_);
  ORDO_RETURN_IF_ERROR(note(btree::remove(pages_, st->root, key, &found)));
  if (!found) return Status::not_found("key not found");
  ORDO_ASSERT(st->loaded && !st->dropped);
  st->dirty = true;
  log_.del(st->name, key);
  return Status::ok();
}

Result<btree::UpdateOutcome> WriteTxnImpl::update(const Tree& tree, ByteView key,
                                                  const btree::Update& update) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, writable_state(tree));
  ORDO_RETURN_IF_ERROR(note(pages_.maybe_spill()));
  Result<btree::UpdateOutcome> out = btree::update(pages_, st->root, key, update, &st->rightmost);
  if (!out.is_ok()) return note(out.status());
  if (!out->changed) return out;
  st->dirty = true;
  if (update.value.has_value()) {
    ORDO_ASSERT(st->root.root != btree::kNullPage);
    log_.put(st->name, key, *update.value);
  } else {
    ORDO_ASSERT(out->found);  // only a present key is removed
    log_.del(st->name, key);
  }
  return out;
}

Result<uint64_t> WriteTxnImpl::del_range(const Tree& tree, const KeyRange& range) {
  ORDO_ASSIGN_OR_RETURN(TreeState * st, writable_state(tree));
  st->rightmost.invalidate(pages_);
  uint64_t removed = 0;
  std::string key = range.from().str();
  for (;;) {
    // Each remove may move the pages under a cursor: seek afresh from the
    // last key removed, which lands on the one after it.
    btree::Cursor c(pages_, st->root);
    ORDO_RETURN_IF_ERROR(note(c.seek(key)));
    if (!c.valid() || range.past_end(c.key())) break;
    key.assign(c.key().view());
    ORDO_RETURN_IF_ERROR(note(pages_.maybe_spill()));
    bool found = false;
    ORDO_RETURN_IF_ERROR(note(btree::remove(pages_, st->root, key, &found)));
    ORDO_ASSERT(found);
    st->dirty = true;
    removed++;
  }
  if (removed > 0) log_.del_range(st->name, range);
  return removed;
}

Status WriteTxnImpl::commit() {
  if (finished_) return Status::txn_ended("write txn already committed or aborted");
  if (!failed_.is_ok()) {
    finished_ = true;
    return Status::invalid_argument("write txn failed earlier and was aborted: " +
                                    failed_.to_string());
  }
  ORDO_RETURN_IF_ERROR(db_->check_process());
  end_savepoints();  // everything not rolled back commits
  finished_ = true;
  engine::Meta meta = snapshot_;
  // A restored delta commits as the txn it was made from (commit_as()).
  meta.txn_id = commit_as_ != 0 ? commit_as_ : txn_id();
  std::byte root_bytes[engine::kTreeRootBytes];
  for (auto& [id, st] : trees_) {
    if (!st.loaded || !st.dirty) continue;
    st.rightmost.flush(pages_);
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
  if (kept_dirty_) {
    ORDO_RETURN_IF_ERROR(btree::finalize(pages_, kept_));
    meta.kept = kept_;
  }
  held_pages_ = pages_.freed_written_by_at_most(db_->log_state().checkpoint_txn);
  ORDO_RETURN_IF_ERROR(pages_.record_free_pages());
  ORDO_RETURN_IF_ERROR(btree::finalize(pages_, pages_.free_tree()));
  // The high-water mark only rises: pages are freed into the free tree, not cut off.
  ORDO_ASSERT((meta.txn_id == snapshot_.txn_id + 1 || meta.txn_id == commit_as_) &&
              pages_.next_page() >= snapshot_.page_high_water);
  meta.catalog = catalog_;
  meta.free_tree = pages_.free_tree();
  meta.free_pages = pages_.free_page_count();
  meta.page_high_water = pages_.next_page();
  meta.tree_count = tree_count_;
  meta.last_uuid = db_->uuid_generator().last();
  meta.last_id64 = db_->id64_generator().last().value;
  return write_and_publish(meta);
}

Status WriteTxnImpl::write_and_publish(engine::Meta& meta) {
  io::PageFile& file = db_->file();
  Status grown = file.grow_to(meta.page_high_water * meta.page_size);
  if (!grown.is_ok()) return grown;
  meta.file_bytes = file.file_bytes();
  ORDO_ASSERT(meta.file_bytes / meta.page_size >= meta.page_high_water);

  std::vector<io::WriteSpan> spans = pages_.write_spans();
  std::vector<btree::TreeRoot> roots = {meta.default_tree, meta.catalog, meta.free_tree};
  if (kept_dirty_) roots.push_back(meta.kept);
  for (const auto& [id, st] : trees_) {
    if (id != 0 && st.loaded && st.dirty && !st.dropped) roots.push_back(st.root);
  }
  engine::check_pages_before_write(meta, roots, spans, commit_as_ != 0 ? txn_id() : 0);
  // A change of the kept snapshots is no log operation: it commits as a
  // checkpoint, so a replay never has to redo it.
  const bool logged = db_->replaying() || (log_.limit_bytes() > 0 && !log_.overflowed() &&
                                           !kept_dirty_ && commit_as_ == 0);
  Status s = logged ? write_logged(meta, spans) : write_checkpoint(meta, spans);
  if (!s.is_ok()) return s;
  ORDO_ASSERT(db_->committed().txn_id == meta.txn_id);  // published under the writer gate
  db_->keep_free_entries_held_before(pages_.reuse_checkpoint_txn(), meta.txn_id,
                                     pages_.free_entries_held_before());
  auto& c = db_->counters();
  c.commits++;
  c.pages_written += spans.size() + (logged ? 0 : 1);
  c.pages_reused += pages_.pages_reused();
  c.pages_spilled += pages_.pages_spilled();
  c.overflow_pages_written += pages_.overflow_pages_written();
  return Status::ok();
}

Status WriteTxnImpl::write_logged(engine::Meta& meta, std::span<const io::WriteSpan> spans) {
  io::PageFile& file = db_->file();
  // The txn's operations fit the log's limit, or open is replaying them.
  ORDO_ASSERT(db_->replaying() || (log_.limit_bytes() > 0 && !log_.overflowed()));
  meta.flags = engine::kMetaFlagLogged;
  if (db_->replaying()) {
    // Open applies a record it found: the pages only; the checkpoint after
    // the last record makes them durable.
    Status s = spans.empty() ? Status::ok() : file.write(spans, false);
    if (!s.is_ok()) return s;
    db_->publish_logged(meta, db_->log_state().head, 0);
    return Status::ok();
  }
  const uint64_t record_bytes = engine::log_record_bytes(log_.ops_bytes());
  if (db_->log_state().head.offset_bytes + record_bytes > engine::log_area_bytes(meta) ||
      db_->checkpoint_due()) {
    // The log is full, or pages wait for a checkpoint: the committed state
    // becomes one, and the record goes to the start of the log.
    ORDO_RETURN_IF_ERROR(db_->checkpoint());
    meta.log_epoch = db_->committed().log_epoch;
  }
  const engine::LogPosition at = db_->log_state().head;
  engine::LogPosition next;
  engine::CommitWriteResult written =
      engine::write_logged_commit(file, spans, meta, at, db_->writer_nonce(),
                                  db_->options().sync_commits, log_.record(), &next);
  if (!written.status.is_ok()) {
    return written.poison ? poisoned_commit(meta, written.status) : written.status;
  }
  ORDO_ASSERT(next.offset_bytes == at.offset_bytes + record_bytes);
  db_->publish_logged(meta, next, held_pages_);
  return Status::ok();
}

Status WriteTxnImpl::write_checkpoint(engine::Meta& meta, std::span<const io::WriteSpan> spans) {
  const Options& o = db_->options();
  // The log's txns since the last checkpoint are in the page cache: this
  // commit's syncs make them durable with its own pages.
  meta.log_epoch = snapshot_.log_epoch + 1;
  ORDO_ASSERT(meta.txn_id > snapshot_.txn_id && !db_->replaying());
  meta.flags = o.commit_protocol == CommitProtocol::kOneSync && commit_as_ == 0 && !kept_dirty_
                   ? engine::kMetaFlagOneSync
                   : 0;
  // A commit_as() commit stamps its pages with another txn id than its meta
  // carries, which the one-sync check at open goes by, and that check does
  // not walk the kept snapshots tree: two syncs for both.
  const CommitProtocol protocol =
      o.commit_protocol == CommitProtocol::kOneSync && commit_as_ == 0 && !kept_dirty_
          ? CommitProtocol::kOneSync
          : CommitProtocol::kTwoSync;
  // With the log, checkpoints sync whatever sync_commits says: the page reuse
  // rule counts on the last one being durable.
  const bool sync = o.sync_commits || o.commit_protocol == CommitProtocol::kLog;
  // The meta goes last: until it is durable the previous commit stays the one
  // a crash recovers to, and until write_commit() returns no other handle
  // takes it.
  engine::CommitWriteResult written =
      engine::write_commit(db_->file(), db_->page_buffers(), spans, meta, protocol, sync);
  if (!written.status.is_ok()) {
    return written.poison ? poisoned_commit(meta, written.status) : written.status;
  }
  db_->publish_checkpoint(meta);
  return Status::ok();
}

Status WriteTxnImpl::poisoned_commit(const engine::Meta& meta, const Status& s) {
  ORDO_ASSERT(!s.is_ok());
  db_->poison(s);
  return s.with_context("txn " + std::to_string(meta.txn_id) +
                        " was not committed (the previous commit stands); this handle can only "
                        "read now: reopen the database to write again");
}

// Public WriteTxn.

WriteTxnImpl& WriteTxn::writer() {
  ORDO_ASSERT(impl_ != nullptr);  // Every caller answers a moved-from txn first.
  return static_cast<WriteTxnImpl&>(*impl_);
}

namespace {
Status ended() { return Status::txn_ended("write txn already committed, aborted or moved from"); }
Status lent_txn() {
  return Status::invalid_argument(
      "the write txn of Database::batch is committed by batch(): return from the batch function "
      "instead of committing or aborting it");
}
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
Result<bool> WriteTxn::insert(const Tree& tree, ByteView key, ByteView value) {
  if (!impl_) return ended();
  btree::Update update;
  update.when = btree::Update::When::kAbsent;
  update.value = value;
  ORDO_ASSIGN_OR_RETURN(const btree::UpdateOutcome out, writer().update(tree, key, update));
  return out.changed;
}
Result<std::optional<std::string>> WriteTxn::replace(const Tree& tree, ByteView key,
                                                     ByteView value) {
  if (!impl_) return ended();
  std::string old_value;
  btree::Update update;
  update.value = value;
  update.old_value = &old_value;
  ORDO_ASSIGN_OR_RETURN(const btree::UpdateOutcome out, writer().update(tree, key, update));
  ORDO_ASSERT(out.applied && out.changed);  // a replace always writes
  if (!out.found) return std::optional<std::string>();
  return std::optional<std::string>(std::move(old_value));
}
Result<bool> WriteTxn::compare_and_set(const Tree& tree, ByteView key,
                                       std::optional<ByteView> expected,
                                       std::optional<ByteView> desired) {
  if (!impl_) return ended();
  btree::Update update;
  update.when = expected.has_value() ? btree::Update::When::kEquals : btree::Update::When::kAbsent;
  update.expected = expected.value_or(ByteView());
  update.value = desired;
  ORDO_ASSIGN_OR_RETURN(const btree::UpdateOutcome out, writer().update(tree, key, update));
  return out.applied;
}
Result<uint64_t> WriteTxn::del_range(const Tree& tree, ByteView from, ByteView to) {
  if (!impl_) return ended();
  return writer().del_range(tree, KeyRange::between(from, to));
}
Result<uint64_t> WriteTxn::del_range(const Tree& tree, const KeyRange& range) {
  if (!impl_) return ended();
  return writer().del_range(tree, range);
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
Result<Uuid> WriteTxn::next_id() {
  if (!impl_) return ended();
  return impl_->db().uuid_generator().next();
}
Result<Id64> WriteTxn::next_id64() {
  if (!impl_) return ended();
  return impl_->db().id64_generator().next();
}

Status WriteTxn::commit() {
  if (!impl_) return ended();
  if (impl_->refuse_end()) return lent_txn();
  Status s = writer().commit();
  impl_.reset();  // releases the writer lock and the dirty pages
  return s;
}

Result<Savepoint> WriteTxn::savepoint() {
  if (!impl_) return ended();
  return writer().savepoint();
}
Status WriteTxn::rollback_to(const Savepoint& sp) {
  if (!impl_) return ended();
  return writer().rollback_to(sp);
}
Status WriteTxn::release(const Savepoint& sp) {
  if (!impl_) return ended();
  return writer().release(sp);
}

}  // namespace ordo
