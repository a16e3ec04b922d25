// A connected TCP socket, plain or TLS, with the deadline-bounded calls of
// socket.h: the framing above it (ordo-node's frames, the snapshot copy
// channel) works the same on either. A TLS stream comes from
// TlsContext::accept or TlsContext::connect (tls.h); a plain one from a
// descriptor. Errors are as socket.h's ("timed out", "connection closed",
// "connection closed mid-frame"); a TLS failure is IOError "TLS: <OpenSSL's
// reason>" (errno EPROTO).
// Thread-safety: one thread at a time per Stream; distinct Streams are
// independent. No signal is raised on a closed peer (MSG_NOSIGNAL).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ordo/status.h"
#include "ordo/sys/socket.h"

struct ssl_st;  // OpenSSL's SSL

namespace ordo::sys {

class Stream {
 public:
  Stream() = default;
  // A plain stream over the connected socket `fd`; the Stream closes it.
  explicit Stream(int fd) : fd_(fd) {}
  // A TLS stream over `fd` with the handshaken `ssl`; owns both.
  Stream(int fd, ssl_st* ssl) : fd_(fd), ssl_(ssl) {}
  ~Stream() { close(); }
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  bool is_open() const { return fd_ >= 0; }
  bool is_tls() const { return ssl_ != nullptr; }
  int fd() const { return fd_; }

  // As the free functions of socket.h, over this stream (the TLS record
  // layer between when is_tls()).
  Status send_all(std::string_view bytes, Deadline deadline);
  Result<size_t> recv_some(char* out, size_t capacity, Deadline deadline);
  Result<size_t> recv_all(char* out, size_t size, Deadline deadline);
  Status recv_exact(char* out, size_t size, Deadline deadline);
  Result<std::string> read_line(size_t max, Deadline deadline);

  // Decrypted bytes waiting in the TLS layer that a poll(2) of the socket
  // would not show (0 for a plain stream). Does not block.
  size_t buffered() const;

  // Whether the connection has something to read although no request is
  // outstanding (EOF, a reset, stray bytes): socket.h's peer_closed, over
  // the TLS layer for a TLS stream. Does not block.
  bool peer_closed();

  // The peer certificate's subject common name ("" for a plain stream or
  // without a certificate).
  std::string peer_name() const;

  // Ends any transfer in progress from another thread: shutdown(2) of the
  // socket (the descriptor stays open until close()).
  void shutdown_both();

  // Closes the connection (a TLS close_notify first, without waiting).
  // Idempotent.
  void close();

  // Gives up the descriptor without closing it; the Stream is closed after.
  // REQUIRES: !is_tls().
  int release();

 private:
  int fd_ = -1;
  ssl_st* ssl_ = nullptr;
};

}  // namespace ordo::sys
