// Database: open, begin txns, report.
#include <algorithm>

#include "database_opener.h"
#include "db_impl.h"
#include "ordo/assert.h"
#include "ordo/btree/page_format.h"
#include "txn_impl.h"

namespace ordo {

Database::Database(std::shared_ptr<DatabaseImpl> impl) : impl_(std::move(impl)) {
  ORDO_ASSERT(impl_ != nullptr);
}
Database::~Database() = default;

Result<std::unique_ptr<Database>> Database::open(const std::string& path, const Options& options) {
  return DatabaseOpener::open(path, options, nullptr);
}

Result<std::unique_ptr<Database>> DatabaseOpener::open(const std::string& path,
                                                       const Options& options,
                                                       BackendFactory factory) {
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<DatabaseImpl> impl,
                        DatabaseImpl::open(path, options, std::move(factory)));
  std::shared_ptr<DatabaseImpl> shared(std::move(impl));
  // Commits in the log whose pages a crash of the machine lost: applied now,
  // as write txns of the new handle.
  ORDO_RETURN_IF_ERROR(DatabaseImpl::replay_log(shared));
  ORDO_ASSERT(!shared->needs_replay() && !shared->replaying());
  return std::unique_ptr<Database>(new Database(std::move(shared)));
}

size_t DatabaseOpener::queued_batches(const Database& db) { return db.impl_->batch_queue().size(); }

Result<ReadTxn> Database::begin_read() {
  ORDO_RETURN_IF_ERROR(impl_->check_process());
  ORDO_ASSIGN_OR_RETURN(engine::Meta snapshot, impl_->register_reader());
  ORDO_ASSERT(snapshot.page_size == impl_->page_size());
  return TxnFactory::read(std::make_unique<ReadTxnImpl>(impl_, snapshot));
}

Result<WriteTxn> TxnFactory::begin_write(const std::shared_ptr<DatabaseImpl>& db,
                                         engine::WriterGate::Wait wait) {
  ORDO_RETURN_IF_ERROR(db->check_writable());
  ORDO_RETURN_IF_ERROR(db->writer_gate().acquire(wait));
  ORDO_ASSERT(db->writer_gate().held_by_this_thread());
  engine::WriterLock lock(&db->writer_gate());
  ORDO_RETURN_IF_ERROR(db->unpoisoned());
  engine::Meta snapshot = db->committed();
  ORDO_ASSIGN_OR_RETURN(engine::ReuseRule rule, db->reuse_rule(snapshot.txn_id));
  return TxnFactory::write(
      std::make_unique<WriteTxnImpl>(db, std::move(lock), snapshot, std::move(rule)));
}

Result<WriteTxn> Database::begin_write() {
  return TxnFactory::begin_write(impl_, engine::WriterGate::Wait::forever());
}

Result<WriteTxn> Database::try_begin_write() {
  return TxnFactory::begin_write(impl_, engine::WriterGate::Wait::none());
}

Result<WriteTxn> Database::begin_write(std::chrono::milliseconds timeout) {
  return TxnFactory::begin_write(
      impl_, engine::WriterGate::Wait::until(std::chrono::steady_clock::now() + timeout));
}

Status Database::checkpoint() {
  ORDO_RETURN_IF_ERROR(impl_->check_writable());
  if (impl_->writer_gate().held_by_this_thread()) {
    return Status::busy("this thread holds the open write txn: commit or abort it first");
  }
  ORDO_RETURN_IF_ERROR(impl_->writer_gate().acquire(engine::WriterGate::Wait::forever()));
  ORDO_ASSERT(impl_->writer_gate().held_by_this_thread());  // No write txn meanwhile.
  engine::WriterLock lock(&impl_->writer_gate());
  ORDO_RETURN_IF_ERROR(impl_->unpoisoned());
  return impl_->checkpoint();
}

DatabaseInfo Database::info() const {
  (void)impl_->refresh_committed();  // read-only: show the newest commit on disk
  DatabaseInfo info;
  const io::PageFile& file = impl_->file();
  engine::Meta m = impl_->committed();
  info.path = file.path();
  info.page_size_bytes = m.page_size;
  info.format_version = engine::kFormatVersion;
  info.file_bytes = file.file_bytes();
  info.txn_id = m.txn_id;
  info.current_meta = engine::slot_of_epoch(m.log_epoch);
  info.log = impl_->log_info();
  info.current.valid = true;
  info.current.txn_id = m.txn_id;
  info.current.page_high_water = m.page_high_water;
  info.current.file_bytes = m.file_bytes;
  info.current.free_pages = m.free_pages;
  info.current.tree_count = m.tree_count;
  // A committed meta counts its free pages within its high-water (decode_meta
  // checked a read one; a commit counts the pages of its free tree).
  ORDO_ASSERT(m.free_pages <= m.page_high_water);
  info.pages_used = m.page_high_water - m.free_pages;
  info.id_high_water = m.last_uuid;
  info.id64_high_water = Id64{m.last_id64};
  info.io_backend = std::string(file.backend_name());
  info.recovery = impl_->recovery_note();
  for (int i = 0; i < 2; ++i) {
    MetaInfo& out = info.metas[i];
    const std::byte* p = file.data(static_cast<uint64_t>(i) * m.page_size, btree::kMinPageSize);
    if (p == nullptr) {
      out.problem = "beyond the end of the file";
      continue;
    }
    engine::Meta slot;
    out.valid = engine::decode_meta(p, &slot, &out.problem) == engine::MetaProblem::kNone &&
                engine::check_meta_in_file(slot, i, file.file_bytes(), &out.problem) ==
                    engine::MetaProblem::kNone;
    if (!out.valid) continue;
    out.txn_id = slot.txn_id;
    // A newer meta whose writer has not settled it yet (docs/FORMAT.md,
    // "Failed commits") is not this handle's commit: say why.
    if (slot.txn_id > m.txn_id) {
      auto unsettled = impl_->unsettled_problem(slot.txn_id);
      if (unsettled.is_ok() && !unsettled->empty()) {
        out.valid = false;
        out.problem = std::move(unsettled).value();
      }
    }
    out.page_high_water = slot.page_high_water;
    out.file_bytes = slot.file_bytes;
    out.free_pages = slot.free_pages;
    out.tree_count = slot.tree_count;
  }
  return info;
}

Stats Database::stats() const {
  Stats s;
  io::FileStats f = impl_->file().stats();
  auto& c = impl_->counters();
  s.commits = c.commits.load();
  s.pages_written = c.pages_written.load();
  s.pages_reused = c.pages_reused.load();
  s.pages_spilled = c.pages_spilled.load();
  s.overflow_pages_written = c.overflow_pages_written.load();
  s.batch_groups = c.batch_groups.load();
  s.batch_members = c.batch_members.load();
  s.batch_rollbacks = c.batch_rollbacks.load();
  s.bytes_written = f.bytes_written;
  s.write_calls = f.write_calls;
  s.syncs = f.syncs;
  s.file_growths = f.growths;
  return s;
}

uint32_t Database::page_size_bytes() const { return impl_->page_size(); }
uint32_t Database::max_key_bytes() const { return btree::max_key_bytes(impl_->page_size()); }
uint64_t Database::max_value_bytes() const { return kMaxValueBytes; }
uint32_t Database::max_inline_value_bytes() const {
  return btree::max_inline_value_bytes(impl_->page_size());
}
static_assert(kMaxValueBytes == btree::kMaxValueBytes);

}  // namespace ordo
