// The ordo-node wire protocol (tools/ordo-node/protocol.h): every request
// and reply survives a round trip; malformed bodies and frames are clear
// errors, never crashes. Also the client/Raft address arithmetic.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <random>

#include "client.h"
#include "ordo/sys/ports.h"
#include "protocol.h"

namespace ordo::node {
namespace {

std::vector<Request> sample_requests() {
  std::vector<Request> out;
  Request r;
  r.op = Op::kPut;
  r.tree = "t";
  r.key = std::string("k\0ey", 4);
  r.value = std::string(300, 'v');
  out.push_back(r);
  r = {};
  r.op = Op::kDel;
  r.key = "gone";
  out.push_back(r);
  r = {};
  r.op = Op::kBatch;
  replica::WriteBatch b;
  b.put("", "a", "1");
  b.del("x", "b");
  r.batch = b.encode();
  out.push_back(r);
  r = {};
  r.op = Op::kPutNewId;
  r.tree = "ids";
  r.value = "payload";
  out.push_back(r);
  r = {};
  r.op = Op::kGet;
  r.mode = replica::ReadMode::kLinearizable;
  r.key = "k";
  out.push_back(r);
  r = {};
  r.op = Op::kScan;
  r.tree = "t";
  r.key = "from";
  r.limit = 77;
  out.push_back(r);
  r = {};
  r.op = Op::kStatus;
  out.push_back(r);
  r = {};
  r.op = Op::kAddMember;
  r.id = 300;
  r.address = "127.0.0.1:7031";
  r.timeout_ms = 3000;
  out.push_back(r);
  r = {};
  r.op = Op::kRemoveMember;
  r.id = 1ull << 40;
  out.push_back(r);
  return out;
}

TEST(NodeProtocolTest, EveryRequestRoundTrips) {
  for (const Request& r : sample_requests()) {
    SCOPED_TRACE(op_name(r.op));
    auto d = decode_request(encode_request(r));
    ASSERT_TRUE(d.is_ok()) << d.status().to_string();
    EXPECT_EQ(d->op, r.op);
    EXPECT_EQ(d->mode, r.mode);
    EXPECT_EQ(d->tree, r.tree);
    EXPECT_EQ(d->key, r.key);
    EXPECT_EQ(d->value, r.value);
    EXPECT_EQ(d->batch, r.batch);
    EXPECT_EQ(d->limit, r.limit);
    EXPECT_EQ(d->id, r.id);
    EXPECT_EQ(d->address, r.address);
    EXPECT_EQ(d->timeout_ms, r.timeout_ms);
  }
}

TEST(NodeProtocolTest, ReplyRoundTrips) {
  WireReply r;
  r.code = ReplyCode::kNotLeader;
  r.message = "the leader is node 2";
  r.index = 123456789;
  r.value = std::string("\0\1\2", 3);
  r.leader = "127.0.0.1:7011";
  r.entries = {{"a", "1"}, {"", ""}, {"c", std::string(1000, 'z')}};
  auto d = decode_reply(encode_reply(r));
  ASSERT_TRUE(d.is_ok()) << d.status().to_string();
  EXPECT_EQ(d->code, r.code);
  EXPECT_EQ(d->message, r.message);
  EXPECT_EQ(d->index, r.index);
  EXPECT_EQ(d->value, r.value);
  EXPECT_EQ(d->leader, r.leader);
  EXPECT_EQ(d->entries, r.entries);
}

// A failed guard has a code of its own on the wire (byte 5), which the
// client library keeps apart from other failures.
TEST(NodeProtocolTest, CompareFailedIsItsOwnReplyCode) {
  WireReply r;
  r.code = ReplyCode::kCompareFailed;
  r.message = "op 0 check_absent tree '' key 'k' does not hold (found a value of 1 bytes)";
  const std::string body = encode_reply(r);
  EXPECT_EQ(body[0], '\x05');
  auto d = decode_reply(body);
  ASSERT_TRUE(d.is_ok()) << d.status().to_string();
  EXPECT_EQ(d->code, ReplyCode::kCompareFailed);
  EXPECT_EQ(d->message, r.message);
  EXPECT_STREQ(reply_code_wire_name(ReplyCode::kCompareFailed), "compare-failed");
  EXPECT_STREQ(reply_code_name(Reply::Code::kCompareFailed), "compare-failed");
  // The next byte is no code.
  auto next = decode_reply(std::string("\x06", 1) + body.substr(1));
  ASSERT_FALSE(next.is_ok());
  EXPECT_TRUE(next.status().is_invalid_argument());
}

TEST(NodeProtocolTest, EveryTruncationAndTrailingByteIsAnError) {
  for (const Request& r : sample_requests()) {
    std::string body = encode_request(r);
    for (size_t n = 0; n < body.size(); ++n) {
      auto d = decode_request(std::string_view(body).substr(0, n));
      // A prefix that ends on a field boundary of an op with no more fields
      // cannot exist: every op's encoding is fixed by its fields.
      ASSERT_FALSE(d.is_ok()) << op_name(r.op) << " prefix " << n;
      EXPECT_TRUE(d.status().is_invalid_argument());
      EXPECT_NE(d.status().message().find("malformed request"), std::string::npos);
    }
    auto trailing = decode_request(body + "x");
    ASSERT_FALSE(trailing.is_ok());
    EXPECT_NE(trailing.status().message().find("trailing"), std::string::npos)
        << trailing.status().message();
  }
  WireReply reply;
  reply.entries = {{"k", "v"}};
  std::string body = encode_reply(reply);
  for (size_t n = 0; n < body.size(); ++n) {
    EXPECT_FALSE(decode_reply(std::string_view(body).substr(0, n)).is_ok()) << "prefix " << n;
  }
}

TEST(NodeProtocolTest, BadFieldsNameTheProblem) {
  auto unknown_op = decode_request(std::string("\x63", 1));
  ASSERT_FALSE(unknown_op.is_ok());
  EXPECT_NE(unknown_op.status().message().find("unknown op 99"), std::string::npos);

  auto empty = decode_request("");
  ASSERT_FALSE(empty.is_ok());
  EXPECT_NE(empty.status().message().find("op"), std::string::npos);

  // get with read mode 7.
  auto bad_mode = decode_request(std::string("\x05\x07\x00\x00", 4));
  ASSERT_FALSE(bad_mode.is_ok());
  EXPECT_NE(bad_mode.status().message().find("read mode"), std::string::npos);

  // put whose tree length runs past the end.
  auto past_end =
      decode_request(std::string("\x01\x7f"
                                 "ab",
                                 4));
  ASSERT_FALSE(past_end.is_ok());
  EXPECT_NE(past_end.status().message().find("past the end"), std::string::npos);

  // remove with an 11-byte varint.
  auto long_varint = decode_request(std::string("\x09") + std::string(10, '\xff') + "\x01");
  ASSERT_FALSE(long_varint.is_ok());
  EXPECT_NE(long_varint.status().message().find("over-long varint"), std::string::npos);

  auto bad_code = decode_reply(std::string("\x09", 1));
  ASSERT_FALSE(bad_code.is_ok());
  EXPECT_NE(bad_code.status().message().find("unknown reply code 9"), std::string::npos);

  // A reply claiming 2^40 entries in a few bytes.
  std::string lie("\x00\x00\x00\x00\x00", 5);
  lie += std::string("\x80\x80\x80\x80\x80\x20", 6);
  auto lying = decode_reply(lie);
  ASSERT_FALSE(lying.is_ok());
  EXPECT_NE(lying.status().message().find("more entries than bytes"), std::string::npos);
}

TEST(NodeProtocolTest, RandomBytesNeverCrashTheDecoders) {
  uint32_t seed = std::random_device{}();
  if (const char* s = std::getenv("ORDO_TEST_SEED"))
    seed = static_cast<uint32_t>(std::strtoul(s, nullptr, 10));
  std::printf("seed %u (set ORDO_TEST_SEED to replay)\n", seed);
  std::mt19937 rng(seed);
  int requests_ok = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string body(rng() % 24, '\0');
    for (char& c : body) c = static_cast<char>(rng() % 16 == 0 ? rng() : rng() % 12);
    auto req = decode_request(body);
    if (req.is_ok()) {
      ++requests_ok;
      // What decodes survives a round trip.
      auto again = decode_request(encode_request(*req));
      ASSERT_TRUE(again.is_ok()) << "seed " << seed;
      EXPECT_EQ(again->op, req->op);
      EXPECT_EQ(again->key, req->key);
    } else {
      EXPECT_TRUE(req.status().is_invalid_argument());
    }
    auto rep = decode_reply(body);
    if (!rep.is_ok()) {
      EXPECT_TRUE(rep.status().is_invalid_argument());
    }
  }
  EXPECT_GT(requests_ok, 0);
}

TEST(NodeProtocolTest, FramesOverASocket) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
  auto deadline = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(5); };
  ASSERT_TRUE(write_frame(sv[0], "hello", deadline()).is_ok());
  auto got = read_frame(sv[1], deadline());
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(*got, "hello");

  // A length over the cap is rejected before anything is allocated.
  std::string huge("\xff\xff\xff\x7f", 4);
  ASSERT_EQ(::write(sv[0], huge.data(), huge.size()), 4);
  auto rejected = read_frame(sv[1], deadline());
  ASSERT_FALSE(rejected.is_ok());
  EXPECT_TRUE(rejected.status().is_invalid_argument());
  EXPECT_NE(rejected.status().message().find("over the limit"), std::string::npos);

  // A frame cut short by the peer closing.
  std::string partial = frame("0123456789").substr(0, 7);
  ASSERT_EQ(::write(sv[0], partial.data(), partial.size()), 7);
  ::close(sv[0]);
  auto cut = read_frame(sv[1], deadline());
  ASSERT_FALSE(cut.is_ok());
  EXPECT_NE(cut.status().message().find("mid-frame"), std::string::npos) << cut.status().message();
  ::close(sv[1]);
}

