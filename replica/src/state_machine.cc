#include "state_machine.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "applied_index.h"
#include "copy_verify.h"
#include "ordo/assert.h"
#include "ordo/hex.h"
#include "ordo/sys/address.h"
#include "snapshot_fetch.h"

namespace ordo::replica {

namespace fs = std::filesystem;

namespace {

// Errors of the environment: the entry is applied again later. Anything
// else an op meets is the same on every replica (a bad name, a missing tree
// or key) and fails only that batch.
bool is_environment_error(const Status& s) {
  ORDO_ASSERT(!s.is_ok());
  return s.is_io_error() || s.is_full() || s.is_corruption() || s.is_txn_ended() || s.is_busy();
}

Result<Tree> tree_for_write(WriteTxn& txn, const std::string& name) {
  ORDO_ASSERT(name != kSystemTree);  // apply_ops refuses a batch that names it.
  if (name.empty()) return txn.default_tree();
  return txn.create_tree(name);
}

// The tree named `name` for reading, or nullopt when it does not exist.
Result<std::optional<Tree>> tree_for_read(WriteTxn& txn, const std::string& name) {
  ORDO_ASSERT(name != kSystemTree);  // check_guards and apply_ops stop at it.
  if (name.empty()) return std::optional<Tree>(txn.default_tree());
  Result<Tree> tree = txn.open_tree(name);
  if (tree.is_ok()) return std::optional<Tree>(*tree);
  if (tree.status().is_not_found()) return std::optional<Tree>();
  return tree.status();
}

// The value of `key` in tree `name`, or nullopt when the key or tree is missing.
Result<std::optional<std::string>> read_value(WriteTxn& txn, const std::string& name,
                                              const std::string& key) {
  ORDO_ASSIGN_OR_RETURN(std::optional<Tree> tree, tree_for_read(txn, name));
  if (!tree) return std::optional<std::string>();
  ORDO_ASSERT(name.empty() || tree->name() == name);
  Result<ByteView> value = txn.get(*tree, key);
  if (value.is_ok()) return std::optional<std::string>(value->str());
  if (value.status().is_not_found()) return std::optional<std::string>();
  return value.status();
}

// Printable form of a key for messages: bytes outside ASCII 32..126 as \xNN.
std::string printable(const std::string& bytes) {
  std::string out;
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 32 && c < 127 && c != '\\') {
      out.push_back(ch);
    } else {
      out += "\\x";
      out.push_back(hex_digit(c >> 4));
      out.push_back(hex_digit(c));
    }
  }
  ORDO_ASSERT(out.size() >= bytes.size());  // Each byte becomes one or four.
  return out;
}

// Evaluates every guard of `batch` on the state before it: ok, or
// CompareFailed naming the first that fails.
Status check_guards(WriteTxn& txn, const WriteBatch& batch) {
  for (size_t i = 0; i < batch.ops().size(); ++i) {
    const WriteBatch::Op& op = batch.ops()[i];
    const char* what = nullptr;
    switch (op.kind) {
      case WriteBatch::OpKind::kCheckValue:
        what = "check_value";
        break;
      case WriteBatch::OpKind::kCheckAbsent:
        what = "check_absent";
        break;
      case WriteBatch::OpKind::kCheckPresent:
        what = "check_present";
        break;
      default:
        continue;
    }
    if (op.tree == kSystemTree) break;  // apply_ops refuses the batch
    ORDO_ASSIGN_OR_RETURN(std::optional<std::string> value, read_value(txn, op.tree, op.key));
    bool holds = false;
    std::string saw = value ? "a value of " + std::to_string(value->size()) + " bytes" : "absent";
    if (op.kind == WriteBatch::OpKind::kCheckValue) {
      holds = value && *value == op.value;
    } else if (op.kind == WriteBatch::OpKind::kCheckAbsent) {
      holds = !value;
    } else {
      holds = value.has_value();
    }
    ORDO_ASSERT(op.kind == WriteBatch::OpKind::kCheckValue || op.value.empty());
    if (!holds) {
      return Status::compare_failed("op " + std::to_string(i) + " " + what + " tree '" +
                                    printable(op.tree) + "' key '" + printable(op.key) +
                                    "' does not hold (found " + saw + ")");
    }
  }
  return Status::ok();
}

