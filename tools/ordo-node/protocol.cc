#include "protocol.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace ordo::node {
namespace {

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_bytes(std::string& out, std::string_view s) {
  put_varint(out, s.size());
  out.append(s);
}

// Reads fields from a body; the first failure names the field and sticks.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  uint8_t byte(const char* field) {
    if (!error_.empty()) return 0;
    if (in_.empty()) {
      fail(field, "missing");
      return 0;
    }
    uint8_t b = static_cast<uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return b;
  }
  uint64_t varint(const char* field) {
    if (!error_.empty()) return 0;
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (in_.empty()) {
        fail(field, "truncated");
        return 0;
      }
      uint8_t b = static_cast<uint8_t>(in_[0]);
      in_.remove_prefix(1);
      if (shift == 63 && b > 1) break;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    fail(field, "an over-long varint");
    return 0;
  }
  std::string bytes(const char* field) {
    uint64_t n = varint(field);
    if (!error_.empty()) return {};
    if (n > in_.size()) {
      fail(field, "a length past the end of the frame");
      return {};
    }
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  size_t remaining() const { return in_.size(); }
  // Every byte left.
  std::string bytes_rest() {
    if (!error_.empty()) return {};
    std::string s(in_);
    in_ = {};
    return s;
  }
  bool ok() const { return error_.empty(); }
  void fail(const char* field, const std::string& why) {
    if (error_.empty()) error_ = std::string(field) + ": " + why;
  }
  // Ok, or InvalidArgument naming the first problem; trailing bytes are one.
  Status finish(const char* what) {
    if (error_.empty() && !in_.empty()) {
      error_ = std::to_string(in_.size()) + " trailing bytes";
    }
    if (error_.empty()) return Status::ok();
    return Status::invalid_argument(std::string("malformed ") + what + ": " + error_);
  }

 private:
  std::string_view in_;
  std::string error_;
};

}  // namespace

const char* op_name(Op op) {
  switch (op) {
    case Op::kPut:
      return "put";
    case Op::kDel:
      return "del";
    case Op::kBatch:
      return "batch";
    case Op::kPutNewId:
      return "put_new_id";
    case Op::kGet:
      return "get";
    case Op::kScan:
      return "scan";
    case Op::kStatus:
      return "status";
    case Op::kAddMember:
      return "add";
    case Op::kRemoveMember:
      return "remove";
    case Op::kHello:
      return "hello";
    case Op::kDelRange:
      return "del_range";
    case Op::kWatch:
      return "watch";
  }
  return "unknown-op";
}

const char* reply_code_wire_name(ReplyCode code) {
  switch (code) {
    case ReplyCode::kOk:
      return "ok";
    case ReplyCode::kNotFound:
      return "not-found";
    case ReplyCode::kFailed:
      return "failed";
    case ReplyCode::kUnknown:
      return "unknown";
    case ReplyCode::kNotLeader:
      return "not-leader";
    case ReplyCode::kCompareFailed:
      return "compare-failed";
  }
  return "bad-code";
}

std::string encode_request(const Request& r) {
  std::string out;
  out.push_back(static_cast<char>(r.op));
  switch (r.op) {
    case Op::kPut:
      put_bytes(out, r.tree);
      put_bytes(out, r.key);
      put_bytes(out, r.value);
      break;
    case Op::kDel:
      put_bytes(out, r.tree);
      put_bytes(out, r.key);
      break;
    case Op::kBatch:
      put_bytes(out, r.batch);
      break;
    case Op::kPutNewId:
      put_bytes(out, r.tree);
      put_bytes(out, r.value);
      break;
    case Op::kGet:
      out.push_back(static_cast<char>(r.mode));
      put_bytes(out, r.tree);
      put_bytes(out, r.key);
      break;
    case Op::kScan:
      out.push_back(static_cast<char>(r.mode));
      put_bytes(out, r.tree);
      put_bytes(out, r.key);
      put_varint(out, r.limit);
      break;
    case Op::kStatus:
      break;
    case Op::kAddMember:
      put_varint(out, r.id);
      put_bytes(out, r.address);
      put_varint(out, r.timeout_ms);
      break;
    case Op::kRemoveMember:
      put_varint(out, r.id);
      put_varint(out, r.timeout_ms);
      break;
    case Op::kHello:
      put_bytes(out, r.cluster_id);
      break;
    case Op::kDelRange:
      put_bytes(out, r.tree);
      put_bytes(out, r.key);
      put_bytes(out, r.end);
      break;
    case Op::kWatch:
      out.push_back(static_cast<char>(r.all_trees ? 1 : 0));
      put_bytes(out, r.tree);
      put_varint(out, r.from_index);
      put_varint(out, r.from_offset);
      put_varint(out, r.limit);
      put_varint(out, r.wait_ms);
      break;
  }
  return out;
}

