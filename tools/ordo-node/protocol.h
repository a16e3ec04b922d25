// The ordo-node wire protocol: request and reply frames over TCP.
//
// A frame is a u32 little-endian body length, then the body. A body is at
// most kMaxFrameBody bytes. Request body: the op byte (Op), then the op's
// fields. Reply body: the reply code byte (ReplyCode), then message, index,
// value, leader and entries. Strings are a varint (LEB128) byte count then
// the bytes; integers are varints. One request, one reply, in order, on a
// connection.
//
// Decoding reads bytes from the network: every malformed body (truncated,
// trailing bytes, unknown op or code, a length past the end) is an
// InvalidArgument naming the problem, never a crash. Thread-safety: free
// functions without shared state.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ordo/replica.h"
#include "ordo/status.h"
#include "ordo/sys/socket.h"
#include "ordo/sys/stream.h"

namespace ordo::node {

using sys::Deadline;

// 64 MiB of payload plus room for the fields around it.
inline constexpr uint32_t kMaxFrameBody = (64u << 20) + 4096;

enum class Op : uint8_t {
  kPut = 1,           // tree, key, value
  kDel = 2,           // tree, key
  kBatch = 3,         // batch: WriteBatch::encode bytes
  kPutNewId = 4,      // tree, value; the key is minted by the leader
  kGet = 5,           // mode byte, tree, key
  kScan = 6,          // mode byte, tree, key (the first key), limit
  kStatus = 7,        // no fields
  kAddMember = 8,     // id, address (the new member's client address), timeout_ms
  kRemoveMember = 9,  // id, timeout_ms
  kHello = 10,        // cluster_id: the cluster the client expects ("" = any)
  kDelRange = 11,     // tree, key (the first key), end (excluded)
  kWatch = 12,        // flags byte (bit 0: every tree), tree, from index, from
                      // offset, limit, wait ms: see watch_reply
};
const char* op_name(Op op);  // "put", "del", ...

struct Request {
  Op op = Op::kStatus;
  replica::ReadMode mode = replica::ReadMode::kLocal;
  std::string tree;
  std::string key;      // put, del, get; scan: the first key to return (inclusive)
  std::string value;    // put, put_new_id
  std::string batch;    // batch: the encoded WriteBatch
  uint32_t limit = 0;   // scan: most entries to return; 0 = the server's default
  uint64_t id = 0;      // add/remove member
  std::string address;  // add member: client address
  // hello: 32 hex digits, or "" for any cluster. The reply is ok with the
  // node's cluster id as value, or failed "wrong cluster: ..."; after a
  // failed hello the node refuses every request on the connection.
  std::string cluster_id;
  // add/remove member: the client's wait; the server answers within it.
  // 0: the server's own limit.
  uint32_t timeout_ms = 0;
  std::string end;  // del_range: the end of the range (excluded)
  // watch: every tree (else `tree` only); the position to start at
  // (Replica::watch; from_index 0: the next change); the longest wait.
  bool all_trees = false;
  uint64_t from_index = 0;
  uint32_t from_offset = 0;
  uint32_t wait_ms = 0;
};

// Reply codes on the wire. The client turns kNotLeader into a redirect.
// kCompareFailed came after the others: a client whose decoder predates it
// rejects such a reply as malformed (docs/NODE.md, "The protocol").
enum class ReplyCode : uint8_t {
  kOk = 0,             // done
  kNotFound = 1,       // a read of a missing key or tree
  kFailed = 2,         // certainly not done (message says why)
  kUnknown = 3,        // a write that may or may not be done
  kNotLeader = 4,      // this node is not the leader; `leader` is the leader's
                       // client address, or "" when none is known
  kCompareFailed = 5,  // a write whose guard did not hold: certainly not done
                       // (message names the guard)
};
const char* reply_code_wire_name(ReplyCode code);

struct WireReply {
  ReplyCode code = ReplyCode::kFailed;
  std::string message;
  uint64_t index = 0;
  std::string value;
  std::string leader;
  std::vector<std::pair<std::string, std::string>> entries;
};

// A watch reply (code kOk): index = the next position's index, value = its
// offset in decimal, one entry per change: key = varint index, the op kind
// byte (WriteBatch::OpKind), the tree (varint length, bytes), then the
// key's bytes; value = the change's value (del_range: the end key).
WireReply watch_reply(const replica::WatchResult& result);
// The WatchResult of a watch reply's fields; InvalidArgument naming the
// problem for fields watch_reply did not make.
Result<replica::WatchResult> parse_watch_reply(
    uint64_t index, std::string_view value,
    const std::vector<std::pair<std::string, std::string>>& entries);
// "put", "del", "delrange", "create", "drop", "check" (guards), "op?".
const char* change_kind_name(replica::WriteBatch::OpKind kind);

// Bodies (without the length prefix). encode_* never fail.
std::string encode_request(const Request& request);
Result<Request> decode_request(std::string_view body);
std::string encode_reply(const WireReply& reply);
Result<WireReply> decode_reply(std::string_view body);

// The frame around a body: the 4-byte length, then the body.
// REQUIRES body.size() <= kMaxFrameBody (asserted by the callers' sizes:
// frame() of a longer body still encodes, read_frame() rejects it).
std::string frame(std::string_view body);

// Blocking frame I/O on a connected socket, bounded by `deadline`
// (steady clock). write_frame: IOError on a broken connection or timeout
// ("timed out"). read_frame: the body; IOError("connection closed") on EOF
// before any byte, IOError("connection closed mid-frame") on EOF after one
// (both errno 0), IOError on a broken connection or timeout,
// InvalidArgument for a length over kMaxFrameBody. The body buffer grows as
// bytes arrive (1 MiB steps): a declared length alone allocates at most 1 MiB.
Status write_frame(int fd, std::string_view body, Deadline deadline);
Result<std::string> read_frame(int fd, Deadline deadline);
// The same over a plain or TLS stream.
Status write_frame(sys::Stream& stream, std::string_view body, Deadline deadline);
Result<std::string> read_frame(sys::Stream& stream, Deadline deadline);

}  // namespace ordo::node