Status apply_ops(WriteTxn& txn, const WriteBatch& batch, std::vector<PrevValue>* prev) {
  for (const WriteBatch::Op& op : batch.ops()) {
    // WriteBatch::decode let through only the kinds the switch handles.
    ORDO_ASSERT(op.kind >= WriteBatch::OpKind::kPut &&
                op.kind <= WriteBatch::OpKind::kCheckPresent);
    if (op.tree == kSystemTree) {
      return Status::invalid_argument("the batch names the system tree " +
                                      std::string(kSystemTree));
    }
    if (prev != nullptr &&
        (op.kind == WriteBatch::OpKind::kPut || op.kind == WriteBatch::OpKind::kDel)) {
      ORDO_ASSIGN_OR_RETURN(std::optional<std::string> value, read_value(txn, op.tree, op.key));
      prev->push_back(PrevValue{op.tree, op.key, value.has_value(), value.value_or("")});
    }
    switch (op.kind) {
      case WriteBatch::OpKind::kPut: {
        ORDO_ASSIGN_OR_RETURN(Tree tree, tree_for_write(txn, op.tree));
        ORDO_RETURN_IF_ERROR(txn.put(tree, op.key, op.value));
        break;
      }
      case WriteBatch::OpKind::kDel: {
        ORDO_ASSIGN_OR_RETURN(std::optional<Tree> tree, tree_for_read(txn, op.tree));
        if (!tree) break;
        Status s = txn.del(*tree, op.key);
        if (!s.is_ok() && !s.is_not_found()) return s;
        break;
      }
      case WriteBatch::OpKind::kDelRange: {
        ORDO_ASSIGN_OR_RETURN(std::optional<Tree> tree, tree_for_read(txn, op.tree));
        if (!tree) break;
        ORDO_RETURN_IF_ERROR(txn.del_range(*tree, op.key, op.value).status());
        break;
      }
      case WriteBatch::OpKind::kCreateTree: {
        ORDO_RETURN_IF_ERROR(txn.create_tree(op.tree).status());
        break;
      }
      case WriteBatch::OpKind::kDropTree: {
        Status s = txn.drop_tree(op.tree);
        if (!s.is_ok() && !s.is_not_found()) return s;
        break;
      }
      case WriteBatch::OpKind::kCheckValue:
      case WriteBatch::OpKind::kCheckAbsent:
      case WriteBatch::OpKind::kCheckPresent:
        break;  // evaluated before any op (check_guards)
    }
  }
  return Status::ok();
}

// One entry's batch in `txn`: its guards, which read the state before it
// (every replica holds it alike), then its ops. `prev` receives the values
// before its puts and dels when the batch asked for them.
Status apply_entry(WriteTxn& txn, const WriteBatch& batch, std::vector<PrevValue>* prev) {
  ORDO_RETURN_IF_ERROR(check_guards(txn, batch));
  return apply_ops(txn, batch, batch.return_prev() ? prev : nullptr);
}

}  // namespace

Result<std::unique_ptr<ReplicaStateMachine>> ReplicaStateMachine::open(
    const StateMachineOptions& options) {
  std::unique_ptr<ReplicaStateMachine> sm(new ReplicaStateMachine(options));
  std::error_code ec;
  // Whatever is there was in transit when the process stopped.
  fs::remove_all(sm->copies_dir(), ec);
  fs::create_directories(sm->copies_dir(), ec);
  if (ec) return Status::io_error("create " + sm->copies_dir() + ": " + ec.message(), ec.value());
  ORDO_RETURN_IF_ERROR(sm->open_database());
  ORDO_ASSERT(sm->db_ != nullptr && sm->sync_fd_ >= 0);
  return sm;
}

