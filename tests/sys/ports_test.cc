// sys/ports.h: the ports it gives are really bindable, taken ones are not free.
#include "ordo/sys/ports.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "ordo/sys/socket.h"

namespace ordo::sys {
namespace {

// Listens on 127.0.0.1:port; the descriptor, or -1 with the reason logged.
int listen_loopback(uint16_t port) {
  Result<int> fd = listen_on(HostPort{"127.0.0.1", port}, 4, Blocking::kNo);
  EXPECT_TRUE(fd.is_ok()) << port << ": " << fd.status().to_string();
  return fd.is_ok() ? *fd : -1;
}

TEST(SysPorts, PickedFreePortsAreDistinctAndBindable) {
  Result<std::vector<uint16_t>> ports = pick_free_ports(4);
  ASSERT_TRUE(ports.is_ok()) << ports.status().to_string();
  ASSERT_EQ(ports->size(), 4u);
  EXPECT_EQ(std::set<uint16_t>(ports->begin(), ports->end()).size(), 4u);
  for (uint16_t port : *ports) {
    EXPECT_NE(port, 0);
    const int fd = listen_loopback(port);
    if (fd >= 0) ::close(fd);
  }
}

TEST(SysPorts, APortRunIsBindableWholeAndNotGivenTwice) {
  std::set<uint16_t> firsts;
  for (int i = 0; i < 20; ++i) {
    Result<uint16_t> first = pick_free_port_run(3);
    ASSERT_TRUE(first.is_ok()) << first.status().to_string();
    EXPECT_GE(*first, 15000);
    EXPECT_LE(*first, 32740);
    EXPECT_EQ(*first % 10, 0);
    EXPECT_TRUE(firsts.insert(*first).second) << *first << " given twice";
  }
  const uint16_t first = *firsts.begin();
  std::vector<int> fds;
  for (int i = 0; i < 3; ++i) fds.push_back(listen_loopback(static_cast<uint16_t>(first + i)));
  for (int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
  EXPECT_TRUE(pick_free_port_run(0).status().is_invalid_argument());
  EXPECT_TRUE(pick_free_port_run(11).status().is_invalid_argument());
}

TEST(SysPorts, AListeningPortIsNotFree) {
  Result<uint16_t> port = pick_free_port_run(1);
  ASSERT_TRUE(port.is_ok());
  EXPECT_TRUE(port_free(*port));
  const int fd = listen_loopback(*port);
  ASSERT_GE(fd, 0);
  EXPECT_FALSE(port_free(*port));
  Status probe = bind_probe(HostPort{"127.0.0.1", *port});
  EXPECT_EQ(probe.errno_value(), EADDRINUSE) << probe.to_string();
  EXPECT_EQ(probe.message().rfind("bind 127.0.0.1:" + std::to_string(*port) + ": ", 0), 0u)
      << probe.message();
  ::close(fd);
  EXPECT_TRUE(port_free(*port));
}

}  // namespace
}  // namespace ordo::sys
