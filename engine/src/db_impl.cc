// Opening, creating and recovering a database file; shared state of txns.
#include "db_impl.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "commit_write.h"
#include "kept_snapshots.h"
#include "log_record.h"
#include "options_check.h"
#include "ordo/assert.h"
#include "ordo/btree/page_format.h"
#include "page_memory.h"
#include "recovery.h"
#include "snapshot_pages.h"
#include "txn_log.h"

namespace ordo {

using base::MutexLock;
using engine::Meta;
using engine::MetaProblem;
using engine::MetaSlots;

DatabaseImpl::~DatabaseImpl() {
  // A forked child shares the file with its parent: it shrinks nothing.
  if (in_forked_child()) return;
  if (options_.read_only || !file_ || !poisoned().is_ok()) return;
  // The log's records become a checkpoint, so the next open replays nothing.
  // Best effort: a failure leaves them for the next open to apply.
  if (page_buffers_ && !checkpoint().is_ok()) return;
  if (!options_.trim_on_close) return;
  // Best effort: a failed ftruncate leaves the preallocated tail, nothing else.
  const Meta m = committed();
  if (m.page_size != 0) (void)file_->shrink_to(m.page_high_water * m.page_size);
}

DatabaseImpl::DatabaseImpl(const Options& options, std::unique_ptr<io::PageFile> file)
    : options_(options),
      file_(std::move(file)),
      uuids_(options.clock ? *options.clock : system_clock()),
      id64s_(options.id_node, options.clock ? *options.clock : system_clock()) {
  ORDO_ASSERT(file_ != nullptr);
}

namespace {

io::BackendKind to_io(IoBackend b) {
  switch (b) {
    case IoBackend::kUring:
      return io::BackendKind::kUring;
    case IoBackend::kPosix:
      return io::BackendKind::kPosix;
    case IoBackend::kAuto:
      break;
  }
  return io::BackendKind::kAuto;
}

// A writable handle's log records carry a nonce of its own, so a record it
// writes never equals one an earlier life of the file left at that place
// (docs/FORMAT.md, "Which records count"). Not 0: records without a nonce
// are those of earlier builds.
uint32_t draw_writer_nonce() {
  std::random_device device;
  uint32_t nonce = 0;
  while (nonce == 0) nonce = device();
  return nonce;
}

}  // namespace

Result<std::unique_ptr<DatabaseImpl>> DatabaseImpl::open(
    const std::string& path, const Options& options,
    std::function<Result<std::unique_ptr<io::WriteBackend>>(int fd)> backend_factory) {
  ORDO_RETURN_IF_ERROR(engine::check_options(options));
  io::FileOptions fo;
  fo.read_only = options.read_only;
  fo.create_if_missing = options.create_if_missing && !options.read_only;
  fo.lock_wait_ms = options.writer_wait_ms;
  fo.backend = to_io(options.io_backend);
  fo.extent_bytes = options.extent_bytes;
  fo.max_extent_bytes = options.max_extent_bytes;
  fo.map_reserve_bytes = options.map_reserve_bytes;
  fo.backend_factory = std::move(backend_factory);
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<io::PageFile> file, io::PageFile::open(path, fo));
  std::unique_ptr<DatabaseImpl> db(new DatabaseImpl(options, std::move(file)));
  if (!options.read_only) db->writer_nonce_ = draw_writer_nonce();
  if (db->file_->file_bytes() == 0) {
    if (options.read_only) {
      return Status::not_ordo_file("not an ordo database: " + path + " is empty");
    }
    ORDO_RETURN_IF_ERROR(db->create_new());
  } else {
    ORDO_RETURN_IF_ERROR(db->load_existing());
  }
  // create_new() or load_existing() set the page size and published a meta.
  ORDO_ASSERT(btree::valid_page_size(db->page_size_));
  db->page_buffers_ = std::make_unique<engine::PageBuffers>(db->page_size_);
  const Meta committed = db->committed();
  ORDO_ASSERT(committed.page_size == db->page_size_);
  db->uuids_.observe(committed.last_uuid);
  db->id64s_.observe(Id64{committed.last_id64});
  return db;
}

