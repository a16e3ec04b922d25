// DatabaseImpl: the state one open database shares between its txns, and the
// wiring of open and recovery: the file, the last committed meta, the reader
// table, the writer lock and the batch queue, the ID generators and the
// registry of tree names.
// Owned jointly by the Database handle and every txn made from it
// (std::shared_ptr), so it lives until the last of them is gone.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "batch_queue.h"
#include "fork_guard.h"
#include "log_record.h"
#include "meta.h"
#include "meta_slots.h"
#include "ordo/assert.h"
#include "ordo/base/thread_annotations.h"
#include "ordo/database.h"
#include "ordo/id64.h"
#include "ordo/io/page_file.h"
#include "ordo/uuid_v7_generator.h"
#include "page_buffers.h"
#include "reader_table.h"
#include "reuse_rule.h"
#include "tree_registry.h"
#include "writer_gate.h"

namespace ordo {

class DatabaseImpl {
 public:
  // `backend_factory`: tests only; null uses Options::io_backend.
  static Result<std::unique_ptr<DatabaseImpl>> open(
      const std::string& path, const Options& options,
      std::function<Result<std::unique_ptr<io::WriteBackend>>(int fd)> backend_factory);

  // A writable handle gives back its preallocated tail (Options::trim_on_close).
  ~DatabaseImpl();

  const Options& options() const { return options_; }
  uint32_t page_size() const { return page_size_; }
  io::PageFile& file() { return *file_; }
  const io::PageFile& file() const { return *file_; }

  // The last committed meta. Thread-safe.
  engine::Meta committed() const ORDO_EXCLUDES(state_mu_);

  // Reader table: a read txn registers its snapshot for its whole life. A
  // read-only handle reads the newest meta from the file and also takes a
  // reader slot there, for a writer in another process to see.
  Result<engine::Meta> register_reader() ORDO_EXCLUDES(state_mu_);
  void unregister_reader(uint64_t txn_id) ORDO_EXCLUDES(state_mu_);
  // The reuse rule for a txn that starts from committed txn `snapshot_txn`:
  // this process's live read snapshots and other processes' reader slots.
  // IOError when the reader-slot query fails.
  Result<engine::ReuseRule> reuse_rule(uint64_t snapshot_txn) const ORDO_EXCLUDES(state_mu_);
  // After txn `txn_id` committed under checkpoint `checkpoint_txn`: its free
  // tree's keys below `held_before` wait for the next checkpoint
  // (FreeList::held_before). reuse_rule() hands them to the next txn while
  // both still hold, so a commit does not rescan them.
  void keep_free_entries_held_before(uint64_t checkpoint_txn, uint64_t txn_id,
                                     std::string held_before) ORDO_EXCLUDES(state_mu_);

  // Older snapshots (held_snapshots.cc): a snapshot whose pages are still
  // held, by a live read txn of this handle or as a kept snapshot of the
  // newest commit, registered as one more reader of it (unregister_reader()
  // ends that). NotFound "snapshot N is not held: ..." otherwise; Corruption
  // for a damaged kept snapshots tree.
  Result<engine::Meta> register_held_reader(uint64_t txn_id) ORDO_EXCLUDES(state_mu_);
  // The kept snapshots of the newest commit, ascending txn id.
  Result<std::vector<engine::Meta>> kept_snapshots() ORDO_EXCLUDES(state_mu_);

  // Read-only handles: catch up with commits made by another process.
  Status refresh_committed() ORDO_EXCLUDES(state_mu_);

  // Read-only handles: "txn N is being committed" when another handle holds
  // the commit lock of `txn_id` (PageFile::lock_commit), else empty; always
  // empty on a writable handle. IOError when the lock query fails.
  Result<std::string> unsettled_problem(uint64_t txn_id) const;

  // Makes `meta` the committed state seen by later txns.
  void publish(const engine::Meta& meta) ORDO_EXCLUDES(state_mu_);

