// The forwarders of the fault tests (link_proxy.h): bytes pass both ways,
// a cut drops the open connection and refuses new ones, a heal lets them
// through again; a closed writing end reaches the other side after its bytes.
#include "link_proxy.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "ordo/sys/ports.h"
#include "ordo/sys/socket.h"

namespace ordo::testing {
namespace {

using namespace std::chrono_literals;

struct Echo {
  int listen_fd = -1;
  std::string address;
  Echo() {
    Result<uint16_t> port = sys::pick_free_port_run(1);
    EXPECT_TRUE(port.is_ok());
    address = "127.0.0.1:" + std::to_string(*port);
    Result<int> fd = sys::listen_on(address, 16, sys::Blocking::kYes);
    EXPECT_TRUE(fd.is_ok()) << fd.status().to_string();
    listen_fd = *fd;
  }
  ~Echo() { ::close(listen_fd); }
};

std::string receive(int fd, size_t n) {
  std::string out(n, '\0');
  Status s = sys::recv_exact(fd, out.data(), n, sys::deadline_in(2000ms));
  return s.is_ok() ? out : "error: " + s.to_string();
}

TEST(LinkProxyTest, ForwardsCutsAndHeals) {
  Echo target;
  auto net = LinkProxies::start();
  ASSERT_TRUE(net.is_ok());
  Result<std::string> via = (*net)->link(1, 2, target.address);
  ASSERT_TRUE(via.is_ok()) << via.status().to_string();
  EXPECT_EQ(*(*net)->link(1, 2, target.address), *via);  // the same forwarder

  Result<int> client = sys::connect_to(*via, sys::deadline_in(2000ms));
  ASSERT_TRUE(client.is_ok());
  int server = ::accept(target.listen_fd, nullptr, nullptr);
  ASSERT_GE(server, 0);
  ASSERT_TRUE(sys::send_all(*client, "hello", sys::deadline_in(1000ms)).is_ok());
  EXPECT_EQ(receive(server, 5), "hello");
  ASSERT_TRUE(sys::send_all(server, "back", sys::deadline_in(1000ms)).is_ok());
  EXPECT_EQ(receive(*client, 4), "back");

  // Cut: both ends see the connection closed.
  (*net)->cut(2, 1);
  EXPECT_TRUE((*net)->is_cut(1, 2));
  char c;
  EXPECT_FALSE(sys::recv_exact(*client, &c, 1, sys::deadline_in(2000ms)).is_ok());
  EXPECT_FALSE(sys::recv_exact(server, &c, 1, sys::deadline_in(2000ms)).is_ok());
  ::close(*client);
  ::close(server);
  // A new connection is closed at once, and never reaches the target.
  Result<int> refused = sys::connect_to(*via, sys::deadline_in(2000ms));
  ASSERT_TRUE(refused.is_ok());
  EXPECT_FALSE(sys::recv_exact(*refused, &c, 1, sys::deadline_in(2000ms)).is_ok());
  ::close(*refused);
  EXPECT_GE((*net)->refused(), 1u);

  // Healed: through again; a half-close passes after the bytes before it.
  (*net)->heal(1, 2);
  client = sys::connect_to(*via, sys::deadline_in(2000ms));
  ASSERT_TRUE(client.is_ok());
  server = ::accept(target.listen_fd, nullptr, nullptr);
  ASSERT_GE(server, 0);
  ASSERT_TRUE(sys::send_all(server, "last words", sys::deadline_in(1000ms)).is_ok());
  ::shutdown(server, SHUT_WR);
  EXPECT_EQ(receive(*client, 10), "last words");
  Result<size_t> eof = sys::recv_some(*client, &c, 1, sys::deadline_in(2000ms));
  EXPECT_FALSE(eof.is_ok());
  ::close(*client);
  ::close(server);
  EXPECT_EQ((*net)->connections(), 2u);
}

}  // namespace
}  // namespace ordo::testing