Status DatabaseImpl::create_new() {
  page_size_ = options_.page_size_bytes != 0 ? options_.page_size_bytes : btree::kDefaultPageSize;
  ORDO_ASSERT(btree::valid_page_size(page_size_));  // check_options() checked the option
  const uint64_t log_bytes =
      options_.log_bytes != 0 ? options_.log_bytes : engine::kDefaultLogBytes;
  Meta meta;
  meta.page_size = page_size_;
  meta.txn_id = 0;
  meta.log_first_page = engine::kFirstDataPage;
  meta.log_pages = log_bytes / page_size_;
  meta.log_epoch = 0;
  meta.page_high_water = meta.log_first_page + meta.log_pages;
  // check_options(): log_bytes is a multiple of the page size, at least kMinLogBytes.
  ORDO_ASSERT(meta.log_pages != 0 && meta.log_pages * page_size_ == log_bytes);
  ORDO_RETURN_IF_ERROR(file_->grow_to(meta.page_high_water * page_size_));
  meta.file_bytes = file_->file_bytes();
  ORDO_ASSERT(meta.file_bytes >= meta.page_high_water * page_size_);  // grow_to() succeeded
  ORDO_RETURN_IF_ERROR(engine::prewrite_log(*file_, meta));
  std::byte* page = static_cast<std::byte*>(engine::page_zalloc(page_size_));
  engine::encode_meta(meta, page);
  io::WriteSpan span{0, page, page_size_};
  Status s = file_->write(std::span<const io::WriteSpan>(&span, 1), true);
  engine::page_free(page);
  ORDO_RETURN_IF_ERROR(s);
  publish_checkpoint(meta);
  open_slots_.meta[0] = meta;
  open_slots_.problem[0] = MetaProblem::kNone;
  open_slots_.text[1] = "never written";
  return Status::ok();
}

Status DatabaseImpl::load_existing() {
  const uint64_t len = file_->file_bytes();
  const std::string& path = file_->path();
  const std::byte* p0 = file_->data(0, btree::kMinPageSize);
  if (p0 == nullptr) return engine::too_short_for_meta(path, len);
  int pick = -1;
  for (int attempt = 0;; ++attempt) {
    ORDO_ASSIGN_OR_RETURN(open_slots_, read_slots());
    pick = open_slots_.newest_valid();
    if (pick < 0) break;
    Result<int> settled = settled_slot(open_slots_, pick);
    if (settled.status().is_busy() && attempt < kRaceRetries) continue;  // put back meanwhile
    ORDO_ASSIGN_OR_RETURN(pick, std::move(settled));
    if (pick < 0) break;
    // A newer meta written whole but unusable is passed over, and said so.
    recovery_note_ = open_slots_.fallback_note(pick);
    Result<int> trusted = trusted_slot(open_slots_, pick, &recovery_note_);
    if (trusted.status().is_busy() && attempt < kRaceRetries) continue;  // writer moved on
    ORDO_ASSIGN_OR_RETURN(pick, std::move(trusted));
    break;
  }
  if (pick < 0) {
    // A create cut short (killed, or its first meta write failed) after the
    // file grew leaves only zeros: nothing to lose, so a writable open makes
    // it new, as it does an empty file.
    if (open_slots_.problem[0] == MetaProblem::kNoMagic &&
        open_slots_.problem[1] == MetaProblem::kNoMagic && holds_only_zeros()) {
      if (options_.read_only) {
        return Status::not_ordo_file("not an ordo database: " + path +
                                     " holds only zeros (a create that did not finish); a "
                                     "writable open makes it a new database");
      }
      ORDO_RETURN_IF_ERROR(create_new());
      recovery_note_ = "the file held only zeros (a create that did not finish): made new";
      return Status::ok();
    }
    return open_slots_.no_valid_meta(path);
  }
  ORDO_ASSIGN_OR_RETURN(const std::string lost, lost_newer_epoch(open_slots_, pick, path));
  recovery_note_ += lost;
  const Meta& m = open_slots_.meta[pick];
  if (options_.page_size_bytes != 0 && options_.page_size_bytes != m.page_size) {
    return Status::invalid_argument("page size mismatch: the file uses " +
                                    std::to_string(m.page_size) + " bytes, options ask for " +
                                    std::to_string(options_.page_size_bytes));
  }
  // read_slots() checked that the file holds every page up to the high-water.
  ORDO_ASSERT(btree::valid_page_size(m.page_size));  // decode_meta() checked it
  page_size_ = m.page_size;
  publish_checkpoint(m);
  return open_log(m);
}