  // The log (docs/FORMAT.md, "The log") as this handle knows it.
  struct LogState {
    uint64_t checkpoint_txn = 0;  // txn of the checkpoint the records follow
    engine::LogPosition head;     // where the next record goes in the log area
    uint64_t records = 0;         // records written since that checkpoint
    uint64_t record_bytes = 0;    // their bytes
    // Pages those txns freed that the checkpoint's state reaches: not
    // reusable before the next checkpoint (engine::ReuseRule).
    uint64_t held_pages = 0;
  };
  LogState log_state() const ORDO_EXCLUDES(state_mu_);
  // The log as the file holds it now, for Database::info(): the checkpoint of
  // the committed state's epoch and the records after it.
  LogInfo log_info() const ORDO_EXCLUDES(state_mu_);
  // publish() after a logged commit whose record ends where `next` starts
  // and which freed `held_pages` pages the checkpoint's state reaches. A
  // replayed record (replaying()) was not written: the head stays.
  void publish_logged(const engine::Meta& meta, const engine::LogPosition& next,
                      uint64_t held_pages) ORDO_EXCLUDES(state_mu_);
  // True when the pages held for the next checkpoint are worth taking one
  // for: more than 1/16 of the pages in use (and at least 256), so the file
  // grows by at most that much between checkpoints.
  bool checkpoint_due() const ORDO_EXCLUDES(state_mu_);
  // publish() of a checkpoint meta: the log starts again, empty.
  void publish_checkpoint(const engine::Meta& meta) ORDO_EXCLUDES(state_mu_);
  // Makes the committed state a checkpoint: fdatasync, then the committed
  // meta with the next log epoch into its slot, then fdatasync. Nothing to do
  // when no record was written since the last one. The caller is the writer
  // (holds the writer gate, or no txn exists). A failure poisons the handle
  // (IOError, Full); the log and the committed state stay as they were.
  Status checkpoint() ORDO_EXCLUDES(state_mu_);
  // Writer: the nonce its log records carry (seal_log_record), drawn at
  // open, never 0.
  uint32_t writer_nonce() const {
    ORDO_ASSERT(!options_.read_only && writer_nonce_ != 0);  // drawn by a writable open
    return writer_nonce_;
  }
  // Writer: the buffer a write txn's log record is built in (TxnLog), kept
  // from one txn to the next.
  std::vector<std::byte>& record_buffer() {
    ORDO_ASSERT(!options_.read_only);  // only a writable handle writes log records
    return record_buffer_;
  }
  // True while open replays log records: commits then write pages only.
  bool replaying() const { return replaying_; }
  // Writable opens whose log holds records the file's pages do not (a crash
  // of the machine lost pages): applies them, each as a write txn, then takes
  // a checkpoint. Called once by the opener, with the shared state.
  static Status replay_log(const std::shared_ptr<DatabaseImpl>& db);
  bool needs_replay() const { return needs_replay_; }

  // The writer lock: one write txn at a time.
  engine::WriterGate& writer_gate() { return writer_gate_; }
  // Database::batch callers waiting to be committed as a group.
  engine::BatchQueue& batch_queue() { return batch_queue_; }
  // Dirty-page buffers; used only by the txn holding the writer lock.
  engine::PageBuffers& page_buffers() {
    ORDO_ASSERT(page_buffers_ != nullptr);  // made by open() before any txn
    return *page_buffers_;
  }

  // A failed sync leaves the on-disk state unknown to this handle: every
  // later write txn fails with this status until the database is reopened.
  void poison(const Status& s) ORDO_EXCLUDES(state_mu_);
  Status poisoned() const ORDO_EXCLUDES(state_mu_);
  // Ok, or the IOError a write on a poisoned handle gets ("reopen").
  Status unpoisoned() const ORDO_EXCLUDES(state_mu_);

