#include "txn_log.h"

#include <cstring>
#include <vector>

#include "log_record.h"
#include "ordo/assert.h"
#include "ordo/btree/endian.h"
#include "txn_impl.h"
#include "txn_internals.h"

namespace ordo::engine {

TxnLog::TxnLog(uint64_t limit_bytes, std::vector<std::byte>& record)
    : limit_bytes_(limit_bytes), record_(record) {
  // Capacity stays from the txn before: no allocation, no fresh memory.
  if (limit_bytes_ > 0) record_.resize(kLogOpsOffset);
}

TxnLog::~TxnLog() {
  if (limit_bytes_ > 0 && record_.capacity() > kRetainedBytes) {
    std::vector<std::byte>().swap(record_);
  }
}

void TxnLog::add(LogOp op, std::initializer_list<ByteView> fields) {
  if (overflowed_) return;
  uint64_t bytes = 1;
  for (ByteView f : fields) bytes += 4 + f.size();
  if (ops_bytes() + bytes > limit_bytes_) {
    overflowed_ = true;
    if (limit_bytes_ > 0) record_.resize(kLogOpsOffset);
    return;
  }
  const size_t at = record_.size();
  record_.resize(at + bytes);
  std::byte* out = record_.data() + at;
  *out++ = static_cast<std::byte>(op);
  for (ByteView f : fields) {
    btree::store_u32(out, static_cast<uint32_t>(f.size()));
    out += 4;
    if (!f.empty()) std::memcpy(out, f.data(), f.size());
    out += f.size();
  }
  ORDO_ASSERT(out == record_.data() + record_.size());  // every field where its length said
  ORDO_ASSERT(ops_bytes() <= limit_bytes_);             // A record always fits the log area.
}

void TxnLog::del_range(std::string_view tree, const KeyRange& range) {
  const char has_end = range.has_end() ? 1 : 0;
  add(LogOp::kDelRange, {ByteView(tree), range.from(), range.has_end() ? range.end() : ByteView(),
                         ByteView(&has_end, 1)});
}

namespace {

// Reads the fields of one operation from `ops`.
class OpReader {
 public:
  explicit OpReader(ByteView ops) : ops_(ops) {}
  bool done() const {
    ORDO_ASSERT(at_ <= ops_.size());  // kind() and field() check the length before moving on
    return at_ == ops_.size();
  }
  bool kind(LogOp* op) {
    if (at_ >= ops_.size()) return false;
    *op = static_cast<LogOp>(ops_.data()[at_++]);
    return true;
  }
  bool field(ByteView* out) {
    if (ops_.size() - at_ < 4) return false;
    const uint32_t len = btree::load_u32(ops_.data() + at_);
    at_ += 4;
    if (ops_.size() - at_ < len) return false;
    *out = ByteView(ops_.data() + at_, len);
    at_ += len;
    ORDO_ASSERT(at_ <= ops_.size());
    return true;
  }

 private:
  ByteView ops_;
  size_t at_ = 0;
};

std::string name_of(ByteView v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size());
}

// Fields of each operation kind (kDelRange's flag counts as one).
int field_count(LogOp op) {
  switch (op) {
    case LogOp::kPut:
    case LogOp::kAppend:
      return 3;
    case LogOp::kDel:
    case LogOp::kRenameTree:
      return 2;
    case LogOp::kDelRange:
      return 4;
    case LogOp::kCreateTree:
    case LogOp::kDropTree:
      return 1;
  }
  return -1;
}

}  // namespace

bool log_ops_decode(ByteView ops) {
  OpReader r(ops);
  while (!r.done()) {
    LogOp op;
    if (!r.kind(&op)) return false;
    const int n = field_count(op);
    if (n < 0) return false;
    ByteView f;
    for (int i = 0; i < n; ++i) {
      if (!r.field(&f)) return false;
    }
  }
  return true;
}

