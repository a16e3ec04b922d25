// What stream.cc and tls.cc share: OpenSSL calls bounded by a deadline on a
// socket, and OpenSSL's reasons as text.
#pragma once

#include <openssl/ssl.h>

#include <functional>
#include <string>

#include "ordo/status.h"
#include "ordo/sys/socket.h"

namespace ordo::sys::internal {

// Runs `op` (SSL_read, SSL_write, SSL_do_handshake or SSL_peek on `ssl`)
// until it returns > 0, waiting on `fd` for what it wants until `deadline`.
// Its result; IOError "connection closed" (errno 0) on a clean or abrupt
// EOF, "timed out", "<what>: <errno text>" for a socket error, and
// "TLS: <reason>" (EPROTO) for a TLS failure.
Result<int> ssl_call(SSL* ssl, int fd, Deadline deadline, const char* what,
                     const std::function<int()>& op);

// OpenSSL's reason for the last failure on this thread (and `ssl`'s
// certificate verification result when it failed); clears the thread's
// error queue.
std::string ssl_error_text(const SSL* ssl);

// Waits for `events` (POLLIN, POLLOUT) on fd until `deadline`: Ok when
// ready, IOError "timed out" after.
Status wait_fd(int fd, short events, Deadline deadline);

}  // namespace ordo::sys::internal