  // A handle for the tree named `name` (the default tree when empty), with
  // an id fixed per name for the life of this handle.
  Tree tree_handle(std::string_view name) { return trees_.handle(name); }
  // InvalidArgument unless `tree` was made by this handle (or is the default
  // tree).
  Status check_tree_handle(const Tree& tree) const { return trees_.check(tree); }

  // fork(): InvalidArgument when called in a process other than the one
  // that opened this handle. The parent's locks, reader slots and file are
  // shared with a child, so a child must neither use nor release them.
  Status check_process() const;
  bool in_forked_child() const;
  // Before a write txn: InvalidArgument on a read-only handle or in a forked
  // child.
  Status check_writable() const;

  UuidV7Generator& uuid_generator() { return uuids_; }
  Id64Generator& id64_generator() { return id64s_; }

  struct Counters {
    std::atomic<uint64_t> commits{0};
    std::atomic<uint64_t> pages_written{0};
    std::atomic<uint64_t> pages_reused{0};
    std::atomic<uint64_t> pages_spilled{0};
    std::atomic<uint64_t> overflow_pages_written{0};
    std::atomic<uint64_t> batch_groups{0};
    std::atomic<uint64_t> batch_members{0};
    std::atomic<uint64_t> batch_rollbacks{0};
  };
  Counters& counters() { return counters_; }

  // Both meta slots as found at open (for info()).
  const engine::Meta& meta_slot(int i) const {
    ORDO_ASSERT(i == 0 || i == 1);
    return open_slots_.meta[i];
  }
  const std::string& meta_problem(int i) const {
    ORDO_ASSERT(i == 0 || i == 1);
    return open_slots_.text[i];
  }
  // Set when open fell back to the older meta; empty otherwise.
  const std::string& recovery_note() const { return recovery_note_; }
  // Set when open replayed log records (LogInfo::replayed).
  const std::string& replay_note() const { return replay_note_; }

 private:
  DatabaseImpl(const Options& options, std::unique_ptr<io::PageFile> file);
  Status create_new();
  Status load_existing();
  // The newest valid meta on disk (after mapping any growth).
  Result<engine::Meta> newest_meta_from_file();
  Result<engine::Meta> newest_meta_once();  // one try: Busy when it raced a writer
  // Of `slots`, with `pick` the newest valid one: the slot to trust, after
  // the one-sync recovery check; `note` says why it fell back if so. Busy
  // (read-only handles) when the check failed because a writer in another
  // process committed past that txn meanwhile: the caller re-reads.
  Result<int> trusted_slot(const engine::MetaSlots& slots, int pick, std::string* note)
      ORDO_EXCLUDES(verify_mu_);
  // Both meta slots as MetaSlots::read() finds them, the file length read
  // again first when the newest one needs pages past the known end. IOError
  // when that re-read (fstat, mmap) fails.
  Result<engine::MetaSlots> read_slots();
  // Read-only handles: of `slots`, with `pick` the newest valid one, the slot
  // whose commit is settled. A meta whose writer still holds its commit lock
  // (PageFile::lock_commit: its sync may yet fail) is marked kInFlight and the
  // older slot is picked. Busy when the newest slot changed while its lock
  // was looked at (a failed commit put it back): the caller reads again.
  // IOError when the lock query fails. A writable handle is the file's only
  // writer: `pick` is returned as it is.
  Result<int> settled_slot(engine::MetaSlots& slots, int pick) ORDO_EXCLUDES(state_mu_);
  // True when every byte of the file (as mapped) is zero: what a create cut
  // short between its growth and its first meta write leaves.
  bool holds_only_zeros() const;
  // Read-only handles: registers one more reader of `meta`'s snapshot and
  // takes its reader slot for the first. IOError when the slot lock fails.
  Status pin_snapshot(const engine::Meta& meta) ORDO_EXCLUDES(state_mu_);
  // Read-only handles: runs `check` over the pages of `meta` (and of
  // `previous` when it is the txn just before) with their snapshots pinned,
  // so no writer in another process reuses a page while it is read. Busy when
  // a writer had committed two txns past the lowest of them before the pins
  // held (its pages may have been reused already); else what `check` says.
  Status check_pinned(const engine::Meta& meta, const engine::Meta* previous,
                      const std::function<Status()>& check) ORDO_EXCLUDES(state_mu_);
  // True when the file now holds a valid meta newer than `txn_id`.
  bool writer_moved_past(uint64_t txn_id);
  // Re-reads after a Busy from trusted_slot; a writer that outruns this many
  // checks in a row makes open fail with Busy.
  static constexpr int kRaceRetries = 100;