namespace {
// A membership request's timeout in ms (0: the server's own).
uint32_t timeout_ms(Reader& in) {
  uint64_t ms = in.varint("timeout_ms");
  if (ms > UINT32_MAX) in.fail("timeout_ms", "over 2^32 - 1");
  return static_cast<uint32_t>(ms);
}
}  // namespace

Result<Request> decode_request(std::string_view body) {
  Reader in(body);
  Request r;
  uint8_t op = in.byte("op");
  auto mode = [&] {
    uint8_t m = in.byte("read mode");
    if (m > static_cast<uint8_t>(replica::ReadMode::kLinearizable)) {
      in.fail("read mode", "unknown mode " + std::to_string(m));
    }
    return static_cast<replica::ReadMode>(m);
  };
  r.op = static_cast<Op>(op);
  switch (r.op) {
    case Op::kPut:
      r.tree = in.bytes("tree");
      r.key = in.bytes("key");
      r.value = in.bytes("value");
      break;
    case Op::kDel:
      r.tree = in.bytes("tree");
      r.key = in.bytes("key");
      break;
    case Op::kBatch:
      r.batch = in.bytes("batch");
      break;
    case Op::kPutNewId:
      r.tree = in.bytes("tree");
      r.value = in.bytes("value");
      break;
    case Op::kGet:
      r.mode = mode();
      r.tree = in.bytes("tree");
      r.key = in.bytes("key");
      break;
    case Op::kScan: {
      r.mode = mode();
      r.tree = in.bytes("tree");
      r.key = in.bytes("from");
      uint64_t limit = in.varint("limit");
      if (limit > UINT32_MAX) in.fail("limit", "over 2^32 - 1");
      r.limit = static_cast<uint32_t>(limit);
      break;
    }
    case Op::kStatus:
      break;
    case Op::kAddMember:
      r.id = in.varint("member id");
      r.address = in.bytes("address");
      r.timeout_ms = timeout_ms(in);
      break;
    case Op::kRemoveMember:
      r.id = in.varint("member id");
      r.timeout_ms = timeout_ms(in);
      break;
    case Op::kHello:
      r.cluster_id = in.bytes("cluster id");
      break;
    case Op::kDelRange:
      r.tree = in.bytes("tree");
      r.key = in.bytes("first key");
      r.end = in.bytes("end key");
      break;
    case Op::kWatch: {
      uint8_t flags = in.byte("watch flags");
      if (flags > 1) in.fail("watch flags", "unknown flags " + std::to_string(flags));
      r.all_trees = (flags & 1) != 0;
      r.tree = in.bytes("tree");
      r.from_index = in.varint("from index");
      uint64_t offset = in.varint("from offset");
      uint64_t limit = in.varint("limit");
      uint64_t wait = in.varint("wait ms");
      if (offset > UINT32_MAX) in.fail("from offset", "over 2^32 - 1");
      if (limit > UINT32_MAX) in.fail("limit", "over 2^32 - 1");
      if (wait > UINT32_MAX) in.fail("wait ms", "over 2^32 - 1");
      r.from_offset = static_cast<uint32_t>(offset);
      r.limit = static_cast<uint32_t>(limit);
      r.wait_ms = static_cast<uint32_t>(wait);
      break;
    }
    default:
      if (body.empty()) break;  // "op: missing" already
      return Status::invalid_argument("malformed request: unknown op " + std::to_string(op));
  }
  ORDO_RETURN_IF_ERROR(in.finish("request"));
  return r;
}

const char* change_kind_name(replica::WriteBatch::OpKind kind) {
  using Kind = replica::WriteBatch::OpKind;
  switch (kind) {
    case Kind::kPut:
      return "put";
    case Kind::kDel:
      return "del";
    case Kind::kDelRange:
      return "delrange";
    case Kind::kCreateTree:
      return "create";
    case Kind::kDropTree:
      return "drop";
    case Kind::kCheckValue:
    case Kind::kCheckAbsent:
    case Kind::kCheckPresent:
      return "check";
  }
  return "op?";
}

WireReply watch_reply(const replica::WatchResult& result) {
  WireReply r;
  r.code = ReplyCode::kOk;
  r.index = result.next_index;
  r.value = std::to_string(result.next_offset);
  r.entries.reserve(result.changes.size());
  for (const replica::Change& c : result.changes) {
    std::string head;
    put_varint(head, c.index);
    head.push_back(static_cast<char>(c.kind));
    put_bytes(head, c.tree);
    head += c.key;
    r.entries.emplace_back(std::move(head), c.value);
  }
  return r;
}

