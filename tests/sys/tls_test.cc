// sys/tls.h and sys/stream.h on loopback sockets with throwaway certificates
// (tests/util/tls_test_certs.h): a mutual-TLS round trip, the refusals
// (another CA, no certificate, a name off the allow-list, a plaintext peer),
// file errors and a handshake deadline.
#include "ordo/sys/tls.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "ordo/sys/ports.h"
#include "ordo/sys/temp_dir.h"
#include "tls_test_certs.h"

namespace ordo::sys {
namespace {

using namespace std::chrono_literals;

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<TempDir> dir = TempDir::make("tls-test");
    ASSERT_TRUE(dir.is_ok()) << dir.status().to_string();
    dir_ = std::make_unique<TempDir>(std::move(*dir));
    Status made = test::make_test_certs(dir_->path());
    ASSERT_TRUE(made.is_ok()) << made.to_string();
    Result<uint16_t> port = pick_free_port_run(1);
    ASSERT_TRUE(port.is_ok()) << port.status().to_string();
    address_ = HostPort{"127.0.0.1", *port};
    Result<int> l = listen_on(address_, 4, Blocking::kYes);
    ASSERT_TRUE(l.is_ok()) << l.status().to_string();
    listener_ = *l;
  }
  void TearDown() override {
    if (listener_ >= 0) ::close(listener_);
  }

  std::string file(const std::string& name) const { return dir_->path() + "/" + name; }
  TlsConfig config(const std::string& who) const {
    TlsConfig c;
    c.cert_file = file(who + ".pem");
    c.key_file = file(who + ".key");
    c.ca_file = file("ca.pem");
    return c;
  }
  std::shared_ptr<TlsContext> context(const TlsConfig& c, TlsRole role) {
    Result<std::shared_ptr<TlsContext>> ctx = TlsContext::create(c, role);
    EXPECT_TRUE(ctx.is_ok()) << ctx.status().to_string();
    return ctx.is_ok() ? *ctx : nullptr;
  }

  // Accepts one connection and runs the server handshake on it.
  std::future<Result<Stream>> serve(std::shared_ptr<TlsContext> server) {
    return std::async(std::launch::async, [this, server]() -> Result<Stream> {
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return Status::io_error("accept", errno);
      return server->handshake(fd, deadline_in(5s));
    });
  }
  Result<Stream> dial(const TlsContext& client) {
    ORDO_ASSIGN_OR_RETURN(int fd, connect_to(address_, deadline_in(5s)));
    return client.handshake(fd, deadline_in(5s));
  }

  std::unique_ptr<TempDir> dir_;
  HostPort address_;
  int listener_ = -1;
};

TEST_F(TlsTest, MutualRoundTrip) {
  auto server_ctx = context(config("node"), TlsRole::kServer);
  auto client_ctx = context(config("client"), TlsRole::kClient);
  ASSERT_TRUE(server_ctx && client_ctx);
  auto accepted = serve(server_ctx);
  Result<Stream> client = dial(*client_ctx);
  ASSERT_TRUE(client.is_ok()) << client.status().to_string();
  Result<Stream> server = accepted.get();
  ASSERT_TRUE(server.is_ok()) << server.status().to_string();
  EXPECT_TRUE(client->is_tls());
  EXPECT_EQ(server->peer_name(), "client");
  EXPECT_EQ(client->peer_name(), "node");
  EXPECT_FALSE(client->peer_closed());  // no session ticket or other stray record

  // Bigger than a TLS record (16 KiB), both ways.
  const std::string big(100000, 'x');
  ASSERT_TRUE(client->send_all(big + "line\n", deadline_in(5s)).is_ok());
  std::string got(big.size(), '\0');
  ASSERT_TRUE(server->recv_exact(got.data(), got.size(), deadline_in(5s)).is_ok());
  EXPECT_EQ(got, big);
  Result<std::string> line = server->read_line(16, deadline_in(5s));
  ASSERT_TRUE(line.is_ok()) << line.status().to_string();
  EXPECT_EQ(*line, "line");
  ASSERT_TRUE(server->send_all("ab", deadline_in(5s)).is_ok());
  char two[2];
  ASSERT_TRUE(client->recv_exact(two, 2, deadline_in(5s)).is_ok());
  EXPECT_EQ(std::string(two, 2), "ab");

  // Nothing to read: a deadline; then the peer closes.
  Result<size_t> none = server->recv_some(two, 1, deadline_in(50ms));
  ASSERT_FALSE(none.is_ok());
  EXPECT_EQ(none.status().message(), "timed out");
  // Four bytes, then the close: recv_all hands over what came, recv_exact
  // of more than is left is cut mid-frame, and then there is nothing.
  ASSERT_TRUE(client->send_all("abcd", deadline_in(5s)).is_ok());
  client->close();
  char buf[8];
  Result<size_t> first = server->recv_all(buf, 2, deadline_in(5s));
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  EXPECT_EQ(std::string(buf, *first), "ab");
  Status cut = server->recv_exact(buf, 4, deadline_in(5s));
  EXPECT_EQ(cut.message(), "connection closed mid-frame") << cut.to_string();
  EXPECT_EQ(std::string(buf, 2), "cd");
  Result<size_t> after = server->recv_all(buf, sizeof buf, deadline_in(5s));
  ASSERT_TRUE(after.is_ok()) << after.status().to_string();
  EXPECT_EQ(*after, 0u);
  Result<size_t> closed = server->recv_some(two, 1, deadline_in(5s));
  ASSERT_FALSE(closed.is_ok());
  EXPECT_EQ(closed.status().message(), "connection closed");
  EXPECT_EQ(closed.status().errno_value(), 0);
}

