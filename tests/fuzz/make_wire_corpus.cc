// Writes the seed corpora of the wire fuzzers (wire_fuzz_body.h): valid
// messages of every kind, each behind the byte that picks its parser. Run
// by hand (`build/tests/fuzz/ordo_make_wire_corpus tests/fuzz`) when a
// format changes; the output is committed.
#include <cstdio>
#include <string>

#include "ordo/replica.h"
#include "protocol.h"
#include "snapshot_record.h"
#include "snapshot_wire.h"

namespace {

using ordo::node::Op;
using ordo::node::ReplyCode;
using ordo::node::Request;
using ordo::node::WireReply;
using ordo::replica::ReadMode;
using ordo::replica::WriteBatch;

bool write(const std::string& path, char selector, const std::string& body) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const std::string bytes = std::string(1, selector) + body;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

WriteBatch sample_batch() {
  WriteBatch b;
  b.create_tree("t");
  b.put("t", "key", "value");
  b.put("", "k2", std::string(200, 'v'));
  b.del("t", "gone");
  b.drop_tree("old");
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s tests/fuzz\n", argv[0]);
    return 2;
  }
  const std::string protocol = std::string(argv[1]) + "/corpus-protocol/";
  const std::string snapshot = std::string(argv[1]) + "/corpus-snapshot/";
  bool ok = true;
  auto request = [&](const std::string& name, Request r) {
    ok = write(protocol + "request-" + name, 0, ordo::node::encode_request(r)) && ok;
  };
  Request r;
  r.op = Op::kPut;
  r.tree = "t";
  r.key = "key";
  r.value = "value";
  request("put", r);
  r.op = Op::kDel;
  request("del", r);
  r = {};
  r.op = Op::kBatch;
  r.batch = sample_batch().encode();
  request("batch", r);
  r = {};
  r.op = Op::kPutNewId;
  r.tree = "ids";
  r.value = "v";
  request("put_new_id", r);
  r = {};
  r.op = Op::kGet;
  r.mode = ReadMode::kLinearizable;
  r.tree = "t";
  r.key = "key";
  request("get", r);
  r.op = Op::kScan;
  r.mode = ReadMode::kLocal;
  r.limit = 100;
  request("scan", r);
  r = {};
  r.op = Op::kStatus;
  request("status", r);
  r.op = Op::kAddMember;
  r.id = 4;
  r.address = "127.0.0.1:7031";
  request("add_member", r);
  r.op = Op::kRemoveMember;
  request("remove_member", r);

  auto reply = [&](const std::string& name, const WireReply& w) {
    ok = write(protocol + "reply-" + name, 1, ordo::node::encode_reply(w)) && ok;
  };
  WireReply w;
  w.code = ReplyCode::kOk;
  w.index = 12345;
  w.value = "value";
  reply("ok", w);
  w = {};
  w.code = ReplyCode::kNotLeader;
  w.leader = "127.0.0.1:7011";
  w.message = "not the leader";
  reply("not_leader", w);
  w = {};
  w.code = ReplyCode::kOk;
  w.entries = {{"a", "1"}, {"b", "2"}, {"c", std::string(100, 'x')}};
  reply("scan", w);
  w = {};
  w.code = ReplyCode::kUnknown;
  w.message = "leadership lost";
  reply("unknown", w);
  ok = write(protocol + "batch", 2, sample_batch().encode()) && ok;

  const ordo::replica::ClusterId cluster =
      ordo::replica::cluster_id_of("", {{1, "127.0.0.1:7001", true}});
  ok = write(snapshot + "request", 0, ordo::replica::encode_copy_request(cluster)) && ok;
  ok = write(snapshot + "header", 1,
             ordo::replica::encode_copy_header({1 << 20, 0xabcdef, 77, cluster})) &&
       ok;
  ok = write(snapshot + "refusal", 1, ordo::replica::encode_no_copy()) && ok;
  ok = write(snapshot + "wrong_cluster", 1, ordo::replica::encode_wrong_cluster(cluster)) && ok;
  ordo::replica::SnapshotRecord record;
  record.applied_index = 4096;
  ok = write(snapshot + "record", 2, record.encode()) && ok;
  if (!ok) std::fprintf(stderr, "cannot write the corpora under %s\n", argv[1]);
  return ok ? 0 : 1;
}