ReplicaStateMachine::ReplicaStateMachine(StateMachineOptions options)
    : options_(std::move(options)),
      db_path_(options_.dir + "/" + std::string(kDatabaseFile)),
      history_(options_.watch_history_bytes) {
  options_.db_options.sync_commits = false;
  options_.db_options.read_only = false;
  options_.db_options.create_if_missing = true;
}

ReplicaStateMachine::~ReplicaStateMachine() { close_database(); }

std::string ReplicaStateMachine::copies_dir() const {
  return options_.dir + "/" + std::string(kCopiesDir);
}

Status ReplicaStateMachine::open_database() {
  // Opened only when closed: a descriptor left open here would leak.
  ORDO_ASSERT(sync_fd_ < 0);
  ORDO_ASSIGN_OR_RETURN(db_, Database::open(db_path_, options_.db_options));
  // fdatasync syncs the file's data whichever descriptor names it.
  sync_fd_ = ::open(db_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (sync_fd_ < 0) {
    int err = errno;
    db_.reset();
    return Status::io_error("open " + db_path_ + " for fdatasync", err);
  }
  max_key_bytes_.store(db_->max_key_bytes());
  max_value_bytes_.store(db_->max_value_bytes());
  ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db_->begin_read());
  ORDO_ASSIGN_OR_RETURN(uint64_t applied, read_applied_index(txn));
  // A reopen after an IOError keeps the history (the file holds what it
  // recorded); an open or an install starts it at the file's index.
  if (applied != applied_index_.load() || applied == 0) history_.reset(applied);
  applied_index_.store(applied);
  ORDO_ASSERT(db_ != nullptr && sync_fd_ >= 0);
  return Status::ok();
}

void ReplicaStateMachine::close_database() {
  if (sync_fd_ >= 0) ::close(sync_fd_);
  sync_fd_ = -1;
  db_.reset();
}

std::string ReplicaStateMachine::apply_error() const {
  std::lock_guard lock(apply_error_mu_);
  return apply_error_;
}

Status ReplicaStateMachine::reopen_database() {
  std::unique_lock lock(install_mu_);
  close_database();
  ORDO_ASSERT(db_ == nullptr && sync_fd_ < 0);
  return open_database().with_context("reopen " + db_path_);
}

ApplyOutcome ReplicaStateMachine::apply(uint64_t index, ByteView entry) {
  ORDO_ASSERT(index >= 1);  // Raft numbers its log from 1; 0 means "none applied".
  ApplyOutcome outcome = apply_once(index, entry);
  // Unless it is to be retried, the entry is in the file (applied, or its
  // batch dropped with the index recorded).
  ORDO_ASSERT(outcome.retry || applied_index_.load() >= index);
  if (outcome.retry) {
    std::lock_guard lock(apply_error_mu_);
    apply_error_ = "entry " + std::to_string(index) + ": " + outcome.status.to_string();
  } else {
    note_apply_resumed(index);
  }
  return outcome;
}

void ReplicaStateMachine::note_apply_resumed(uint64_t index) {
  std::lock_guard lock(apply_error_mu_);
  if (apply_error_.empty()) return;
  // The failure's own line comes from the Raft side (at most one a second).
  std::fprintf(stderr, "ordo replica %s: applies resumed at entry %llu\n", db_path_.c_str(),
               static_cast<unsigned long long>(index));
  apply_error_.clear();
}

