// The snapshot channel's bytes (replica/src/snapshot_wire.h): the request
// line, a header and a refusal round-trip, and every malformed header is a
// clear error.
#include "snapshot_wire.h"

#include <gtest/gtest.h>

#include <string>

namespace ordo::replica {
namespace {

TEST(SnapshotWireTest, RequestLine) {
  EXPECT_TRUE(is_copy_request(kCopyRequest));
  EXPECT_FALSE(is_copy_request(""));
  EXPECT_FALSE(is_copy_request("ORDOCOPY 1"));
  EXPECT_FALSE(is_copy_request(std::string(kCopyRequest) + " "));
}

TEST(SnapshotWireTest, HeaderRoundTrips) {
  const CopyHeader h{123456789, 0xfeedfacecafebeefull, 42};
  const std::string bytes = encode_copy_header(h);
  ASSERT_EQ(bytes.size(), kCopyHeaderBytes);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\0\0\0\0\x07\x5b\xcd\x15", 8));  // big-endian
  Result<CopyHeader> back = decode_copy_header(bytes);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->size_bytes, h.size_bytes);
  EXPECT_EQ(back->xxh3, h.xxh3);
  EXPECT_EQ(back->applied_index, h.applied_index);
  // An empty copy is a copy.
  EXPECT_TRUE(decode_copy_header(encode_copy_header({0, 0, 0})).is_ok());
}

TEST(SnapshotWireTest, RefusalIsNotFound) {
  const std::string refusal = encode_no_copy();
  ASSERT_EQ(refusal.size(), kNoCopyBytes);
  EXPECT_TRUE(decode_copy_header(refusal).status().is_not_found());
  // The first field alone, of a header that goes on, is not a refusal.
  std::string first = encode_copy_header({7, 1, 2}).substr(0, kNoCopyBytes);
  EXPECT_TRUE(decode_copy_header(first).status().is_invalid_argument());
}

TEST(SnapshotWireTest, MalformedHeadersAreInvalid) {
  const std::string whole = encode_copy_header({7, 1, 2});
  for (size_t n = 0; n < kCopyHeaderBytes; ++n) {
    SCOPED_TRACE(n);
    EXPECT_TRUE(decode_copy_header(whole.substr(0, n)).status().is_invalid_argument());
  }
  EXPECT_TRUE(decode_copy_header(whole + "x").status().is_invalid_argument());
  EXPECT_TRUE(decode_copy_header(encode_no_copy() + "x").status().is_invalid_argument());
}

}  // namespace
}  // namespace ordo::replica
