// What stream.cc and tls.cc share: OpenSSL calls bounded by a deadline on a
// socket, and OpenSSL's reasons as text.
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <functional>
#include <string>

#include "ordo/status.h"
#include "ordo/sys/socket.h"

namespace ordo::sys::internal {

// Which OpenSSL call ssl_call runs: its errors are named after it.
enum class SslOp : uint8_t {
  kSend,       // SSL_write
  kRecv,       // SSL_read
  kHandshake,  // SSL_do_handshake
};

// Runs `op` (the OpenSSL call `kind` names, on `ssl`) until it returns > 0,
// waiting on `fd` for what it wants until `deadline`. Its result, or 0 when
// the peer closed the connection (a clean or abrupt EOF). Errors: IOError
// "timed out" (ETIMEDOUT), "send: <errno text>" / "recv: <errno text>" for
// a socket error, "TLS: <reason>" (EPROTO) for a TLS failure; for
// kHandshake each of them starts "TLS handshake: " instead ("TLS
// handshake: timed out", "TLS handshake: <reason>", ...).
Result<int> ssl_call(SSL* ssl, int fd, Deadline deadline, SslOp kind,
                     const std::function<int()>& op);

// OpenSSL's reason for the last failure on this thread (and `ssl`'s
// certificate verification result when it failed); clears the thread's
// error queue.
std::string ssl_error_text(const SSL* ssl);

// Waits for `events` (POLLIN, POLLOUT) on fd until `deadline`: Ok when
// ready, IOError "timed out" after.
Status wait_fd(int fd, short events, Deadline deadline);

}  // namespace ordo::sys::internal