Status replay_txn_log(WriteTxnImpl& txn, ByteView ops, uint64_t txn_id) {
  const std::string what = "log record of txn " + std::to_string(txn_id);
  auto bad = [&](const std::string& why) { return Status::corruption(what + ": " + why); };
  auto replayed = [&](const Status& s, const char* op) {
    return s.is_ok() ? s : s.with_context(what + ": replaying " + op);
  };
  ORDO_ASSERT(txn.txn_id() == txn_id);  // replay_record() began the txn the record names
  OpReader r(ops);
  DatabaseImpl& db = txn.db();
  while (!r.done()) {
    LogOp op;
    ByteView a, b, c, d;
    if (!r.kind(&op)) return bad("truncated operation");
    switch (op) {
      case LogOp::kPut:
      case LogOp::kAppend: {
        if (!r.field(&a) || !r.field(&b) || !r.field(&c)) return bad("truncated put");
        const Tree tree = db.tree_handle(name_of(a));
        Status s = op == LogOp::kPut ? txn.put(tree, b, c) : txn.append(tree, b, c);
        ORDO_RETURN_IF_ERROR(replayed(s, op == LogOp::kPut ? "a put" : "an append"));
        break;
      }
      case LogOp::kDel: {
        if (!r.field(&a) || !r.field(&b)) return bad("truncated del");
        Status s = txn.del(db.tree_handle(name_of(a)), b);
        if (s.is_not_found()) return bad("a del found no key");
        ORDO_RETURN_IF_ERROR(replayed(s, "a del"));
        break;
      }
      case LogOp::kDelRange: {
        if (!r.field(&a) || !r.field(&b) || !r.field(&c) || !r.field(&d) || d.size() != 1) {
          return bad("truncated del_range");
        }
        const KeyRange range =
            d.data()[0] != std::byte{0} ? KeyRange::between(b, c) : KeyRange::starting_at(b);
        Result<uint64_t> n = txn.del_range(db.tree_handle(name_of(a)), range);
        ORDO_RETURN_IF_ERROR(replayed(n.status(), "a del_range"));
        break;
      }
      case LogOp::kCreateTree: {
        if (!r.field(&a)) return bad("truncated create_tree");
        ORDO_RETURN_IF_ERROR(replayed(txn.create_tree(name_of(a)).status(), "a create_tree"));
        break;
      }
      case LogOp::kDropTree: {
        if (!r.field(&a)) return bad("truncated drop_tree");
        ORDO_RETURN_IF_ERROR(replayed(txn.drop_tree(name_of(a)), "a drop_tree"));
        break;
      }
      case LogOp::kRenameTree: {
        if (!r.field(&a) || !r.field(&b)) return bad("truncated rename_tree");
        ORDO_RETURN_IF_ERROR(replayed(txn.rename_tree(name_of(a), name_of(b)), "a rename_tree"));
        break;
      }
      default:
        return bad("unknown operation " + std::to_string(static_cast<int>(op)));
    }
  }
  return Status::ok();
}

Status replay_record(const std::shared_ptr<DatabaseImpl>& db, const LogRecord& record) {
  const Meta& want = record.meta;
  // Open replays before the handle is shared: nothing else writes meanwhile.
  ORDO_ASSERT(db->replaying());
  const std::string what = "log record of txn " + std::to_string(want.txn_id);
  ORDO_ASSIGN_OR_RETURN(WriteTxn txn, TxnFactory::begin_write(db, WriterGate::Wait::none()));
  ORDO_ASSIGN_OR_RETURN(TxnImpl * impl, TxnInternals::impl(txn));
  auto* writer = static_cast<WriteTxnImpl*>(impl);
  if (writer->txn_id() != want.txn_id) {
    return Status::corruption(what + " follows txn " + std::to_string(writer->txn_id() - 1));
  }
  ORDO_RETURN_IF_ERROR(replay_txn_log(*writer, record.ops, want.txn_id));
  // The IDs the txn issued are in its values already; the generators resume
  // past them.
  db->uuid_generator().observe(want.last_uuid);
  db->id64_generator().observe(Id64{want.last_id64});
  ORDO_RETURN_IF_ERROR(txn.commit());
  const Meta got = db->committed();
  if (got.txn_id != want.txn_id || got.tree_count != want.tree_count ||
      got.default_tree.entries != want.default_tree.entries ||
      got.catalog.entries != want.catalog.entries) {
    return Status::corruption(
        what + " replayed to another state: " + std::to_string(got.default_tree.entries) +
        " entries in the default tree and " + std::to_string(got.tree_count) +
        " named trees, where it recorded " + std::to_string(want.default_tree.entries) + " and " +
        std::to_string(want.tree_count));
  }
  return Status::ok();
}

}  // namespace ordo::engine
