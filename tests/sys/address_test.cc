// sys/address.h and the port rule of sys/node_ports.h.
#include "ordo/sys/address.h"

#include <gtest/gtest.h>

#include "ordo/sys/node_ports.h"

namespace ordo::sys {
namespace {

TEST(SysAddress, ParsesIPv4AndPort) {
  Result<HostPort> hp = parse_address("10.1.2.3:7001");
  ASSERT_TRUE(hp.is_ok()) << hp.status().to_string();
  EXPECT_EQ(hp->host, "10.1.2.3");
  EXPECT_EQ(hp->port, 7001);
  EXPECT_EQ(format_address(*hp), "10.1.2.3:7001");
  EXPECT_EQ(parse_address("127.0.0.1:1")->port, 1);
  EXPECT_EQ(parse_address("127.0.0.1:65535")->port, 65535);
}

// Each malformed address is InvalidArgument naming the address and the reason.
TEST(SysAddress, ParseErrorsNameTheAddressAndTheProblem) {
  struct Case {
    const char* address;
    const char* why;
  };
  const Case cases[] = {
      {"127.0.0.1", "no colon"},
      {"localhost:7001", "bad IPv4 address"},
      {":7001", "bad IPv4 address"},
      {"127.0.0:7001", "bad IPv4 address"},
      {"127.0.0.1:", "port not in 1..65535"},
      {"127.0.0.1:0", "port not in 1..65535"},
      {"127.0.0.1:65536", "port not in 1..65535"},
      {"127.0.0.1:70x", "port not in 1..65535"},
      {"127.0.0.1:-1", "port not in 1..65535"},
  };
  for (const Case& c : cases) {
    Result<HostPort> hp = parse_address(c.address);
    ASSERT_FALSE(hp.is_ok()) << c.address;
    EXPECT_TRUE(hp.status().is_invalid_argument()) << hp.status().to_string();
    EXPECT_EQ(hp.status().message(),
              std::string("address '") + c.address + "' is not IPv4:port (" + c.why + ")");
  }
}

TEST(SysAddress, ShiftPortStaysInRange) {
  EXPECT_EQ(*shift_port("127.0.0.1:7001", 1), "127.0.0.1:7002");
  EXPECT_EQ(*shift_port("127.0.0.1:7002", -1), "127.0.0.1:7001");
  EXPECT_EQ(*shift_port("127.0.0.1:65533", 2), "127.0.0.1:65535");
  Result<std::string> over = shift_port("127.0.0.1:65535", 1);
  ASSERT_TRUE(over.status().is_invalid_argument());
  EXPECT_NE(over.status().message().find("127.0.0.1:65535"), std::string::npos);
  EXPECT_TRUE(shift_port("127.0.0.1:1", -1).status().is_invalid_argument());
  EXPECT_TRUE(shift_port("localhost:7001", 1).status().is_invalid_argument());
}

TEST(SysNodePorts, ClientRaftAndSnapshotPortsAreConsecutive) {
  // Client port P, Raft P + 1, snapshot copies P + 2 (Raft + 1).
  EXPECT_EQ(*shift_port("127.0.0.1:7001", kRaftPortOffset), "127.0.0.1:7002");
  EXPECT_EQ(*shift_port("127.0.0.1:7001", kSnapshotPortOffset), "127.0.0.1:7003");
  EXPECT_EQ(*shift_port("127.0.0.1:7002", kSnapshotAfterRaft), "127.0.0.1:7003");
  EXPECT_EQ(kNodePortCount, 3);
  EXPECT_EQ(kReplicaPortCount, 2);
}

}  // namespace
}  // namespace ordo::sys
