// sys/socket.h against real loopback sockets: refusals, deadlines that
// expire, closed peers, lines, and a taken port.
#include "ordo/sys/socket.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "ordo/sys/ports.h"

namespace ordo::sys {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A listener on a free loopback port, a connection to it and the accepted
// end; every descriptor closed at the end.
struct Pair {
  Pair() {
    Result<uint16_t> port = pick_free_port_run(1);
    EXPECT_TRUE(port.is_ok()) << port.status().to_string();
    address = HostPort{"127.0.0.1", *port};
    Result<int> l = listen_on(address, 4, Blocking::kYes);
    EXPECT_TRUE(l.is_ok()) << l.status().to_string();
    listener = *l;
    Result<int> c = connect_to(address, deadline_in(5s));
    EXPECT_TRUE(c.is_ok()) << c.status().to_string();
    client = *c;
    server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);  // blocking, as a server may be
    EXPECT_GE(server, 0);
  }
  ~Pair() {
    for (int fd : {listener, client, server}) {
      if (fd >= 0) ::close(fd);
    }
  }
  HostPort address;
  int listener = -1;
  int client = -1;
  int server = -1;
};

TEST(SysSocket, BytesGoBothWays) {
  Pair p;
  ASSERT_TRUE(send_all(p.client, "hello\nrest", deadline_in(5s)).is_ok());
  Result<std::string> line = read_line(p.server, 64, deadline_in(5s));
  ASSERT_TRUE(line.is_ok()) << line.status().to_string();
  EXPECT_EQ(*line, "hello");
  char rest[4];
  ASSERT_TRUE(recv_exact(p.server, rest, 4, deadline_in(5s)).is_ok());
  EXPECT_EQ(std::string(rest, 4), "rest");
  const std::string big(4 << 20, 'x');  // more than the socket buffers hold
  std::string got(big.size(), '\0');
  std::thread reader(
      [&] { EXPECT_TRUE(recv_exact(p.client, got.data(), got.size(), deadline_in(20s)).is_ok()); });
  EXPECT_TRUE(send_all(p.server, big, deadline_in(20s)).is_ok());
  reader.join();
  EXPECT_TRUE(got == big);
}

TEST(SysSocket, ConnectToAPortNobodyListensOnIsRefused) {
  Result<uint16_t> port = pick_free_port_run(1);
  ASSERT_TRUE(port.is_ok());
  const std::string address = "127.0.0.1:" + std::to_string(*port);
  Result<int> fd = connect_to(address, deadline_in(5s));
  ASSERT_FALSE(fd.is_ok());
  EXPECT_TRUE(fd.status().is_io_error());
  EXPECT_EQ(fd.status().errno_value(), ECONNREFUSED);
  EXPECT_EQ(fd.status().message(), "connect " + address + ": connection refused");
  EXPECT_TRUE(connect_to("nowhere:1", deadline_in(5s)).status().is_invalid_argument());
}

// A receive with nothing coming ends at its deadline, on a blocking
// descriptor too.
TEST(SysSocket, AReceiveDeadlineExpires) {
  Pair p;
  for (int fd : {p.client, p.server}) {
    const auto start = Clock::now();
    char byte = 0;
    Status s = recv_exact(fd, &byte, 1, deadline_in(200ms));
    const auto took = Clock::now() - start;
    ASSERT_TRUE(s.is_io_error()) << s.to_string();
    EXPECT_EQ(s.errno_value(), ETIMEDOUT);
    EXPECT_EQ(s.message(), "timed out");
    EXPECT_GE(took, 190ms);
    EXPECT_LT(took, 5s);
  }
  Result<std::string> line = read_line(p.server, 64, deadline_in(100ms));
  EXPECT_EQ(line.status().errno_value(), ETIMEDOUT) << line.status().to_string();
}

// A send that the peer never reads ends at its deadline.
TEST(SysSocket, ASendDeadlineExpires) {
  Pair p;
  const std::string big(64 << 20, 'x');
  const auto start = Clock::now();
  Status s = send_all(p.server, big, deadline_in(300ms));
  EXPECT_EQ(s.errno_value(), ETIMEDOUT) << s.to_string();
  EXPECT_LT(Clock::now() - start, 10s);
}