Result<replica::WatchResult> parse_watch_reply(
    uint64_t index, std::string_view value,
    const std::vector<std::pair<std::string, std::string>>& entries) {
  replica::WatchResult out;
  out.next_index = index;
  uint32_t offset = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), offset);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return Status::invalid_argument("malformed watch reply: next offset '" + std::string(value) +
                                    "' is not a number");
  }
  out.next_offset = offset;
  out.changes.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    Reader in(entries[i].first);
    replica::Change c;
    c.index = in.varint("change index");
    uint8_t kind = in.byte("change kind");
    if (kind < 1 || kind > static_cast<uint8_t>(replica::WriteBatch::OpKind::kDelRange)) {
      in.fail("change kind", "unknown kind " + std::to_string(kind));
    }
    c.kind = static_cast<replica::WriteBatch::OpKind>(kind);
    c.tree = in.bytes("change tree");
    c.key = in.bytes_rest();
    c.value = entries[i].second;
    ORDO_RETURN_IF_ERROR(in.finish("watch reply").with_context("change " + std::to_string(i)));
    out.changes.push_back(std::move(c));
  }
  return out;
}

std::string encode_reply(const WireReply& r) {
  std::string out;
  out.push_back(static_cast<char>(r.code));
  put_bytes(out, r.message);
  put_varint(out, r.index);
  put_bytes(out, r.value);
  put_bytes(out, r.leader);
  put_varint(out, r.entries.size());
  for (const auto& [k, v] : r.entries) {
    put_bytes(out, k);
    put_bytes(out, v);
  }
  return out;
}

Result<WireReply> decode_reply(std::string_view body) {
  Reader in(body);
  WireReply r;
  uint8_t code = in.byte("reply code");
  if (code > static_cast<uint8_t>(ReplyCode::kCompareFailed)) {
    return Status::invalid_argument("malformed reply: unknown reply code " + std::to_string(code));
  }
  r.code = static_cast<ReplyCode>(code);
  r.message = in.bytes("message");
  r.index = in.varint("index");
  r.value = in.bytes("value");
  r.leader = in.bytes("leader");
  uint64_t count = in.varint("entry count");
  // Each entry takes at least two bytes: a count past that is a lie.
  if (count > in.remaining() / 2)
    in.fail("entry count", "more entries than bytes");
  else
    r.entries.reserve(count);
  // A failed read consumes nothing: stop at the first.
  for (uint64_t i = 0; i < count && in.ok() && in.remaining() > 0; ++i) {
    std::string k = in.bytes("entry key");
    std::string v = in.bytes("entry value");
    r.entries.emplace_back(std::move(k), std::move(v));
  }
  if (r.entries.size() != count) in.fail("entries", "truncated");
  ORDO_RETURN_IF_ERROR(in.finish("reply"));
  return r;
}

std::string frame(std::string_view body) {
  std::string out;
  out.reserve(4 + body.size());
  uint32_t n = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out.append(body);
  return out;
}

Status write_frame(int fd, std::string_view body, Deadline deadline) {
  sys::Stream stream(fd);
  Status s = write_frame(stream, body, deadline);
  (void)stream.release();
  return s;
}

Result<std::string> read_frame(int fd, Deadline deadline) {
  sys::Stream stream(fd);
  Result<std::string> body = read_frame(stream, deadline);
  (void)stream.release();
  return body;
}

Status write_frame(sys::Stream& stream, std::string_view body, Deadline deadline) {
  if (body.size() > kMaxFrameBody) {
    return Status::invalid_argument("frame of " + std::to_string(body.size()) +
                                    " bytes is over the limit of " + std::to_string(kMaxFrameBody));
  }
  return stream.send_all(frame(body), deadline);
}

Result<std::string> read_frame(sys::Stream& stream, Deadline deadline) {
  unsigned char head[4];
  ORDO_RETURN_IF_ERROR(stream.recv_exact(reinterpret_cast<char*>(head), 4, deadline));
  uint32_t n = static_cast<uint32_t>(head[0]) | (static_cast<uint32_t>(head[1]) << 8) |
               (static_cast<uint32_t>(head[2]) << 16) | (static_cast<uint32_t>(head[3]) << 24);
  if (n > kMaxFrameBody) {
    return Status::invalid_argument("frame length " + std::to_string(n) + " is over the limit of " +
                                    std::to_string(kMaxFrameBody));
  }
  // The buffer grows as bytes arrive, a step at a time: a declared length
  // alone never allocates more than one step.
  constexpr size_t kStep = size_t{1} << 20;
  std::string body;
  while (body.size() < n) {
    size_t have = body.size();
    size_t take = std::min<size_t>(kStep, n - have);
    body.resize(have + take);
    ORDO_ASSIGN_OR_RETURN(const size_t got, stream.recv_all(body.data() + have, take, deadline));
    // The length came, so a close anywhere in the body is mid-frame.
    if (got < take) return Status::io_error("connection closed mid-frame", 0);
  }
  return body;
}

}  // namespace ordo::node