// Where the peer closes decides what read_frame says: before a byte,
// "connection closed"; after the length and before any body byte, or within
// the length, "connection closed mid-frame"; both IOError with errno 0.
TEST(NodeProtocolTest, AClosedPeerIsNamedByWhereItClosed) {
  auto deadline = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(5); };
  for (size_t sent : {size_t{0}, size_t{2}, size_t{4}}) {
    SCOPED_TRACE("bytes sent " + std::to_string(sent));
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    const std::string head = frame("0123456789").substr(0, sent);
    if (sent > 0) {
      ASSERT_EQ(::write(sv[0], head.data(), head.size()), static_cast<ssize_t>(sent));
    }
    ::close(sv[0]);
    auto r = read_frame(sv[1], deadline());
    ASSERT_FALSE(r.is_ok());
    EXPECT_TRUE(r.status().is_io_error());
    EXPECT_EQ(r.status().errno_value(), 0);
    EXPECT_EQ(r.status().message(),
              sent == 0 ? "connection closed" : "connection closed mid-frame");
    ::close(sv[1]);
  }
}

TEST(NodeProtocolTest, NothingToReadTimesOut) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
  auto r = read_frame(sv[1], std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("timed out"), std::string::npos);
  ::close(sv[0]);
  ::close(sv[1]);
}

