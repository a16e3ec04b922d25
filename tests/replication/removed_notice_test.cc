// Removal notices (replica/src/removed_notice.h): a notice parses back only
// for a member of its cluster that holds the same secret; every other line
// is refused with a reason.
#include "removed_notice.h"

#include <gtest/gtest.h>

#include <string>

namespace ordo::replica {
namespace {

const ClusterId kOurs = cluster_id_of("", {{1, "127.0.0.1:7001", true}});
const ClusterId kOther = cluster_id_of("other", {{1, "127.0.0.1:7001", true}});
const std::string kSecret(32, 's');

TEST(RemovedNotice, RoundTripsWithTheSameClusterAndSecret) {
  const RemovedNotice sent{3, 1234, kOurs};
  for (const std::string& secret : {std::string(), kSecret}) {
    const std::string line = encode_removed_notice(sent, secret);
    EXPECT_LE(line.size() + 1, kMaxRemovedNoticeBytes);
    Result<RemovedNotice> got = parse_removed_notice(line, kOurs, secret);
    ASSERT_TRUE(got.is_ok()) << got.status().to_string();
    EXPECT_EQ(got->id, 3u);
    EXPECT_EQ(got->index, 1234u);
    EXPECT_EQ(got->cluster, kOurs);
  }
}

TEST(RemovedNotice, AnotherClusterOrSecretIsRefused) {
  const std::string line = encode_removed_notice({3, 1234, kOurs}, kSecret);
  Status other = parse_removed_notice(line, kOther, kSecret).status();
  EXPECT_TRUE(other.is_invalid_argument());
  EXPECT_NE(other.message().find("another cluster"), std::string::npos) << other.message();
  for (const std::string& secret : {std::string(), std::string(32, 't')}) {
    Status s = parse_removed_notice(line, kOurs, secret).status();
    EXPECT_TRUE(s.is_invalid_argument());
    EXPECT_NE(s.message().find("mac does not match"), std::string::npos) << s.message();
  }
  // A notice without a secret is refused by a member that has one.
  EXPECT_FALSE(
      parse_removed_notice(encode_removed_notice({3, 1234, kOurs}, ""), kOurs, kSecret).is_ok());
  // A changed field breaks the mac.
  std::string forged = line;
  forged.replace(forged.find(" 1234 "), 6, " 9999 ");
  EXPECT_FALSE(parse_removed_notice(forged, kOurs, kSecret).is_ok());
}

TEST(RemovedNotice, MalformedLinesAreRefused) {
  const std::string line = encode_removed_notice({3, 1234, kOurs}, kSecret);
  for (const std::string& bad :
       {std::string(), std::string("ORDOREMOVED"), std::string("ORDOREMOVED 3 1234"),
        line.substr(0, line.size() - 1), line + "0", line + " ", std::string("X") + line,
        encode_removed_notice({0, 1234, kOurs}, kSecret), std::string(300, 'A')}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(parse_removed_notice(bad, kOurs, kSecret).status().is_invalid_argument());
  }
}

}  // namespace
}  // namespace ordo::replica