TEST_F(TlsTest, ClientOfAnotherCaIsRefused) {
  auto server_ctx = context(config("node"), TlsRole::kServer);
  TlsConfig stranger = config("stranger");
  stranger.ca_file = file("ca.pem");  // it trusts the node; the node does not trust it
  auto client_ctx = context(stranger, TlsRole::kClient);
  ASSERT_TRUE(server_ctx && client_ctx);
  auto accepted = serve(server_ctx);
  Result<Stream> client = dial(*client_ctx);
  Result<Stream> server = accepted.get();
  ASSERT_FALSE(server.is_ok());
  EXPECT_NE(server.status().message().find("TLS handshake"), std::string::npos)
      << server.status().to_string();
  // TLS 1.3: the client learns of it at its first read.
  if (client.is_ok()) {
    char c;
    EXPECT_FALSE(client->recv_exact(&c, 1, deadline_in(5s)).is_ok());
  }
}

TEST_F(TlsTest, ClientWithoutCertificateIsRefused) {
  auto server_ctx = context(config("node"), TlsRole::kServer);
  TlsConfig anonymous;
  anonymous.ca_file = file("ca.pem");
  auto client_ctx = context(anonymous, TlsRole::kClient);
  ASSERT_TRUE(server_ctx && client_ctx);
  auto accepted = serve(server_ctx);
  (void)dial(*client_ctx);
  Result<Stream> server = accepted.get();
  ASSERT_FALSE(server.is_ok());
  EXPECT_NE(server.status().message().find("certificate"), std::string::npos)
      << server.status().to_string();
}

TEST_F(TlsTest, AllowListByCommonNameAndAlternativeName) {
  TlsConfig node = config("node");
  node.allowed_peer_names = {"client"};
  auto server_ctx = context(node, TlsRole::kServer);
  auto intruder_ctx = context(config("intruder"), TlsRole::kClient);
  ASSERT_TRUE(server_ctx && intruder_ctx);
  auto accepted = serve(server_ctx);
  (void)dial(*intruder_ctx);
  Result<Stream> server = accepted.get();
  ASSERT_FALSE(server.is_ok());
  EXPECT_EQ(server.status().message(), "TLS: peer 'intruder' is not allowed");

  // A client may pin the node by its DNS alternative name.
  TlsConfig pinned = config("client");
  pinned.allowed_peer_names = {"node.test"};
  auto pinned_ctx = context(pinned, TlsRole::kClient);
  accepted = serve(server_ctx);
  Result<Stream> client = dial(*pinned_ctx);
  EXPECT_TRUE(client.is_ok()) << client.status().to_string();
  EXPECT_TRUE(accepted.get().is_ok());
}

TEST_F(TlsTest, PlaintextPeerFailsTheHandshake) {
  auto server_ctx = context(config("node"), TlsRole::kServer);
  ASSERT_TRUE(server_ctx);
  auto accepted = serve(server_ctx);
  Result<int> plain = connect_to(address_, deadline_in(5s));
  ASSERT_TRUE(plain.is_ok());
  ASSERT_TRUE(
      send_all(*plain, std::string("\x07\x00\x00\x00status!", 11), deadline_in(5s)).is_ok());
  Result<Stream> server = accepted.get();
  ::close(*plain);
  ASSERT_FALSE(server.is_ok());
  // OpenSSL's reason, named as the handshake's once.
  EXPECT_EQ(server.status().message().rfind("TLS handshake: ", 0), 0u)
      << server.status().to_string();
  EXPECT_EQ(server.status().message().find("TLS: "), std::string::npos)
      << server.status().to_string();
  EXPECT_EQ(server.status().errno_value(), EPROTO) << server.status().to_string();
}