Status ReplicaStateMachine::apply_batch(std::vector<BatchEntry>& entries) {
  ORDO_ASSERT(!entries.empty());
  if (install_pending()) return Status::busy("a snapshot install is pending");
  if (db_ == nullptr) return Status::io_error("database not open", 0);  // apply() reopens it
  ORDO_ASSIGN_OR_RETURN(WriteTxn txn, db_->begin_write());
  // The decoded batches of the entries applied, for the watch history.
  std::vector<std::optional<WriteBatch>> applied(entries.size());
  const uint64_t applied_before = applied_index_.load();
  uint64_t last = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    BatchEntry& e = entries[i];
    // Command entries in log order (barriers and configuration entries in
    // between never come here).
    ORDO_ASSERT(e.index >= 1 && (i == 0 || e.index > entries[i - 1].index));
    e.outcome = ApplyOutcome{};
    // Replay after a restart: the file already holds this entry.
    if (e.index <= applied_before) continue;
    last = e.index;
    Result<WriteBatch> batch = WriteBatch::decode(ByteView(e.entry));
    Status outcome = batch.status();
    if (batch.is_ok()) {
      // Each entry's changes can be dropped alone: a failed guard or a
      // refused op leaves the entries before it in the commit.
      ORDO_ASSIGN_OR_RETURN(const Savepoint sp, txn.savepoint());
      outcome = apply_entry(txn, *batch, &e.outcome.prev);
      if (!outcome.is_ok()) {
        if (is_environment_error(outcome)) return outcome;
        ORDO_RETURN_IF_ERROR(txn.rollback_to(sp));
        e.outcome.prev.clear();
      }
      ORDO_RETURN_IF_ERROR(txn.release(sp));
      if (outcome.is_ok()) applied[i] = std::move(*batch);
    }
    e.outcome.status = std::move(outcome);
  }
  if (last == 0) return Status::ok();  // every entry a replay
  ORDO_RETURN_IF_ERROR(write_applied_index(txn, last));
  ORDO_RETURN_IF_ERROR(txn.commit());
  // Entries apply in log order, each once: the applied index only rises.
  ORDO_ASSERT(last > applied_index_.load());
  // The history first: whoever sees the applied index finds its changes.
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].index > applied_before) {
      history_.record(entries[i].index, applied[i] ? &*applied[i] : nullptr);
    }
  }
  applied_index_.store(last);
  note_apply_resumed(last);
  return Status::ok();
}

ApplyOutcome ReplicaStateMachine::apply_once(uint64_t index, ByteView entry) {
  // Replay after a restart: the ordo file already holds this entry.
  if (index <= applied_index_.load()) return ApplyOutcome{false, Status::ok()};
  if (install_pending()) return ApplyOutcome{true, Status::busy("a snapshot install is pending")};
  if (db_ == nullptr) {
    Status reopened = reopen_database();
    if (!reopened.is_ok()) return ApplyOutcome{true, reopened};
  }
  ORDO_ASSERT(db_ != nullptr);

  Result<WriteBatch> batch = WriteBatch::decode(entry);
  Status outcome = batch.status();
  Result<WriteTxn> txn = db_->begin_write();
  if (!txn.is_ok() && txn.status().is_io_error()) {
    // A commit that failed with IOError left the handle refusing writes
    // until the file is opened again.
    Status reopened = reopen_database();
    if (!reopened.is_ok()) return ApplyOutcome{true, reopened};
    txn = db_->begin_write();
  }
  if (!txn.is_ok()) return ApplyOutcome{true, txn.status()};
  std::vector<PrevValue> prev;
  if (batch.is_ok()) {
    outcome = apply_entry(*txn, *batch, &prev);
    if (!outcome.is_ok()) {
      if (is_environment_error(outcome)) return ApplyOutcome{true, outcome};
      // Deterministic failure: drop the batch's changes, record the index only.
      txn->abort();
      prev.clear();
      txn = db_->begin_write();
      if (!txn.is_ok()) return ApplyOutcome{true, txn.status()};
    }
  }
  Status s = write_applied_index(*txn, index);
  if (s.is_ok()) s = txn->commit();
  if (!s.is_ok()) return ApplyOutcome{true, s};
  // Entries apply in log order, each once: the applied index only rises.
  ORDO_ASSERT(index > applied_index_.load());
  // The history first: whoever sees the applied index finds its changes.
  history_.record(index, outcome.is_ok() ? &*batch : nullptr);
  applied_index_.store(index);
  return ApplyOutcome{false, outcome, std::move(prev)};
}

