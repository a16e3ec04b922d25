// The snapshot channel's bytes (replica/src/snapshot_wire.h): the request
// line, a header and the refusals round-trip, and every malformed header is
// a clear error.
#include "snapshot_wire.h"

#include <gtest/gtest.h>

#include <string>

namespace ordo::replica {
namespace {

const ClusterId kCluster = cluster_id_of("", {{1, "127.0.0.1:7001", true}});

TEST(SnapshotWireTest, RequestLine) {
  const std::string line = encode_copy_request(kCluster);
  EXPECT_EQ(line, std::string(kCopyRequest) + " " + kCluster.hex());
  Result<ClusterId> asked = parse_copy_request(line);
  ASSERT_TRUE(asked.is_ok()) << asked.status().to_string();
  EXPECT_EQ(*asked, kCluster);
  // An unknown id (a joining replica) is 32 zeros, and asks all the same.
  Result<ClusterId> none = parse_copy_request(encode_copy_request(ClusterId()));
  ASSERT_TRUE(none.is_ok());
  EXPECT_FALSE(none->known());
  for (const std::string& bad :
       {std::string(), std::string(kCopyRequest), std::string(kCopyRequest) + " ",
        std::string("ORDOCOPY 2"), std::string(kCopyRequest) + " xyz", line + "0", "X" + line}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(parse_copy_request(bad).status().is_invalid_argument());
  }
}

TEST(SnapshotWireTest, HeaderRoundTrips) {
  const CopyHeader h{123456789, 0xfeedfacecafebeefull, 42, kCluster};
  const std::string bytes = encode_copy_header(h);
  ASSERT_EQ(bytes.size(), kCopyHeaderBytes);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\0\0\0\0\x07\x5b\xcd\x15", 8));  // big-endian
  EXPECT_EQ(copy_header_bytes(bytes.substr(0, kFirstFieldBytes)), kCopyHeaderBytes);
  Result<CopyHeader> back = decode_copy_header(bytes);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->size_bytes, h.size_bytes);
  EXPECT_EQ(back->xxh3, h.xxh3);
  EXPECT_EQ(back->applied_index, h.applied_index);
  EXPECT_EQ(back->cluster_id, kCluster);
  // An empty copy is a copy.
  EXPECT_TRUE(decode_copy_header(encode_copy_header({0, 0, 0, kCluster})).is_ok());
}

TEST(SnapshotWireTest, RefusalsAreNotFoundAndWrongCluster) {
  const std::string refusal = encode_no_copy();
  ASSERT_EQ(refusal.size(), kFirstFieldBytes);
  EXPECT_EQ(copy_header_bytes(refusal), kFirstFieldBytes);
  EXPECT_TRUE(decode_copy_header(refusal).status().is_not_found());
  // The first field alone, of a header that goes on, is not a refusal.
  std::string first = encode_copy_header({7, 1, 2, kCluster}).substr(0, kFirstFieldBytes);
  EXPECT_TRUE(decode_copy_header(first).status().is_invalid_argument());

  const std::string wrong = encode_wrong_cluster(kCluster);
  ASSERT_EQ(wrong.size(), kWrongClusterBytes);
  EXPECT_EQ(copy_header_bytes(wrong.substr(0, kFirstFieldBytes)), kWrongClusterBytes);
  Status s = decode_copy_header(wrong).status();
  EXPECT_TRUE(s.is_invalid_argument());
  EXPECT_NE(s.message().find("wrong cluster: the snapshot server is cluster " + kCluster.hex()),
            std::string::npos)
      << s.message();
}

TEST(SnapshotWireTest, MalformedHeadersAreInvalid) {
  const std::string whole = encode_copy_header({7, 1, 2, kCluster});
  for (size_t n = 0; n < kCopyHeaderBytes; ++n) {
    SCOPED_TRACE(n);
    EXPECT_TRUE(decode_copy_header(whole.substr(0, n)).status().is_invalid_argument());
  }
  EXPECT_TRUE(decode_copy_header(whole + "x").status().is_invalid_argument());
  EXPECT_TRUE(decode_copy_header(encode_no_copy() + "x").status().is_invalid_argument());
  const std::string wrong = encode_wrong_cluster(kCluster);
  EXPECT_TRUE(decode_copy_header(wrong.substr(0, 20)).status().is_invalid_argument());
  EXPECT_TRUE(decode_copy_header(wrong + "x").status().is_invalid_argument());
}

}  // namespace
}  // namespace ordo::replica