Result<std::string> DatabaseImpl::lost_newer_epoch(const MetaSlots& slots, int pick,
                                                   const std::string& path) const {
  ORDO_ASSERT(pick == 0 || pick == 1);
  const int other = 1 - pick;
  // A valid other slot was not passed over for being unusable; one in flight
  // (a read-only open during a checkpoint commit) is no loss.
  if (slots.problem[other] == MetaProblem::kNone ||
      slots.problem[other] == MetaProblem::kInFlight) {
    return std::string();
  }
  const engine::LogScan newer = engine::scan_next_epoch(*file_, slots.meta[pick]);
  if (newer.records == 0) return std::string();
  const std::string range = "txns " + std::to_string(newer.last_txn - newer.records + 1) + ".." +
                            std::to_string(newer.last_txn);
  const std::string commits = std::to_string(newer.records) + " commits";
  const Meta& passed = slots.meta[other];
  // A checkpoint's meta is written after its pages and the file's growth
  // were synced: whole, it proves the file was that long (only a one-sync
  // commit's meta may outlive a growth that did not reach the disk). The
  // commits after it may have reused the older state's pages: no fallback.
  if (slots.problem[other] == MetaProblem::kBeyondFile && passed.txn_id > slots.meta[pick].txn_id &&
      (passed.flags & engine::kMetaFlagOneSync) == 0) {
    return Status::corruption(
        path + " was cut short: meta " + std::to_string(other) + " (txn " +
        std::to_string(passed.txn_id) + ") was written when the file held " +
        std::to_string(passed.page_high_water) + " pages of " + std::to_string(passed.page_size) +
        " bytes, and it now holds " + std::to_string(file_->file_bytes()) +
        " bytes; the older meta " + std::to_string(pick) + " (txn " +
        std::to_string(slots.meta[pick].txn_id) + ") cannot stand in for it, as the " + commits +
        " logged after the newer one (" + range +
        ") reused its free pages. Restore the file's tail, or a copy");
  }
  // Records of the next epoch follow a checkpoint that was durable: its slot
  // (the other one) was damaged since, or names what the file no longer holds.
  std::string note = recovery_note_.empty()
                         ? "meta " + std::to_string(other) + " is unusable: " + slots.text[other] +
                               "; using meta " + std::to_string(pick) + " (txn " +
                               std::to_string(slots.meta[pick].txn_id) + ")"
                         : "";
  return note + "; the log holds " + commits + " (" + range +
         ") that followed the unusable checkpoint: they are lost";
}

Status DatabaseImpl::open_log(const Meta& c) {
  if (options_.read_only) {
    ORDO_ASSIGN_OR_RETURN(Meta tail, newest_meta_from_file());
    publish(tail);
    return Status::ok();
  }
  Meta last = c;
  uint64_t bytes = 0;
  const engine::LogScan scan =
      engine::scan_log(*file_, c, engine::LogPosition::after(c), [&](const engine::LogRecord& r) {
        last = r.meta;
        bytes += r.bytes;
        return true;
      });
  if (scan.records == 0) return Status::ok();
  ORDO_ASSERT(last.txn_id == c.txn_id + scan.records);  // one record per txn, in order
  const std::string txns = "txns " + std::to_string(c.txn_id + 1) + ".." +
                           std::to_string(last.txn_id) + " (" + std::to_string(scan.records) +
                           " log records, " + std::to_string(bytes) +
                           " bytes) after checkpoint txn " + std::to_string(c.txn_id);
  // A process that died leaves every page in the page cache; a machine that
  // went down may have lost pages written since the checkpoint.
  Status intact = engine::verify_since(*file_, last, c.txn_id);
  if (intact.is_ok()) {
    publish(last);
    base::MutexLock g(state_mu_);
    log_ = LogState{c.txn_id, scan.next, scan.records, bytes};
    return Status::ok();
  }
  needs_replay_ = true;
  replayed_records_ = scan.records;
  replayed_bytes_ = bytes;
  replay_note_ = "replayed " + txns + " (pages not all on disk: " + intact.to_string() + ")";
  return Status::ok();
}

