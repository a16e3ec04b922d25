// WriteBatch: encode/decode round trip; malformed entries are
// InvalidArgument, never a crash.
#include <gtest/gtest.h>

#include <random>

#include "ordo/replica.h"

namespace ordo::replica {
namespace {

WriteBatch sample_batch() {
  WriteBatch b;
  b.put("", "k1", "v1");
  b.put("people", std::string(300, 'k'), std::string(1000, 'v'));
  b.del("people", "gone");
  b.create_tree("empty");
  b.drop_tree("old");
  b.put("", std::string("\0\xff", 2), "");
  return b;
}

TEST(WriteBatch, RoundTrip) {
  WriteBatch b = sample_batch();
  std::string bytes = b.encode();
  EXPECT_EQ(bytes.size(), b.encoded_bytes());
  Result<WriteBatch> d = WriteBatch::decode(bytes);
  ASSERT_TRUE(d.is_ok()) << d.status().to_string();
  ASSERT_EQ(d->ops().size(), b.ops().size());
  for (size_t i = 0; i < b.ops().size(); ++i) {
    EXPECT_EQ(d->ops()[i].kind, b.ops()[i].kind) << i;
    EXPECT_EQ(d->ops()[i].tree, b.ops()[i].tree) << i;
    EXPECT_EQ(d->ops()[i].key, b.ops()[i].key) << i;
    EXPECT_EQ(d->ops()[i].value, b.ops()[i].value) << i;
  }
  EXPECT_EQ(d->encoded_bytes(), bytes.size());
  EXPECT_EQ(d->encode(), bytes);
}

TEST(WriteBatch, EncodedBytesTracksManyOps) {
  WriteBatch b;
  EXPECT_EQ(b.encoded_bytes(), b.encode().size());
  for (int i = 0; i < 300; ++i) {  // the op count's varint grows at 128
    b.put("t", "key" + std::to_string(i), "v");
    ASSERT_EQ(b.encoded_bytes(), b.encode().size()) << i;
  }
}

TEST(WriteBatch, EveryTruncationIsInvalidArgument) {
  std::string bytes = sample_batch().encode();
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<WriteBatch> d = WriteBatch::decode(std::string_view(bytes.data(), n));
    ASSERT_FALSE(d.is_ok()) << "prefix of " << n << " bytes decoded";
    EXPECT_TRUE(d.status().is_invalid_argument()) << n << ": " << d.status().to_string();
  }
}

TEST(WriteBatch, TrailingBytesUnknownVersionAndKindAreInvalidArgument) {
  std::string bytes = sample_batch().encode();
  EXPECT_TRUE(WriteBatch::decode(bytes + "x").status().is_invalid_argument());
  std::string v = bytes;
  v[0] = 3;
  EXPECT_TRUE(WriteBatch::decode(v).status().is_invalid_argument());
  std::string k = bytes;
  k[2] = 9;  // the first op's kind
  Result<WriteBatch> d = WriteBatch::decode(k);
  ASSERT_FALSE(d.is_ok());
  EXPECT_NE(d.status().message().find("op kind"), std::string::npos) << d.status().to_string();
  // A huge op count with few bytes behind it.
  std::string huge = std::string(1, '\x01') + "\xff\xff\xff\xff\xff\xff\xff\xff\x7f";
  EXPECT_TRUE(WriteBatch::decode(huge).status().is_invalid_argument());
  // An over-long varint.
  std::string over = std::string(1, '\x01') + std::string(11, '\xff');
  EXPECT_TRUE(WriteBatch::decode(over).status().is_invalid_argument());
}

WriteBatch conditional_batch() {
  WriteBatch b;
  b.check_value("", "counter", "41");
  b.check_absent("locks", std::string("\0k", 2));
  b.check_present("people", "ann");
  b.put("", "counter", "42");
  b.del_range("logs", "a", "m");
  b.del("people", "bob");
  b.set_return_prev(true);
  return b;
}

TEST(WriteBatch, GuardsRangeDeletesAndPrevFlagRoundTripAsVersion2) {
  WriteBatch b = conditional_batch();
  std::string bytes = b.encode();
  EXPECT_EQ(bytes[0], 2);
  EXPECT_EQ(bytes[1], 1);  // flags: return_prev
  EXPECT_EQ(bytes.size(), b.encoded_bytes());
  Result<WriteBatch> d = WriteBatch::decode(bytes);
  ASSERT_TRUE(d.is_ok()) << d.status().to_string();
  EXPECT_TRUE(d->return_prev());
  ASSERT_EQ(d->ops().size(), b.ops().size());
  for (size_t i = 0; i < b.ops().size(); ++i) {
    EXPECT_EQ(d->ops()[i].kind, b.ops()[i].kind) << i;
    EXPECT_EQ(d->ops()[i].tree, b.ops()[i].tree) << i;
    EXPECT_EQ(d->ops()[i].key, b.ops()[i].key) << i;
    EXPECT_EQ(d->ops()[i].value, b.ops()[i].value) << i;
  }
  EXPECT_EQ(d->ops()[4].kind, WriteBatch::OpKind::kDelRange);
  EXPECT_EQ(d->ops()[4].value, "m");
  EXPECT_EQ(d->ops()[0].value, "41");
  EXPECT_EQ(d->encode(), bytes);
  EXPECT_EQ(d->encoded_bytes(), bytes.size());
  // Every truncation is refused.
  for (size_t n = 0; n < bytes.size(); ++n) {
    ASSERT_TRUE(
        WriteBatch::decode(std::string_view(bytes.data(), n)).status().is_invalid_argument())
        << n;
  }
}

TEST(WriteBatch, PlainBatchesStayVersion1AndVersion1CannotHoldNewKinds) {
  WriteBatch plain = sample_batch();
  EXPECT_EQ(plain.encode()[0], 1);
  // Only the flag makes it version 2.
  WriteBatch flagged = sample_batch();
  flagged.set_return_prev(true);
  EXPECT_EQ(flagged.encode()[0], 2);
  EXPECT_EQ(flagged.encoded_bytes(), plain.encoded_bytes() + 1);
  EXPECT_EQ(flagged.encode().substr(2), plain.encode().substr(1));
  // A version 2 entry that version 1 could hold is not this codec's.
  std::string v2 = flagged.encode();
  v2[1] = 0;
  Result<WriteBatch> d = WriteBatch::decode(v2);
  ASSERT_TRUE(d.status().is_invalid_argument());
  EXPECT_NE(d.status().message().find("version 2"), std::string::npos) << d.status().to_string();
  // An unknown flag bit.
  v2[1] = 2;
  EXPECT_TRUE(WriteBatch::decode(v2).status().is_invalid_argument());
  // Version 1 with a range delete's kind byte.
  WriteBatch one;
  one.del("", "k");
  std::string v1 = one.encode();
  v1[2] = 5;
  EXPECT_TRUE(WriteBatch::decode(v1).status().is_invalid_argument());
}

TEST(WriteBatch, RandomCorruptionNeverCrashes) {
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  const std::string plain = sample_batch().encode();
  const std::string conditional = conditional_batch().encode();
  int rejected = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string c = round % 2 == 0 ? plain : conditional;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) c[rng() % c.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) c.resize(rng() % c.size());
    Result<WriteBatch> d = WriteBatch::decode(c);
    if (d.is_ok()) {
      // Whatever decodes re-encodes to the same bytes: nothing was skipped.
      EXPECT_EQ(d->encode(), c) << "seed " << seed << " round " << round;
    } else {
      ASSERT_TRUE(d.status().is_invalid_argument())
          << "seed " << seed << ": " << d.status().to_string();
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(Names, OutcomeRoleAndSnapshotAddress) {
  EXPECT_STREQ(outcome_name(Outcome::kApplied), "applied");
  EXPECT_STREQ(outcome_name(Outcome::kUnknown), "unknown");
  EXPECT_STREQ(role_name(Role::kLeader), "leader");
  Result<std::string> a = snapshot_address("127.0.0.1:7002");
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(*a, "127.0.0.1:7003");
  EXPECT_TRUE(snapshot_address("127.0.0.1:65535").status().is_invalid_argument());
  EXPECT_TRUE(snapshot_address("localhost:7002").status().is_invalid_argument());
  EXPECT_TRUE(snapshot_address("127.0.0.1").status().is_invalid_argument());
  EXPECT_TRUE(snapshot_address("127.0.0.1:x").status().is_invalid_argument());
  EXPECT_TRUE(snapshot_address("127.0.0.1:0").status().is_invalid_argument());
}

}  // namespace
}  // namespace ordo::replica