Result<std::string> ReplicaStateMachine::snapshot() {
  if (install_pending()) return Status::busy("a snapshot install is pending");
  if (db_ == nullptr) return Status::io_error("database not open", 0);
  // Raft drops the log entries the snapshot covers once it returns: the
  // commits that applied them (made without fdatasync) become durable here.
  ORDO_ASSERT(sync_fd_ >= 0);  // Open with db_ (open_database).
  SnapshotRecord record;
  record.applied_index = applied_index_.load();
  record.cluster_id = own_cluster_id();
  // With no install pending, the file holds every snapshot recorded so far.
  ORDO_ASSERT(record.applied_index >= snapshot_index_.load());
  if (::fdatasync(sync_fd_) != 0) return Status::io_error("fdatasync " + db_path_, errno);
  snapshot_index_.store(record.applied_index);
  snapshots_taken_.fetch_add(1);
  return record.encode();
}

Status ReplicaStateMachine::restore(ByteView record_bytes, const std::string& leader_address) {
  ORDO_ASSIGN_OR_RETURN(SnapshotRecord record, SnapshotRecord::decode(record_bytes));
  const ClusterId own = own_cluster_id();
  if (record.cluster_id.known() && own.known() && record.cluster_id != own) {
    return Status::invalid_argument("snapshot record of cluster " + record.cluster_id.hex() +
                                    ", this replica is in cluster " + own.hex());
  }
  if (record.applied_index <= applied_index_.load()) {
    // Startup, or a snapshot this replica is already past: the file holds it.
    if (record.applied_index > snapshot_index_.load()) snapshot_index_.store(record.applied_index);
    return Status::ok();
  }
  if (leader_address.empty()) {
    // At startup (no leader known yet) with the file behind its newest
    // snapshot: a crash during an install, or commits lost with the page
    // cache. Raft will not apply the entries the record covers again, so a
    // copy is fetched before the first apply.
    pending_index_.store(record.applied_index);
    snapshot_index_.store(record.applied_index);
    return Status::ok();
  }
  Status fetched = fetch_and_install(leader_address, record.applied_index);
  if (!fetched.is_ok()) {
    // Raft counts the record installed whatever this returns (libraft 0.15
    // has moved its log past the entries the record covers): the file must
    // reach it before the next apply, from whoever serves a copy.
    pending_index_.store(std::max(pending_index_.load(), record.applied_index));
    snapshot_index_.store(record.applied_index);
    note_install_failed(fetched);
    return fetched;
  }
  ORDO_ASSERT(applied_index_.load() >= record.applied_index);
  snapshot_index_.store(record.applied_index);
  // The install may also settle one left pending at startup.
  if (applied_index_.load() >= pending_index_.load()) pending_index_.store(0);
  note_install_done();
  return Status::ok();
}

void ReplicaStateMachine::note_install_failed(const Status& why) {
  ORDO_ASSERT(!why.is_ok());
  // The file stays what it was: open (a failed install reopens it).
  ORDO_ASSERT(install_pending());
  install_failures_.fetch_add(1);
  std::lock_guard lock(install_error_mu_);
  install_error_ = why.to_string();
}

void ReplicaStateMachine::note_install_done() {
  ORDO_ASSERT(db_ != nullptr && applied_index_.load() >= snapshot_index_.load());
  std::lock_guard lock(install_error_mu_);
  install_error_.clear();
}

std::string ReplicaStateMachine::install_error() const {
  std::lock_guard lock(install_error_mu_);
  return install_error_;
}