Status DatabaseImpl::replay_log(const std::shared_ptr<DatabaseImpl>& db) {
  if (!db->needs_replay_) return Status::ok();
  ORDO_ASSERT(!db->replaying_ && !db->options_.read_only);  // Only a writable open replays.
  const Meta c = db->committed();
  std::vector<engine::LogRecord> records;
  engine::scan_log(*db->file_, c, engine::LogPosition::after(c), [&](const engine::LogRecord& r) {
    records.push_back(r);
    return true;
  });
  db->replaying_ = true;
  Status s;
  for (const engine::LogRecord& r : records) {
    s = engine::replay_record(db, r);
    if (!s.is_ok()) break;
  }
  db->replaying_ = false;
  db->needs_replay_ = false;
  if (!s.is_ok()) {
    // The handle holds part of the log's state: it must not make that a
    // checkpoint when it closes. The records stay for the next open.
    db->poison(s);
    return s;
  }
  return db->checkpoint();
}

bool DatabaseImpl::holds_only_zeros() const {
  const uint64_t len = file_->file_bytes();
  // The mapping covers whole system pages; a file whose length is not a
  // multiple of one is not what a create leaves.
  if (len == 0 || file_->data(0, static_cast<size_t>(len)) == nullptr) return false;
  // Read with pread, not through the mapping: a creator in another process
  // may finish and shrink the file (trim at close) meanwhile.
  static constexpr std::byte kZeros[4096] = {};
  std::byte block[sizeof kZeros];
  for (uint64_t at = 0; at < len; at += sizeof kZeros) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof kZeros, len - at));
    Result<size_t> got = file_->read_at(at, std::span<std::byte>(block, want));
    if (!got.is_ok() || *got != want || std::memcmp(block, kZeros, want) != 0) return false;
  }
  return true;
}

Result<MetaSlots> DatabaseImpl::read_slots() {
  MetaSlots slots = MetaSlots::read(*file_);
  if (!slots.newest_beyond_file()) return slots;
  // A writer in another process grows the file before it writes a meta: a
  // meta past the length read before it is covered once the length is read again.
  ORDO_RETURN_IF_ERROR(file_->refresh());
  return MetaSlots::read(*file_);
}

Result<std::string> DatabaseImpl::unsettled_problem(uint64_t txn_id) const {
  if (!options_.read_only) return std::string();
  ORDO_ASSIGN_OR_RETURN(bool in_flight, file_->commit_in_flight(txn_id));
  return in_flight ? "txn " + std::to_string(txn_id) + " is being committed" : std::string();
}

Result<int> DatabaseImpl::settled_slot(MetaSlots& slots, int pick) {
  ORDO_ASSERT(pick < 2);
  if (!options_.read_only || pick < 0) return pick;
  const uint64_t txn_id = slots.meta[pick].txn_id;
  // A meta this handle already took was settled then.
  const Meta taken = committed();
  if (taken.page_size != 0 && txn_id <= taken.txn_id) return pick;
  ORDO_ASSIGN_OR_RETURN(std::string unsettled, unsettled_problem(txn_id));
  if (!unsettled.empty()) {
    slots.problem[pick] = MetaProblem::kInFlight;
    slots.text[pick] = std::move(unsettled);
    return slots.newest_valid();
  }
  // The lock is free: the commit is durable, or failed and its slot was put
  // back before the lock went, which a second look at the slot tells.
  const MetaSlots again = MetaSlots::read(*file_);
  if (again.problem[pick] != MetaProblem::kNone || again.meta[pick].txn_id != txn_id) {
    return Status::busy("meta slot " + std::to_string(pick) + " changed while txn " +
                        std::to_string(txn_id) + " was being checked");
  }
  return pick;
}

bool DatabaseImpl::writer_moved_past(uint64_t txn_id) {
  ORDO_ASSERT(options_.read_only);  // a writable handle is the file's only writer
  if (!file_->refresh().is_ok()) return false;
  const MetaSlots slots = MetaSlots::read(*file_);
  const int pick = slots.newest_valid();
  if (pick < 0) return false;
  if (slots.meta[pick].txn_id > txn_id) return true;
  // A record past it in the log of that checkpoint.
  const Meta& c = slots.meta[pick];
  const engine::LogScan scan =
      engine::scan_log(*file_, c, engine::LogPosition::after(c),
                       [&](const engine::LogRecord& r) { return r.meta.txn_id <= txn_id; });
  return scan.last_txn > txn_id;
}

Result<Meta> DatabaseImpl::newest_meta_from_file() {
  for (int attempt = 0;; ++attempt) {
    Result<Meta> meta = newest_meta_once();
    if (!meta.status().is_busy() || attempt == kRaceRetries) return meta;
  }
}

