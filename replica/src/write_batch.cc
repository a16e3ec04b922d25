// WriteBatch: building, encoding and decoding the log entry of one batch.
#include <string>

#include "codec.h"
#include "ordo/assert.h"
#include "ordo/replica.h"

namespace ordo::replica {

namespace {

constexpr uint8_t kVersion = 1;

bool has_key(WriteBatch::OpKind kind) {
  ORDO_ASSERT(kind >= WriteBatch::OpKind::kPut && kind <= WriteBatch::OpKind::kDropTree);
  return kind == WriteBatch::OpKind::kPut || kind == WriteBatch::OpKind::kDel;
}

size_t op_bytes(const WriteBatch::Op& op) {
  // encode() writes a key only for put and del, a value only for put.
  ORDO_ASSERT((has_key(op.kind) || op.key.empty()) &&
              (op.kind == WriteBatch::OpKind::kPut || op.value.empty()));
  size_t n = 1 + codec::varint_bytes(op.tree.size()) + op.tree.size();
  if (has_key(op.kind)) n += codec::varint_bytes(op.key.size()) + op.key.size();
  if (op.kind == WriteBatch::OpKind::kPut) {
    n += codec::varint_bytes(op.value.size()) + op.value.size();
  }
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

#undef ORDO_REPLICA_ADD_OP

std::string WriteBatch::encode() const {
  std::string out;
  out.push_back(static_cast<char>(kVersion));
  codec::put_varint(out, ops_.size());
  for (const Op& op : ops_) {
    out.push_back(static_cast<char>(op.kind));
    codec::put_varint(out, op.tree.size());
    out += op.tree;
    if (has_key(op.kind)) {
      codec::put_varint(out, op.key.size());
      out += op.key;
    }
    if (op.kind == OpKind::kPut) {
      codec::put_varint(out, op.value.size());
      out += op.value;
    }
  }
  ORDO_ASSERT(out.size() == encoded_bytes_);  // The mutators' and decode's count.
  return out;
}

Result<WriteBatch> WriteBatch::decode(ByteView bytes) {
  codec::Reader in(bytes.view());
  uint8_t version = 0;
  if (!in.get_u8(version)) return Status::invalid_argument("write batch: empty entry");
  if (version != kVersion) {
    return Status::invalid_argument("write batch: unknown version " + std::to_string(version));
  }
  uint64_t count = 0;
  if (!in.get_varint(count)) return Status::invalid_argument("write batch: truncated op count");
  // Every op takes at least 2 bytes (kind, tree length): a count beyond that
  // is a damaged entry, and must not size an allocation.
  if (count > in.remaining() / 2) {
    return Status::invalid_argument("write batch: op count " + std::to_string(count) +
                                    " exceeds the entry's bytes");
  }
  WriteBatch batch;
  batch.ops_.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    const std::string at = " (op " + std::to_string(i) + ")";
    uint8_t kind_byte = 0;
    if (!in.get_u8(kind_byte))
      return Status::invalid_argument("write batch: truncated op kind" + at);
    if (kind_byte < 1 || kind_byte > 4) {
      return Status::invalid_argument("write batch: unknown op kind " + std::to_string(kind_byte) +
                                      at);
    }
    Op op{static_cast<OpKind>(kind_byte), {}, {}, {}};
    if (!in.get_prefixed(op.tree))
      return Status::invalid_argument("write batch: truncated tree name" + at);
    if (has_key(op.kind) && !in.get_prefixed(op.key)) {
      return Status::invalid_argument("write batch: truncated key" + at);
    }
    if (op.kind == OpKind::kPut && !in.get_prefixed(op.value)) {
      return Status::invalid_argument("write batch: truncated value" + at);
    }
    batch.encoded_bytes_ += op_bytes(op);
    batch.ops_.push_back(std::move(op));
  }
  if (!in.done()) {
    return Status::invalid_argument("write batch: " + std::to_string(in.remaining()) +
                                    " bytes after the last op");
  }
  batch.encoded_bytes_ += codec::varint_bytes(count) - 1;
  ORDO_ASSERT(batch.ops_.size() == count);
  return batch;
}

}  // namespace ordo::replica