Status ReplicaStateMachine::finish_install(const std::vector<std::string>& sources) {
  const uint64_t min_index = pending_index_.load();
  if (min_index == 0) return Status::ok();
  Status last = Status::not_found("no other member to fetch a snapshot copy from");
  for (const std::string& source : sources) {
    last = fetch_and_install(source, min_index);
    if (last.is_ok()) {
      ORDO_ASSERT(applied_index_.load() >= min_index);
      pending_index_.store(0);
      note_install_done();
      return Status::ok();
    }
  }
  last = last.with_context("pending install of snapshot " + std::to_string(min_index));
  note_install_failed(last);
  return last;
}

Status ReplicaStateMachine::fetch_and_install(const std::string& source, uint64_t min_index) {
  ORDO_ASSERT(min_index >= 1);  // Above an applied index, or a pending one (never 0).
  ORDO_ASSIGN_OR_RETURN(std::string from, snapshot_address(source));
  ORDO_ASSIGN_OR_RETURN(sys::HostPort hp, sys::parse_address(from));
  // One install at a time (Raft thread): a fixed name.
  const std::string path = copies_dir() + "/install.ordo";
  Result<FetchedCopy> copy =
      fetch_copy(hp, path, options_.fetch_timeout, own_cluster_id(), options_.fetch_tls.get());
  Status s = copy.status();
  if (s.is_ok() && copy->applied_index < min_index) {
    s = Status::busy("the copy holds applied index " + std::to_string(copy->applied_index) +
                     ", the snapshot needs " + std::to_string(min_index));
  }
  if (s.is_ok()) s = verify_copy(path, copy->size_bytes, copy->xxh3);
  if (s.is_ok()) s = check_copy(path);
  if (s.is_ok()) {
    // Every ReadView and copy being served ends before the file is replaced.
    std::unique_lock lock(install_mu_);
    s = replace_database(path, copy->applied_index);
    // A failed install leaves the file as it was unless the rename happened:
    // reopen whichever is in place, so the replica goes on serving reads and
    // Raft retries the snapshot.
    if (!s.is_ok() && db_ == nullptr) (void)open_database();
  }
  ::unlink(path.c_str());
  if (!s.is_ok()) return s.with_context("install a snapshot copy from " + from);
  // replace_database checked the file's index against the copy's, itself >= min_index.
  ORDO_ASSERT(db_ != nullptr && applied_index_.load() >= min_index);
  snapshots_installed_.fetch_add(1);
  return Status::ok();
}

Status ReplicaStateMachine::replace_database(const std::string& copy_path, uint64_t applied_index) {
  ORDO_ASSERT(copy_path != db_path_);
  close_database();
  // The copy is fsynced and lies on the same filesystem: a rename installs it.
  if (::rename(copy_path.c_str(), db_path_.c_str()) != 0) {
    return Status::io_error("rename " + copy_path, errno);
  }
  ORDO_RETURN_IF_ERROR(sync_dir(options_.dir));
  ORDO_RETURN_IF_ERROR(open_database());
  ORDO_ASSERT(db_ != nullptr);
  if (applied_index_.load() != applied_index) {
    return Status::corruption("installed copy holds applied index " +
                              std::to_string(applied_index_.load()) + ", its server said " +
                              std::to_string(applied_index));
  }
  return Status::ok();
}

Result<uint64_t> ReplicaStateMachine::make_copy(int fd) {
  ORDO_ASSIGN_OR_RETURN(View view, begin_view());
  ORDO_RETURN_IF_ERROR(view.txn.copy_to_fd(fd).status().with_context("copy the database"));
  return view.applied_index;
}

Result<ReplicaStateMachine::View> ReplicaStateMachine::begin_view() {
  std::shared_lock lock(install_mu_);
  if (db_ == nullptr) return Status::io_error("database not open (a snapshot install failed)", 0);
  ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db_->begin_read());
  ORDO_ASSIGN_OR_RETURN(uint64_t applied, read_applied_index(txn));
  ORDO_ASSERT(lock.owns_lock());  // Held while the view lives: no install under it.
  return View{std::move(lock), std::move(txn), applied};
}

}  // namespace ordo::replica