Result<Meta> DatabaseImpl::newest_meta_once() {
  // Read-only handles only: a writable one knows its committed meta.
  ORDO_ASSERT(options_.read_only && btree::valid_page_size(page_size_));
  ORDO_RETURN_IF_ERROR(file_->refresh());
  ORDO_ASSIGN_OR_RETURN(MetaSlots slots, read_slots());
  for (int i = 0; i < 2; ++i) {
    if (slots.problem[i] == MetaProblem::kNone && slots.meta[i].page_size != page_size_) {
      slots.problem[i] = MetaProblem::kBadFields;
    }
  }
  int pick = slots.newest_valid();
  if (pick >= 0) {
    ORDO_ASSIGN_OR_RETURN(pick, settled_slot(slots, pick));
  }
  if (pick >= 0) {
    std::string note;
    ORDO_ASSIGN_OR_RETURN(pick, trusted_slot(slots, pick, &note));
  }
  if (pick < 0) {
    return Status::corruption("both meta pages are invalid: meta 0: " + slots.text[0] +
                              "; meta 1: " + slots.text[1]);
  }
  ORDO_ASSERT(slots.meta[pick].page_size == page_size_);  // The others were set aside above.
  Result<Meta> tail = log_tail(slots.meta[pick]);
  // Name what else is wrong with the file: a newer checkpoint passed over.
  const std::string fallback = slots.fallback_note(pick);
  if (tail.status().is_needs_recovery() && !fallback.empty()) {
    return tail.status().with_context(fallback);
  }
  return tail;
}

Result<Meta> DatabaseImpl::log_tail(const Meta& c) {
  ORDO_ASSERT(options_.read_only && c.page_size == page_size_);
  base::MutexLock g(verify_mu_);
  LogCursor& cur = log_cursor_;
  if (cur.epoch != c.log_epoch || cur.checkpoint_txn != c.txn_id) {
    cur = LogCursor{c.log_epoch, c.txn_id, engine::LogPosition::after(c), c};
  }
  // The records after where this handle read up to; the newest and the one
  // before it, in case the newest is not settled.
  Meta newest = cur.last, before = cur.last;
  engine::LogPosition newest_next = cur.next, before_next = cur.next;
  engine::scan_log(*file_, c, cur.next, [&](const engine::LogRecord& r) {
    before = newest;
    before_next = newest_next;
    newest = r.meta;
    newest_next = r.next;
    return true;
  });
  if (newest.txn_id != cur.last.txn_id) {
    ORDO_ASSIGN_OR_RETURN(bool in_flight, file_->commit_in_flight(newest.txn_id));
    if (in_flight) {
      newest = before;
      newest_next = before_next;
    } else {
      // The lock is free: the record is durable, or failed and was put back
      // before the lock went, which a second read tells.
      bool same = false;
      engine::scan_log(*file_, c, before_next, [&](const engine::LogRecord& r) {
        same = r.meta.txn_id == newest.txn_id;
        return false;
      });
      if (!same) {
        return Status::busy("log record of txn " + std::to_string(newest.txn_id) +
                            " changed while it was being checked");
      }
    }
  }
  if (newest.txn_id > c.txn_id && !log_verified_) {
    // The first logged state this handle takes: after a crash of the machine
    // the log may hold commits whose pages never reached the disk, which only
    // a writable open can replay.
    Status intact = check_pinned(newest, nullptr,
                                 [&] { return engine::verify_since(*file_, newest, c.txn_id); });
    if (intact.is_busy()) return intact;  // raced a writer before the pin held
    if (!intact.is_ok()) {
      return Status::needs_recovery(
          "txns " + std::to_string(c.txn_id + 1) + ".." + std::to_string(newest.txn_id) +
          " are in the log after checkpoint txn " + std::to_string(c.txn_id) +
          ", but not all their pages are in the file (" + intact.to_string() +
          "): a writable open replays them (open the database writable once), a read-only "
          "open cannot");
    }
    log_verified_ = true;
  }
  ORDO_ASSERT(newest.txn_id >= c.txn_id && newest_next.offset_bytes % engine::kLogBlockBytes == 0);
  ORDO_ASSERT(newest_next.txn_id == newest.txn_id + 1);
  cur.next = newest_next;
  cur.last = newest;
  return newest;
}