// What a 4-byte receive says when the peer sent `sent` and closed.
std::string receive_after_close(std::string_view sent) {
  Pair p;
  EXPECT_TRUE(send_all(p.client, sent, deadline_in(5s)).is_ok());
  ::close(std::exchange(p.client, -1));
  char buf[4];
  return recv_exact(p.server, buf, 4, deadline_in(5s)).message();
}

// recv_all hands over what came before the peer closed; the close itself
// is no error there. whole_or_closed names what recv_exact makes of it.
TEST(SysSocket, RecvAllStopsAtTheClose) {
  Pair p;
  ASSERT_TRUE(send_all(p.client, "abcdef", deadline_in(5s)).is_ok());
  char buf[8];
  Result<size_t> whole = recv_all(p.server, buf, 2, deadline_in(5s));
  ASSERT_TRUE(whole.is_ok()) << whole.status().to_string();
  EXPECT_EQ(std::string(buf, *whole), "ab");
  ::close(std::exchange(p.client, -1));
  Result<size_t> rest = recv_all(p.server, buf, sizeof buf, deadline_in(5s));
  ASSERT_TRUE(rest.is_ok()) << rest.status().to_string();
  EXPECT_EQ(std::string(buf, *rest), "cdef");
  Result<size_t> none = recv_all(p.server, buf, sizeof buf, deadline_in(5s));
  ASSERT_TRUE(none.is_ok()) << none.status().to_string();
  EXPECT_EQ(*none, 0u);

  EXPECT_TRUE(whole_or_closed(4, 4).is_ok());
  EXPECT_EQ(whole_or_closed(0, 4).message(), "connection closed");
  EXPECT_EQ(whole_or_closed(3, 4).message(), "connection closed mid-frame");
  EXPECT_TRUE(whole_or_closed(3, 4).is_io_error());
  EXPECT_EQ(whole_or_closed(3, 4).errno_value(), 0);
}

TEST(SysSocket, ARecvAllDeadlineExpires) {
  Pair p;
  ASSERT_TRUE(send_all(p.client, "ab", deadline_in(5s)).is_ok());
  char buf[4];
  Result<size_t> got = recv_all(p.server, buf, sizeof buf, deadline_in(100ms));
  ASSERT_FALSE(got.is_ok());
  EXPECT_EQ(got.status().errno_value(), ETIMEDOUT) << got.status().to_string();
}

TEST(SysSocket, APeerThatClosesIsNamed) {
  EXPECT_EQ(receive_after_close(""), "connection closed");
  EXPECT_EQ(receive_after_close("ab"), "connection closed mid-frame");
  Pair p;
  EXPECT_FALSE(peer_closed(p.client));
  ::close(std::exchange(p.server, -1));
  const auto until = Clock::now() + 5s;
  while (!peer_closed(p.client) && Clock::now() < until) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(peer_closed(p.client));
}

TEST(SysSocket, ALineLongerThanTheLimitIsInvalid) {
  Pair p;
  ASSERT_TRUE(send_all(p.client, "0123456789\n", deadline_in(5s)).is_ok());
  Result<std::string> line = read_line(p.server, 4, deadline_in(5s));
  ASSERT_TRUE(line.status().is_invalid_argument()) << line.status().to_string();
  EXPECT_EQ(line.status().message(), "line longer than 4 bytes");
}

TEST(SysSocket, ListeningOnATakenPortNamesIt) {
  Pair p;
  const std::string where = format_address(p.address);
  Result<int> again = listen_on(where, 4, Blocking::kNo);
  ASSERT_FALSE(again.is_ok());
  EXPECT_EQ(again.status().errno_value(), EADDRINUSE);
  EXPECT_EQ(again.status().message().rfind("listen on " + where + ": ", 0), 0u)
      << again.status().message();
  EXPECT_TRUE(listen_on("127.0.0.1:0", 4, Blocking::kNo).status().is_invalid_argument());
}

}  // namespace
}  // namespace ordo::sys
