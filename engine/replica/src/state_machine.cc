#include "state_machine.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "address.h"
#include "applied_index.h"
#include "copy_verify.h"
#include "snapshot_fetch.h"

namespace ordo::replica {

namespace fs = std::filesystem;

namespace {

// Errors of the environment: the entry is applied again later. Anything
// else an op meets is the same on every replica (a bad name, a missing tree
// or key) and fails only that batch.
bool is_environment_error(const Status& s) {
  return s.is_io_error() || s.is_full() || s.is_corruption() || s.is_txn_ended() ||
         s.is_busy();
}

Result<Tree> tree_for_write(WriteTxn& txn, const std::string& name) {
  if (name.empty()) return txn.default_tree();
  return txn.create_tree(name);
}

Status apply_ops(WriteTxn& txn, const WriteBatch& batch) {
  for (const WriteBatch::Op& op : batch.ops()) {
    if (op.tree == kSystemTree) {
      return Status::invalid_argument("the batch names the system tree " + std::string(kSystemTree));
    }
    switch (op.kind) {
      case WriteBatch::OpKind::kPut: {
        ORDO_ASSIGN_OR_RETURN(Tree tree, tree_for_write(txn, op.tree));
        ORDO_RETURN_IF_ERROR(txn.put(tree, op.key, op.value));
        break;
      }
      case WriteBatch::OpKind::kDel: {
        Result<Tree> tree = op.tree.empty() ? Result<Tree>(txn.default_tree()) : txn.open_tree(op.tree);
        if (!tree.is_ok()) {
          if (tree.status().is_not_found()) break;
          return tree.status();
        }
        Status s = txn.del(*tree, op.key);
        if (!s.is_ok() && !s.is_not_found()) return s;
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
    }
  }
  return Status::ok();
}

// Copies `from` to `to` (replacing it) and fsyncs `to`.
Status copy_file_synced(const std::string& from, const std::string& to) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Status::io_error("open " + from, errno);
  int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    int err = errno;
    ::close(in);
    return Status::io_error("create " + to, err);
  }
  std::vector<char> buf(1 << 20);
  Status s;
  for (;;) {
    ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      s = Status::io_error("read " + from, errno);
      break;
    }
    if (n == 0) break;
    ssize_t done = 0;
    while (done < n) {
      ssize_t w = ::write(out, buf.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        s = errno == ENOSPC ? Status::full("write " + to) : Status::io_error("write " + to, errno);
        break;
      }
      done += w;
    }
    if (!s.is_ok()) break;
  }
  if (s.is_ok() && ::fsync(out) != 0) s = Status::io_error("fsync " + to, errno);
  ::close(in);
  ::close(out);
  if (!s.is_ok()) ::unlink(to.c_str());
  return s;
}

}  // namespace

Result<std::unique_ptr<ReplicaStateMachine>> ReplicaStateMachine::open(
    const StateMachineOptions& options) {
  std::unique_ptr<ReplicaStateMachine> sm(new ReplicaStateMachine(options));
  std::error_code ec;
  fs::create_directories(sm->copies_dir(), ec);
  if (ec) return Status::io_error("create " + sm->copies_dir() + ": " + ec.message(), ec.value());
  ORDO_RETURN_IF_ERROR(sm->open_database());
  return sm;
}

ReplicaStateMachine::ReplicaStateMachine(StateMachineOptions options)
    : options_(std::move(options)), db_path_(options_.dir + "/" + std::string(kDatabaseFile)) {
  options_.db_options.sync_commits = false;
  options_.db_options.read_only = false;
  options_.db_options.create_if_missing = true;
}

std::string ReplicaStateMachine::copies_dir() const {
  return options_.dir + "/" + std::string(kCopiesDir);
}

Status ReplicaStateMachine::open_database() {
  ORDO_ASSIGN_OR_RETURN(db_, Database::open(db_path_, options_.db_options));
  max_key_bytes_.store(db_->max_key_bytes());
  max_value_bytes_.store(db_->max_value_bytes());
  ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db_->begin_read());
  ORDO_ASSIGN_OR_RETURN(uint64_t applied, read_applied_index(txn));
  applied_index_.store(applied);
  return Status::ok();
}

ApplyOutcome ReplicaStateMachine::apply(uint64_t index, ByteView entry) {
  // Replay after a restart: the ordo file already holds this entry.
  if (index <= applied_index_.load()) return ApplyOutcome{false, Status::ok()};
  if (db_ == nullptr) return ApplyOutcome{true, Status::io_error("database not open", 0)};

  Result<WriteBatch> batch = WriteBatch::decode(entry);
  Status outcome = batch.status();
  Result<WriteTxn> txn = db_->begin_write();
  if (!txn.is_ok()) return ApplyOutcome{true, txn.status()};
  if (batch.is_ok()) {
    outcome = apply_ops(*txn, *batch);
    if (!outcome.is_ok()) {
      if (is_environment_error(outcome)) return ApplyOutcome{true, outcome};
      // Deterministic failure: drop the batch's changes, record the index only.
      txn->abort();
      txn = db_->begin_write();
      if (!txn.is_ok()) return ApplyOutcome{true, txn.status()};
    }
  }
  Status s = write_applied_index(*txn, index);
  if (s.is_ok()) s = txn->commit();
  if (!s.is_ok()) return ApplyOutcome{true, s};
  applied_index_.store(index);
  return ApplyOutcome{false, outcome};
}