Result<int> DatabaseImpl::trusted_slot(const MetaSlots& slots, int pick, std::string* note) {
  // A one-sync commit is trusted only if every page its txn wrote reads back
  // intact; else the other meta is used. Checked once per txn id.
  ORDO_ASSERT(pick == 0 || pick == 1);  // newest_valid() found one
  base::MutexLock g(verify_mu_);
  const Meta& newest = slots.meta[pick];
  if ((newest.flags & engine::kMetaFlagOneSync) == 0 || newest.txn_id == verified_txn_) {
    return pick;
  }
  // The check reads the txn's pages and, through its free tree, the txn
  // before it: pinned, so a writer in another process cannot reuse them
  // while they are read.
  auto verify = [&] { return engine::verify_slot_commit(*file_, slots, pick); };
  Status intact =
      options_.read_only ? check_pinned(newest, slots.older_valid(pick), verify) : verify();
  if (intact.is_busy()) return intact;  // raced a writer before the pins held
  if (intact.is_ok()) {
    verified_txn_ = newest.txn_id;
    return pick;
  }
  return engine::fall_back_from(slots, pick, intact, note);
}

Meta DatabaseImpl::committed() const {
  base::MutexLock g(state_mu_);
  return committed_;
}

Result<Meta> DatabaseImpl::register_reader() {
  if (!options_.read_only) {
    base::MutexLock g(state_mu_);
    ORDO_ASSERT(committed_.page_size == page_size_);  // published at open
    if (readers_.add(committed_.txn_id)) reader_metas_[committed_.txn_id] = committed_;
    return committed_;
  }
  // Another process may be writing: pin the newest snapshot through a reader
  // slot, then make sure no writer could have started reusing its pages
  // before the slot was taken (that needs two commits past it).
  for (int attempt = 0; attempt < 1000; ++attempt) {
    ORDO_ASSIGN_OR_RETURN(Meta meta, newest_meta_from_file());
    ORDO_RETURN_IF_ERROR(pin_snapshot(meta));
    auto again = newest_meta_from_file();
    if (again.is_ok() && again->txn_id <= meta.txn_id + 1) {
      base::MutexLock g(state_mu_);
      if (meta.txn_id > committed_.txn_id) committed_ = meta;
      return meta;
    }
    unregister_reader(meta.txn_id);
    if (!again.is_ok()) return again.status();
  }
  return Status::busy("could not pin a snapshot: the writer commits faster than it can be read");
}

Status DatabaseImpl::pin_snapshot(const Meta& meta) {
  ORDO_ASSERT(options_.read_only);  // a writable handle's readers need no slot
  base::MutexLock g(state_mu_);
  if (readers_.add(meta.txn_id)) {
    Status s = file_->lock_reader_slot(meta.txn_id);
    if (!s.is_ok()) {
      readers_.remove(meta.txn_id);
      return s;
    }
    reader_metas_[meta.txn_id] = meta;
  }
  return Status::ok();
}

Status DatabaseImpl::check_pinned(const Meta& meta, const Meta* previous,
                                  const std::function<Status()>& check) {
  ORDO_ASSERT(options_.read_only && (previous == nullptr || previous->txn_id < meta.txn_id));
  if (previous != nullptr && previous->txn_id + 1 != meta.txn_id) previous = nullptr;
  const Meta& lowest = previous != nullptr ? *previous : meta;
  ORDO_RETURN_IF_ERROR(pin_snapshot(meta));
  Status pinned = previous != nullptr ? pin_snapshot(*previous) : Status::ok();
  Status result = pinned;
  if (pinned.is_ok()) {
    // A writer reuses the pages of snapshot T once T+2 has committed; past
    // that, the pages may have changed before the pins were taken.
    if (writer_moved_past(lowest.txn_id + 1)) {
      result = Status::busy("a writer committed past txn " + std::to_string(lowest.txn_id + 1) +
                            " before the pages of txn " + std::to_string(meta.txn_id) +
                            " were pinned for their check");
    } else {
      result = check();
    }
    if (previous != nullptr) unregister_reader(previous->txn_id);
  }
  unregister_reader(meta.txn_id);
  return result;
}