  // After open picked slot `pick` of `slots`: when the log area starts with
  // records of the next epoch, a newer checkpoint was passed over and the
  // commits after it are lost: the words recovery_note_ gets for them (the
  // passed-over slot named when the note does not yet), else "". Corruption
  // naming the cut when that checkpoint needs pages past the end of the file
  // (the file was truncated since: those commits may have reused the older
  // state's pages, so it cannot stand in).
  Result<std::string> lost_newer_epoch(const engine::MetaSlots& slots, int pick,
                                       const std::string& path) const;
  // After the checkpoint `c` was picked at open: finds the records after it.
  // A writable handle takes the last one when the pages of every txn since
  // `c` read back intact, else marks them for replay_log(); a read-only one
  // goes through newest_meta_once().
  Status open_log(const engine::Meta& c);
  // Read-only handles: the newest settled state of the log after checkpoint
  // `c` (itself when no record follows it). Busy when it raced a writer.
  Result<engine::Meta> log_tail(const engine::Meta& c);

  Options options_;
  std::unique_ptr<io::PageFile> file_;
  uint32_t page_size_ = 0;

  mutable base::Mutex state_mu_;
  engine::Meta committed_ ORDO_GUARDED_BY(state_mu_);
  engine::ReaderTable readers_ ORDO_GUARDED_BY(state_mu_);
  // The meta of each snapshot in readers_ (for register_held_reader()).
  std::map<uint64_t, engine::Meta> reader_metas_ ORDO_GUARDED_BY(state_mu_);
  Status poisoned_ ORDO_GUARDED_BY(state_mu_);

  engine::WriterGate writer_gate_;
  engine::BatchQueue batch_queue_;
  std::unique_ptr<engine::PageBuffers> page_buffers_;  // created once the page size is known

  engine::TreeRegistry trees_;
  engine::ForkGuard fork_guard_;

  UuidV7Generator uuids_;
  Id64Generator id64s_;
  Counters counters_;

  engine::MetaSlots open_slots_;
  std::string recovery_note_;
  std::string replay_note_;
  uint64_t replayed_records_ = 0;
  uint64_t replayed_bytes_ = 0;
  base::Mutex verify_mu_;
  uint64_t verified_txn_ ORDO_GUARDED_BY(verify_mu_) = UINT64_MAX;  // last verified one-sync txn

  LogState log_ ORDO_GUARDED_BY(state_mu_);
  struct HeldEntries {
    uint64_t checkpoint_txn = UINT64_MAX;
    uint64_t txn_id = 0;
    std::string before;
  };
  HeldEntries held_entries_ ORDO_GUARDED_BY(state_mu_);
  std::vector<std::byte> record_buffer_;
  uint32_t writer_nonce_ = 0;
  bool replaying_ = false;
  bool needs_replay_ = false;
  // Read-only handles: where the log was read up to (a settled record) and
  // whether the pages of a logged state were verified once (a handle that
  // lives was not through a crash of the machine since).
  struct LogCursor {
    uint64_t epoch = UINT64_MAX;
    uint64_t checkpoint_txn = 0;
    engine::LogPosition next;
    engine::Meta last;
  };
  LogCursor log_cursor_ ORDO_GUARDED_BY(verify_mu_);
  bool log_verified_ ORDO_GUARDED_BY(verify_mu_) = false;
};

}  // namespace ordo
