// WriteBatch: building, encoding and decoding the log entry of one batch.
#include <string>

#include "codec.h"
#include "ordo/assert.h"
#include "ordo/replica.h"

namespace ordo::replica {

namespace {

using Kind = WriteBatch::OpKind;

constexpr uint8_t kVersion1 = 1;  // the first four op kinds, no flags
constexpr uint8_t kVersion2 = 2;  // a flags byte; guards and range deletes
constexpr uint8_t kFlagReturnPrev = 1;
constexpr uint8_t kKnownFlags = kFlagReturnPrev;
constexpr uint8_t kLastKind = static_cast<uint8_t>(Kind::kCheckPresent);

bool has_key(Kind kind) {
  ORDO_ASSERT(kind >= Kind::kPut && kind <= Kind::kCheckPresent);
  return kind != Kind::kCreateTree && kind != Kind::kDropTree;
}

bool has_value(Kind kind) {
  return kind == Kind::kPut || kind == Kind::kDelRange || kind == Kind::kCheckValue;
}

bool is_v2_kind(Kind kind) { return kind > Kind::kDropTree; }

size_t op_bytes(const WriteBatch::Op& op) {
  // encode() writes a key and a value only for the kinds that have them.
  ORDO_ASSERT((has_key(op.kind) || op.key.empty()) && (has_value(op.kind) || op.value.empty()));
  size_t n = 1 + codec::varint_bytes(op.tree.size()) + op.tree.size();
  if (has_key(op.kind)) n += codec::varint_bytes(op.key.size()) + op.key.size();
  if (has_value(op.kind)) n += codec::varint_bytes(op.value.size()) + op.value.size();
  return n;
}

}  // namespace

// Each mutator keeps encoded_bytes_ equal to encode().size(): the op's bytes
// plus any growth of the op count's varint. Every op takes at least two bytes
// (decode() bounds the op count by that).
#define ORDO_REPLICA_ADD_OP(op_expr)                                                             \
  do {                                                                                           \
    Op op_ = (op_expr);                                                                          \
    encoded_bytes_ +=                                                                            \
        op_bytes(op_) + codec::varint_bytes(ops_.size() + 1) - codec::varint_bytes(ops_.size()); \
    if (is_v2_kind(op_.kind)) ++v2_ops_;                                                         \
    ops_.push_back(std::move(op_));                                                              \
    ORDO_ASSERT(encoded_bytes_ >= 2 + 2 * ops_.size());                                          \
  } while (0)

void WriteBatch::put(std::string_view tree, ByteView key, ByteView value) {
  ORDO_REPLICA_ADD_OP((Op{OpKind::kPut, std::string(tree), key.str(), value.str()}));
}

void WriteBatch::del(std::string_view tree, ByteView key) {
  ORDO_REPLICA_ADD_OP((Op{OpKind::kDel, std::string(tree), key.str(), {}}));
}

void WriteBatch::create_tree(std::string_view tree) {
  ORDO_REPLICA_ADD_OP((Op{OpKind::kCreateTree, std::string(tree), {}, {}}));
}

void WriteBatch::drop_tree(std::string_view tree) {
  ORDO_REPLICA_ADD_OP((Op{OpKind::kDropTree, std::string(tree), {}, {}}));
}

void WriteBatch::del_range(std::string_view tree, ByteView first, ByteView end) {
  ORDO_REPLICA_ADD_OP((Op{OpKind::kDelRange, std::string(tree), first.str(), end.str()}));
}

void WriteBatch::check_value(std::string_view tree, ByteView key, ByteView expected) {
  ORDO_REPLICA_ADD_OP((Op{OpKind::kCheckValue, std::string(tree), key.str(), expected.str()}));
}

void WriteBatch::check_absent(std::string_view tree, ByteView key) {
  ORDO_REPLICA_ADD_OP((Op{OpKind::kCheckAbsent, std::string(tree), key.str(), {}}));
}

void WriteBatch::check_present(std::string_view tree, ByteView key) {
  ORDO_REPLICA_ADD_OP((Op{OpKind::kCheckPresent, std::string(tree), key.str(), {}}));
}

#undef ORDO_REPLICA_ADD_OP

void WriteBatch::set_return_prev(bool on) { return_prev_ = on; }

std::string WriteBatch::encode() const {
  std::string out;
  if (needs_v2()) {
    out.push_back(static_cast<char>(kVersion2));
    out.push_back(static_cast<char>(return_prev_ ? kFlagReturnPrev : 0));
  } else {
    out.push_back(static_cast<char>(kVersion1));
  }
  codec::put_varint(out, ops_.size());
  for (const Op& op : ops_) {
    out.push_back(static_cast<char>(op.kind));
    codec::put_varint(out, op.tree.size());
    out += op.tree;
    if (has_key(op.kind)) {
      codec::put_varint(out, op.key.size());
      out += op.key;
    }
    if (has_value(op.kind)) {
      codec::put_varint(out, op.value.size());
      out += op.value;
    }
  }
  ORDO_ASSERT(out.size() == encoded_bytes());  // The mutators' and decode's count.
  return out;
}

Result<WriteBatch> WriteBatch::decode(ByteView bytes) {
  codec::Reader in(bytes.view());
  uint8_t version = 0;
  if (!in.get_u8(version)) return Status::invalid_argument("write batch: empty entry");
  if (version != kVersion1 && version != kVersion2) {
    return Status::invalid_argument("write batch: unknown version " + std::to_string(version));
  }
  WriteBatch batch;
  if (version == kVersion2) {
    uint8_t flags = 0;
    if (!in.get_u8(flags)) return Status::invalid_argument("write batch: truncated flags");
    if ((flags & ~kKnownFlags) != 0) {
      return Status::invalid_argument("write batch: unknown flags " + std::to_string(flags));
    }
    batch.return_prev_ = (flags & kFlagReturnPrev) != 0;
  }
  uint64_t count = 0;
  if (!in.get_varint(count)) return Status::invalid_argument("write batch: truncated op count");
  // Every op takes at least 2 bytes (kind, tree length): a count beyond that
  // is a damaged entry, and must not size an allocation.
  if (count > in.remaining() / 2) {
    return Status::invalid_argument("write batch: op count " + std::to_string(count) +
                                    " exceeds the entry's bytes");
  }
  batch.ops_.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    const std::string at = " (op " + std::to_string(i) + ")";
    uint8_t kind_byte = 0;
    if (!in.get_u8(kind_byte))
      return Status::invalid_argument("write batch: truncated op kind" + at);
    const uint8_t last = version == kVersion1 ? static_cast<uint8_t>(Kind::kDropTree) : kLastKind;
    if (kind_byte < 1 || kind_byte > last) {
      return Status::invalid_argument("write batch: unknown op kind " + std::to_string(kind_byte) +
                                      at);
    }
    Op op{static_cast<OpKind>(kind_byte), {}, {}, {}};
    if (!in.get_prefixed(op.tree))
      return Status::invalid_argument("write batch: truncated tree name" + at);
    if (has_key(op.kind) && !in.get_prefixed(op.key)) {
      return Status::invalid_argument("write batch: truncated key" + at);
    }
    if (has_value(op.kind) && !in.get_prefixed(op.value)) {
      return Status::invalid_argument("write batch: truncated value" + at);
    }
    batch.encoded_bytes_ += op_bytes(op);
    if (is_v2_kind(op.kind)) ++batch.v2_ops_;
    batch.ops_.push_back(std::move(op));
  }
  if (!in.done()) {
    return Status::invalid_argument("write batch: " + std::to_string(in.remaining()) +
                                    " bytes after the last op");
  }
  // One encoding per batch: what version 1 can hold is written as version 1.
  if (version == kVersion2 && !batch.needs_v2()) {
    return Status::invalid_argument(
        "write batch: a version 2 entry without version 2 ops or flags");
  }
  batch.encoded_bytes_ += codec::varint_bytes(count) - 1;
  ORDO_ASSERT(batch.ops_.size() == count);
  return batch;
}

}  // namespace ordo::replica