TEST(NodeAddressTest, RaftPortIsClientPortPlusOne) {
  EXPECT_EQ(raft_address_of("127.0.0.1:7001"), "127.0.0.1:7002");
  EXPECT_EQ(client_address_of("127.0.0.1:7002"), "127.0.0.1:7001");
  EXPECT_EQ(client_address_of(raft_address_of("10.1.2.3:65000")), "10.1.2.3:65000");
  EXPECT_EQ(raft_address_of("127.0.0.1:65535"), "");
  EXPECT_EQ(raft_address_of("localhost:7001"), "");
  EXPECT_EQ(raft_address_of("127.0.0.1"), "");
  EXPECT_EQ(raft_address_of("127.0.0.1:70x"), "");
  EXPECT_EQ(client_address_of("127.0.0.1:1"), "");
}

TEST(NodeClientTest, NoNodeReachableIsFailed) {
  // A port nothing listens on (checked just before).
  Result<uint16_t> port = sys::pick_free_port_run(1);
  ASSERT_TRUE(port.is_ok()) << port.status().to_string();
  Client client({"127.0.0.1:" + std::to_string(*port)}, std::chrono::milliseconds(1000));
  Reply r = client.put("", "k", "v");
  EXPECT_EQ(r.code, Reply::Code::kFailed);
  EXPECT_NE(r.message.find("refused"), std::string::npos) << r.message;
  EXPECT_EQ(client.get("", "k", replica::ReadMode::kLocal).code, Reply::Code::kFailed);
}

}  // namespace
}  // namespace ordo::node