void DatabaseImpl::unregister_reader(uint64_t txn_id) {
  base::MutexLock g(state_mu_);
  if (readers_.remove(txn_id)) {
    reader_metas_.erase(txn_id);
    // The slot's lock belongs to the file description a forked child shares
    // with its parent: only the process that took it releases it.
    if (options_.read_only && !in_forked_child()) (void)file_->unlock_reader_slot(txn_id);
  }
}

Status DatabaseImpl::refresh_committed() {
  if (!options_.read_only) return Status::ok();
  ORDO_ASSIGN_OR_RETURN(Meta meta, newest_meta_from_file());
  ORDO_ASSERT(meta.page_size == page_size_);  // newest_meta_once() set others aside
  base::MutexLock g(state_mu_);
  if (meta.txn_id > committed_.txn_id) committed_ = meta;
  return Status::ok();
}

Result<engine::ReuseRule> DatabaseImpl::reuse_rule(uint64_t snapshot_txn) const {
  std::vector<uint64_t> snapshots;
  uint64_t checkpoint_txn = 0;
  std::string held_before;
  Meta state;
  {
    base::MutexLock g(state_mu_);
    state = committed_;
    snapshots = readers_.snapshots();
    checkpoint_txn = log_.checkpoint_txn;
    if (held_entries_.checkpoint_txn == checkpoint_txn && held_entries_.txn_id == snapshot_txn) {
      held_before = held_entries_.before;
    }
  }
  if (state.kept.root != btree::kNullPage) {
    // Kept snapshots hold their pages as readers do.
    engine::SnapshotPages pages(*file_, state.page_size, state.page_high_water,
                                options_.verify_checksums);
    ORDO_ASSIGN_OR_RETURN(std::vector<uint64_t> kept, engine::read_kept_txns(pages, state));
    snapshots.insert(snapshots.end(), kept.begin(), kept.end());
  }
  engine::ReuseRule rule =
      engine::ReuseRule::make(snapshot_txn, checkpoint_txn, std::move(snapshots), *file_);
  rule.skip_entries_before(std::move(held_before));
  return rule;
}

void DatabaseImpl::keep_free_entries_held_before(uint64_t checkpoint_txn, uint64_t txn_id,
                                                 std::string held_before) {
  ORDO_ASSERT(checkpoint_txn <= txn_id);  // The checkpoint the txn's reuse rule counted with.
  base::MutexLock g(state_mu_);
  held_entries_ = HeldEntries{checkpoint_txn, txn_id, std::move(held_before)};
}

void DatabaseImpl::publish(const Meta& meta) {
  ORDO_ASSERT(meta.page_size == page_size_);  // One page size per file.
  base::MutexLock g(state_mu_);
  // A writable handle's commits only move forward.
  ORDO_ASSERT(options_.read_only || meta.txn_id >= committed_.txn_id);
  committed_ = meta;
}

DatabaseImpl::LogState DatabaseImpl::log_state() const {
  base::MutexLock g(state_mu_);
  // The records follow their checkpoint; a read-only handle's committed meta
  // may be past the checkpoint it opened on, never before it.
  ORDO_ASSERT(log_.checkpoint_txn <= committed_.txn_id);
  return log_;
}

LogInfo DatabaseImpl::log_info() const {
  const Meta m = committed();
  LogInfo out;
  ORDO_ASSERT(m.page_size == page_size_);  // publish() keeps one page size
  out.first_page = m.log_first_page;
  out.area_bytes = engine::log_area_bytes(m);
  out.epoch = m.log_epoch;
  out.replayed = replay_note_;
  out.replayed_records = replayed_records_;
  out.replayed_bytes = replayed_bytes_;
  const int slot = engine::slot_of_epoch(m.log_epoch);
  const std::byte* p = file_->data(static_cast<uint64_t>(slot) * m.page_size, m.page_size);
  Meta c;
  std::string text;
  if (p == nullptr || engine::decode_meta(p, &c, &text) != MetaProblem::kNone ||
      c.log_epoch != m.log_epoch) {
    return out;
  }
  out.checkpoint_txn = c.txn_id;
  const engine::LogScan scan = engine::scan_log(*file_, c, engine::LogPosition::after(c),
                                                [](const engine::LogRecord&) { return true; });
  out.records = scan.records;
  out.head_bytes = scan.next.offset_bytes;
  out.last_txn = scan.last_txn;
  return out;
}