TEST_F(TlsTest, PeerThatClosesBeforeTheHandshakeIsNamed) {
  auto server_ctx = context(config("node"), TlsRole::kServer);
  ASSERT_TRUE(server_ctx);
  Result<int> gone = connect_to(address_, deadline_in(5s));
  ASSERT_TRUE(gone.is_ok());
  const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
  ASSERT_GE(fd, 0);
  ::close(*gone);
  Result<Stream> server = server_ctx->handshake(fd, deadline_in(5s));
  ASSERT_FALSE(server.is_ok());
  EXPECT_EQ(server.status().message(), "TLS handshake: connection closed")
      << server.status().to_string();
  EXPECT_EQ(server.status().errno_value(), 0);
}

TEST_F(TlsTest, HandshakeTimesOut) {
  auto server_ctx = context(config("node"), TlsRole::kServer);
  ASSERT_TRUE(server_ctx);
  Result<int> silent = connect_to(address_, deadline_in(5s));
  ASSERT_TRUE(silent.is_ok());
  const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
  ASSERT_GE(fd, 0);
  Result<Stream> server = server_ctx->handshake(fd, deadline_in(50ms));
  ::close(*silent);
  ASSERT_FALSE(server.is_ok());
  EXPECT_EQ(server.status().message(), "TLS handshake: timed out") << server.status().to_string();
  EXPECT_EQ(server.status().errno_value(), ETIMEDOUT);
}

TEST_F(TlsTest, ConfigurationErrorsNameTheFile) {
  TlsConfig missing = config("node");
  missing.cert_file = file("absent.pem");
  Result<std::shared_ptr<TlsContext>> ctx = TlsContext::create(missing, TlsRole::kServer);
  ASSERT_FALSE(ctx.is_ok());
  EXPECT_NE(ctx.status().message().find("absent.pem"), std::string::npos);

  TlsConfig garbage = config("node");
  garbage.ca_file = file("node.csr");  // PEM, but no certificate
  ctx = TlsContext::create(garbage, TlsRole::kServer);
  ASSERT_FALSE(ctx.is_ok());
  EXPECT_NE(ctx.status().message().find("node.csr"), std::string::npos);

  TlsConfig mismatch = config("node");
  mismatch.key_file = file("client.key");
  ctx = TlsContext::create(mismatch, TlsRole::kServer);
  ASSERT_FALSE(ctx.is_ok());
  EXPECT_NE(ctx.status().message().find("client.key"), std::string::npos)
      << ctx.status().to_string();

  TlsConfig no_ca = config("node");
  no_ca.ca_file.clear();
  ctx = TlsContext::create(no_ca, TlsRole::kServer);
  ASSERT_FALSE(ctx.is_ok());
  EXPECT_TRUE(ctx.status().is_invalid_argument());

  TlsConfig keyless;
  keyless.ca_file = file("ca.pem");
  EXPECT_TRUE(TlsContext::create(keyless, TlsRole::kClient).is_ok());
  EXPECT_FALSE(TlsContext::create(keyless, TlsRole::kServer).is_ok());
}

TEST(StreamTest, PlainStreamOwnsAndReleases) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  Stream a(fds[0]);
  Stream b(fds[1]);
  ASSERT_TRUE(a.send_all("hi\n", deadline_in(1s)).is_ok());
  Result<std::string> line = b.read_line(8, deadline_in(1s));
  ASSERT_TRUE(line.is_ok());
  EXPECT_EQ(*line, "hi");
  EXPECT_EQ(b.buffered(), 0u);
  EXPECT_FALSE(b.peer_closed());
  Stream moved = std::move(a);
  EXPECT_FALSE(a.is_open());
  moved.close();
  EXPECT_TRUE(b.peer_closed());
  const int fd = b.release();
  EXPECT_FALSE(b.is_open());
  EXPECT_EQ(::close(fd), 0);  // still open: release did not close it
}

}  // namespace
}  // namespace ordo::sys
