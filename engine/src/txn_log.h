// TxnLog: the operations of one write txn as its log record carries them
// (docs/FORMAT.md, "Log record operations"), and their replay at open.
//
// Each operation is a kind byte, then its fields, each a u32 length (little-
// endian) and that many bytes: tree name (empty for the default tree), key,
// value, range ends. Only operations that changed the txn's state are
// recorded; replaying them in order on the state the txn started from gives
// the state it committed.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "log_record.h"
#include "ordo/assert.h"
#include "ordo/byte_view.h"
#include "ordo/database.h"
#include "ordo/status.h"

namespace ordo {
class DatabaseImpl;
class WriteTxnImpl;
}  // namespace ordo

namespace ordo::engine {

enum class LogOp : uint8_t {
  kPut = 1,         // tree, key, value
  kAppend = 2,      // tree, key, value
  kDel = 3,         // tree, key
  kDelRange = 4,    // tree, from, end ("" with no end), u8 has_end in its own field
  kCreateTree = 5,  // name
  kDropTree = 6,    // name
  kRenameTree = 7,  // from, to
};

class TxnLog {
 public:
  // Operations past `limit_bytes` are not kept: the txn then commits by a
  // checkpoint instead of a log record (overflowed()). They are written
  // into `record` (the writer's record buffer, DatabaseImpl::record_buffer)
  // after kLogOpsOffset bytes kept for the record's header and meta, so the
  // commit seals them in place (seal_log_record) and a steady stream of
  // txns reuses one buffer. `limit_bytes` 0 (the txn is not logged) leaves
  // `record` untouched. The buffer must outlive the TxnLog and no other
  // TxnLog may use it meanwhile (one write txn at a time).
  TxnLog(uint64_t limit_bytes, std::vector<std::byte>& record);
  // Gives the buffer's memory back when a large txn grew it past
  // kRetainedBytes.
  ~TxnLog();
  TxnLog(const TxnLog&) = delete;
  TxnLog& operator=(const TxnLog&) = delete;

  // Capacity a record buffer keeps from one txn to the next.
  static constexpr uint64_t kRetainedBytes = 4ull << 20;

  void put(std::string_view tree, ByteView key, ByteView value) {
    add(LogOp::kPut, {ByteView(tree), key, value});
  }
  void append(std::string_view tree, ByteView key, ByteView value) {
    add(LogOp::kAppend, {ByteView(tree), key, value});
  }
  void del(std::string_view tree, ByteView key) { add(LogOp::kDel, {ByteView(tree), key}); }
  void del_range(std::string_view tree, const KeyRange& range);
  // Named trees only: the default tree ("") is never created, dropped or
  // renamed (check_tree_name() and WriteTxn refuse it first).
  void create_tree(std::string_view name) {
    ORDO_ASSERT(!name.empty());
    add(LogOp::kCreateTree, {ByteView(name)});
  }
  void drop_tree(std::string_view name) {
    ORDO_ASSERT(!name.empty());
    add(LogOp::kDropTree, {ByteView(name)});
  }
  void rename_tree(std::string_view from, std::string_view to) {
    ORDO_ASSERT(!from.empty() && !to.empty());
    add(LogOp::kRenameTree, {ByteView(from), ByteView(to)});
  }

  // True once the operations outgrew the limit (and are no longer kept).
  bool overflowed() const {
    ORDO_ASSERT(!overflowed_ || ops_bytes() == 0);  // add() drops what it kept
    return overflowed_;
  }
  // 0 when the txn is not logged at all (another protocol).
  uint64_t limit_bytes() const { return limit_bytes_; }
  // Only of a logged txn that kept its operations: the buffer holding them
  // after kLogOpsOffset bytes, for the commit to seal (write_logged_commit).
  std::vector<std::byte>& record() {
    ORDO_ASSERT(limit_bytes_ > 0 && !overflowed_ && record_.size() >= kLogOpsOffset);
    return record_;
  }
  // The operations' bytes.
  uint64_t ops_bytes() const { return limit_bytes_ == 0 ? 0 : record_.size() - kLogOpsOffset; }
  bool empty() const { return ops_bytes() == 0 && !overflowed_; }

  // Savepoints: the operations so far, and a return to them. A log that
  // overflowed since stays overflowed (the txn then commits by a checkpoint,
  // which needs no operations).
  struct Mark {
    size_t bytes;
  };
  Mark mark() const { return Mark{ops_bytes()}; }
  void truncate(Mark m) {
    if (overflowed_ || limit_bytes_ == 0) return;
    ORDO_ASSERT(m.bytes <= ops_bytes());  // operations are only appended
    record_.resize(kLogOpsOffset + m.bytes);
  }

 private:
  void add(LogOp op, std::initializer_list<ByteView> fields);

  const uint64_t limit_bytes_;
  std::vector<std::byte>& record_;
  bool overflowed_ = false;
};

// Applies the operations `ops` of the log record of txn `txn_id` to `txn`.
// Corruption naming the txn when they cannot be decoded or an operation
// does not apply as it did when the txn committed (a del that finds nothing,
// a tree that is not there); the error of the operation otherwise.
Status replay_txn_log(WriteTxnImpl& txn, ByteView ops, uint64_t txn_id);

// True when `ops` decodes into whole operations of known kinds.
bool log_ops_decode(ByteView ops);

struct LogRecord;
// Replays one log record as a write txn of `db` and commits it (while `db`
// replays, a commit writes its pages only). Corruption when the txn id, tree
// count or entry counts that result differ from the record's meta.
Status replay_record(const std::shared_ptr<DatabaseImpl>& db, const LogRecord& record);

}  // namespace ordo::engine