void DatabaseImpl::publish_logged(const Meta& meta, const engine::LogPosition& next,
                                  uint64_t held_pages) {
  base::MutexLock g(state_mu_);
  ORDO_DCHECK(meta.log_epoch == committed_.log_epoch && meta.txn_id == committed_.txn_id + 1);
  committed_ = meta;
  // A written record moves the head to the one after it.
  ORDO_ASSERT(replaying_ ? next.offset_bytes == log_.head.offset_bytes
                         : next.offset_bytes > log_.head.offset_bytes &&
                               next.txn_id == meta.txn_id + 1 && next.after_nonce);
  const uint64_t record_bytes = next.offset_bytes - log_.head.offset_bytes;
  log_.head = next;
  log_.record_bytes += record_bytes;
  log_.records++;
  log_.held_pages += held_pages;
  // Records take whole log blocks and stay inside the log area.
  ORDO_ASSERT(record_bytes % engine::kLogBlockBytes == 0);
  ORDO_ASSERT(log_.head.offset_bytes <= engine::log_area_bytes(meta));
  ORDO_ASSERT(log_.record_bytes <= log_.head.offset_bytes);
}

bool DatabaseImpl::checkpoint_due() const {
  base::MutexLock g(state_mu_);
  ORDO_ASSERT(log_.records != 0 || log_.held_pages == 0);  // only logged commits hold pages
  return log_.held_pages >= 256 && log_.held_pages * 16 > committed_.page_high_water;
}

void DatabaseImpl::publish_checkpoint(const Meta& meta) {
  // A checkpoint meta, of this file's page size: logged commits publish_logged().
  ORDO_ASSERT(meta.page_size == page_size_ && (meta.flags & engine::kMetaFlagLogged) == 0);
  base::MutexLock g(state_mu_);
  // Each checkpoint of a writable handle is of a later txn or a later epoch.
  ORDO_ASSERT(options_.read_only ||
              (meta.txn_id >= committed_.txn_id && meta.log_epoch >= committed_.log_epoch));
  committed_ = meta;
  log_ = LogState{meta.txn_id, engine::LogPosition::after(meta), 0, 0};
}

Status DatabaseImpl::checkpoint() {
  const LogState before = log_state();
  Meta m = committed();
  if (before.records == 0 && before.checkpoint_txn == m.txn_id) return Status::ok();
  ORDO_ASSERT(!replaying_ && m.txn_id >= before.checkpoint_txn);
  // Every page of the logged txns durable, then the meta that names them.
  Status s = file_->sync();
  if (!s.is_ok()) {
    poison(s);
    return s.with_context("checkpoint of txn " + std::to_string(m.txn_id));
  }
  m.log_epoch++;
  m.flags = 0;
  m.file_bytes = file_->file_bytes();
  // The txn is committed already (its record is in the log): readers may
  // take this meta before its sync returns, so no commit lock holds them at
  // the txn before it.
  const engine::CommitWriteResult w = engine::write_commit(
      *file_, *page_buffers_, {}, m, CommitProtocol::kTwoSync, true, engine::MetaTxn::kCommitted);
  if (!w.status.is_ok()) {
    if (w.poison) poison(w.status);
    return w.status.with_context("checkpoint of txn " + std::to_string(m.txn_id));
  }
  publish_checkpoint(m);
  return Status::ok();
}

void DatabaseImpl::poison(const Status& s) {
  ORDO_ASSERT(!s.is_ok());
  base::MutexLock g(state_mu_);
  if (poisoned_.is_ok()) poisoned_ = s;
}

Status DatabaseImpl::poisoned() const {
  base::MutexLock g(state_mu_);
  return poisoned_;
}

Status DatabaseImpl::unpoisoned() const {
  const Status s = poisoned();
  if (s.is_ok()) return s;
  return Status::io_error(
      "database handle is unusable after a failed write or sync; reopen: " + s.message(),
      s.errno_value());
}

bool DatabaseImpl::in_forked_child() const { return fork_guard_.in_forked_child(); }

Status DatabaseImpl::check_process() const {
  if (!in_forked_child()) return Status::ok();
  return Status::invalid_argument(
      "this handle was opened by process " + std::to_string(fork_guard_.maker_pid()) +
      "; a forked child may not use it (open the database again in the child)");
}

Status DatabaseImpl::check_writable() const {
  if (options_.read_only) return Status::invalid_argument("database was opened read-only");
  return check_process();
}

}  // namespace ordo