Result<std::string> ReplicaStateMachine::snapshot() {
  if (db_ == nullptr) return Status::io_error("database not open", 0);
  ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db_->begin_read());
  ORDO_ASSIGN_OR_RETURN(uint64_t applied, read_applied_index(txn));
  SnapshotRecord record;
  record.applied_index = applied;
  record.copy_name = copy_name_for(applied);
  const std::string path = copies_dir() + "/" + record.copy_name;
  // A copy of this applied index exists already (an earlier snapshot or an
  // installed copy): the same state, reused. Only finished copies carry the
  // final name (copy_to and the fetch both rename into place).
  if (!fs::exists(path)) {
    Result<CopyResult> copied = txn.copy_to(path);
    if (!copied.is_ok()) return copied.status().with_context("snapshot copy");
  }
  txn.abort();
  ORDO_ASSIGN_OR_RETURN(FileDigest digest, digest_file(path));
  record.size_bytes = digest.size_bytes;
  record.xxh3 = digest.xxh3;
  snapshot_index_.store(applied);
  snapshots_taken_.fetch_add(1);
  prune_copies();
  return record.encode();
}

Status ReplicaStateMachine::restore(ByteView record_bytes, const std::string& leader_address) {
  ORDO_ASSIGN_OR_RETURN(SnapshotRecord record, SnapshotRecord::decode(record_bytes));
  if (record.applied_index <= applied_index_.load()) {
    // Startup, or a snapshot this replica is already past: the file holds it.
    if (record.applied_index > snapshot_index_.load()) snapshot_index_.store(record.applied_index);
    return Status::ok();
  }
  ORDO_RETURN_IF_ERROR(obtain_copy(record, leader_address));
  ORDO_RETURN_IF_ERROR(install(copies_dir() + "/" + record.copy_name, record.applied_index));
  snapshot_index_.store(record.applied_index);
  snapshots_installed_.fetch_add(1);
  prune_copies();
  return Status::ok();
}

Status ReplicaStateMachine::obtain_copy(const SnapshotRecord& record,
                                        const std::string& leader_address) {
  const std::string path = copies_dir() + "/" + record.copy_name;
  if (verify_copy(path, record.size_bytes, record.xxh3).is_ok()) return Status::ok();
  if (leader_address.empty()) {
    return Status::not_found("copy " + record.copy_name + " is not here and no leader is known");
  }
  ORDO_ASSIGN_OR_RETURN(std::string from, snapshot_address(leader_address));
  ORDO_ASSIGN_OR_RETURN(HostPort hp, parse_address(from));
  const std::string tmp = path + ".tmp";
  Status s = fetch_copy(hp, record.copy_name, tmp, options_.fetch_timeout);
  if (s.is_ok()) s = verify_copy(tmp, record.size_bytes, record.xxh3);
  if (s.is_ok()) s = check_copy(tmp);
  if (s.is_ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    s = Status::io_error("rename " + tmp, errno);
  }
  if (!s.is_ok()) {
    ::unlink(tmp.c_str());
    return s.with_context("fetch snapshot copy from " + from);
  }
  return sync_dir(copies_dir());
}

Status ReplicaStateMachine::install(const std::string& copy_path, uint64_t applied_index) {
  // Every ReadView ends before the file is replaced.
  std::unique_lock lock(install_mu_);
  Status s = replace_database(copy_path, applied_index);
  // A failed install leaves the file in place as it was (the rename is the
  // one step that changes it): reopen it, so the replica goes on serving
  // reads and Raft retries the snapshot.
  if (!s.is_ok() && db_ == nullptr) (void)open_database();
  return s;
}

Status ReplicaStateMachine::replace_database(const std::string& copy_path, uint64_t applied_index) {
  db_.reset();
  const std::string tmp = db_path_ + ".tmp";
  ORDO_RETURN_IF_ERROR(copy_file_synced(copy_path, tmp));
  if (::rename(tmp.c_str(), db_path_.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::io_error("rename " + tmp, err);
  }
  ORDO_RETURN_IF_ERROR(sync_dir(options_.dir));
  ORDO_RETURN_IF_ERROR(open_database());
  if (applied_index_.load() != applied_index) {
    return Status::corruption("installed copy holds applied index " +
                              std::to_string(applied_index_.load()) + ", its record says " +
                              std::to_string(applied_index));
  }
  return Status::ok();
}

void ReplicaStateMachine::prune_copies() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(copies_dir(), ec)) {
    std::string name = e.path().filename().string();
    if (is_copy_name(name)) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());  // fixed-width digits: index order
  const size_t keep = static_cast<size_t>(options_.copies_kept) + 1;
  for (size_t i = 0; i + keep < names.size(); ++i) {
    fs::remove(copies_dir() + "/" + names[i], ec);
  }
}

Result<ReplicaStateMachine::View> ReplicaStateMachine::begin_view() {
  std::shared_lock lock(install_mu_);
  if (db_ == nullptr) return Status::io_error("database not open (a snapshot install failed)", 0);
  ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db_->begin_read());
  ORDO_ASSIGN_OR_RETURN(uint64_t applied, read_applied_index(txn));
  return View{std::move(lock), std::move(txn), applied};
}

}  // namespace ordo::replica
