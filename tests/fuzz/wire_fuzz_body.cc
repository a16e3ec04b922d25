#include "wire_fuzz_body.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ordo/replica.h"
#include "protocol.h"
#include "snapshot_record.h"
#include "snapshot_wire.h"

namespace ordo::fuzz {

namespace {

void must(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "wire fuzz: %s\n", what);
  std::abort();
}

bool same(const node::Request& a, const node::Request& b) {
  return a.op == b.op && a.mode == b.mode && a.tree == b.tree && a.key == b.key &&
         a.value == b.value && a.batch == b.batch && a.limit == b.limit && a.id == b.id &&
         a.address == b.address;
}

bool same(const node::WireReply& a, const node::WireReply& b) {
  return a.code == b.code && a.message == b.message && a.index == b.index && a.value == b.value &&
         a.leader == b.leader && a.entries == b.entries;
}

void batch(std::string_view bytes) {
  Result<replica::WriteBatch> b = replica::WriteBatch::decode(ByteView(bytes));
  if (!b.is_ok()) return;
  must(b->encode() == bytes, "WriteBatch: decode then encode changed the bytes");
  must(b->encoded_bytes() == bytes.size(), "WriteBatch: encoded_bytes() is not the size");
}

void request(std::string_view body) {
  Result<node::Request> r = node::decode_request(body);
  if (!r.is_ok()) return;
  Result<node::Request> again = node::decode_request(node::encode_request(*r));
  must(again.is_ok() && same(*r, *again), "request: encode of a decoded request decodes otherwise");
  if (r->op == node::Op::kBatch) batch(r->batch);
}

void reply(std::string_view body) {
  Result<node::WireReply> r = node::decode_reply(body);
  if (!r.is_ok()) return;
  Result<node::WireReply> again = node::decode_reply(node::encode_reply(*r));
  must(again.is_ok() && same(*r, *again), "reply: encode of a decoded reply decodes otherwise");
}

}  // namespace

void decode_client_protocol(const uint8_t* data, size_t size) {
  if (size == 0 || size > kMaxWireInputBytes) return;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      request(rest);
      break;
    case 1:
      reply(rest);
      break;
    default:
      batch(rest);
      break;
  }
}

void decode_snapshot_channel(const uint8_t* data, size_t size) {
  if (size == 0 || size > kMaxWireInputBytes) return;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      Result<replica::ClusterId> asked = replica::parse_copy_request(rest);
      if (asked.is_ok()) {
        // Hex digits of either case parse; the line encoded back is lower case.
        std::string lower(rest);
        for (size_t i = replica::kCopyRequest.size(); i < lower.size(); ++i) {
          const char c = lower[i];
          lower[i] = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
        }
        must(replica::encode_copy_request(*asked) == lower,
             "copy request: parse then encode differs");
      }
      break;
    }
    case 1: {
      Result<replica::CopyHeader> h = replica::decode_copy_header(rest);
      if (h.is_ok()) {
        must(replica::encode_copy_header(*h) == rest, "copy header: decode then encode differs");
      } else if (h.status().is_not_found()) {
        must(rest == replica::encode_no_copy(), "copy header: a refusal that is not kNoCopy");
      } else if (rest.size() == replica::kWrongClusterBytes &&
                 rest.substr(0, 8) == replica::encode_wrong_cluster({}).substr(0, 8)) {
        must(h.status().message().starts_with("wrong cluster"),
             "copy header: a wrong-cluster answer not named so");
      }
      break;
    }
    default: {
      Result<replica::SnapshotRecord> r = replica::SnapshotRecord::decode(ByteView(rest));
      if (r.is_ok()) {
        // An older record version decodes too and encodes as the current
        // one: what encode writes must decode to the same record again.
        const std::string current = r->encode();
        Result<replica::SnapshotRecord> again = replica::SnapshotRecord::decode(ByteView(current));
        must(again.is_ok() && again->encode() == current,
             "snapshot record: encode then decode then encode differs");
      }
      break;
    }
  }
}

}  // namespace ordo::fuzz
