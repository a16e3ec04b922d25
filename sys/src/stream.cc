#include "ordo/sys/stream.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <utility>

#include "ordo/assert.h"
#include "ordo/base/errno_status.h"
#include "ssl_io.h"

namespace ordo::sys {
namespace internal {

Status wait_fd(int fd, short events, Deadline deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const int ms = left.count() <= 0 ? 0 : (left.count() > 1000000 ? 1000000 : left.count());
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, ms);
    if (n > 0) return Status::ok();
    if (n == 0) return Status::io_error("timed out", ETIMEDOUT);
    if (errno != EINTR) return base::os_error("poll", errno);
  }
}

std::string ssl_error_text(const SSL* ssl) {
  std::string text;
  // The first error queued is the cause; later ones are its consequences.
  const unsigned long first = ERR_get_error();
  if (first != 0) {
    const char* reason = ERR_reason_error_string(first);
    if (reason != nullptr) {
      text = reason;
    } else {
      char buf[256];
      ERR_error_string_n(first, buf, sizeof buf);
      text = buf;
    }
  }
  ERR_clear_error();
  if (ssl != nullptr) {
    const long verify = SSL_get_verify_result(ssl);
    if (verify != X509_V_OK) {
      text += std::string(text.empty() ? "" : ": ") + X509_verify_cert_error_string(verify);
    }
  }
  return text.empty() ? "unknown TLS failure" : text;
}

Result<int> ssl_call(SSL* ssl, int fd, Deadline deadline, SslOp kind,
                     const std::function<int()>& op) {
  const bool handshake = kind == SslOp::kHandshake;
  auto named = [handshake](const Status& s) {
    return handshake ? s.with_context("TLS handshake") : s;
  };
  for (;;) {
    ERR_clear_error();
    errno = 0;
    const int r = op();
    if (r > 0) return r;
    const int err = SSL_get_error(ssl, r);
    const int saved_errno = errno;
    switch (err) {
      case SSL_ERROR_WANT_READ:
        ORDO_RETURN_IF_ERROR(named(wait_fd(fd, POLLIN, deadline)));
        continue;
      case SSL_ERROR_WANT_WRITE:
        ORDO_RETURN_IF_ERROR(named(wait_fd(fd, POLLOUT, deadline)));
        continue;
      case SSL_ERROR_ZERO_RETURN:
        ERR_clear_error();
        return 0;
      case SSL_ERROR_SYSCALL:
        ERR_clear_error();
        if (saved_errno == 0) return 0;
        if (handshake) return base::os_error("TLS handshake", saved_errno);
        return base::os_error(kind == SslOp::kSend ? "send" : "recv", saved_errno);
      default:
        return Status::io_error((handshake ? "TLS handshake: " : "TLS: ") + ssl_error_text(ssl),
                                EPROTO);
    }
  }
}

}  // namespace internal

namespace {
// One SSL_read that waits: 1..capacity bytes, or 0 when the peer closed the
// connection. REQUIRES: capacity > 0.
Result<size_t> ssl_recv(SSL* ssl, int fd, char* out, size_t capacity, Deadline deadline) {
  ORDO_ASSERT(capacity > 0);
  const int chunk = capacity > INT_MAX ? INT_MAX : static_cast<int>(capacity);
  ORDO_ASSIGN_OR_RETURN(const int n, internal::ssl_call(ssl, fd, deadline, internal::SslOp::kRecv,
                                                        [&] { return SSL_read(ssl, out, chunk); }));
  return static_cast<size_t>(n);
}
}  // namespace

Stream::Stream(Stream&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), ssl_(std::exchange(other.ssl_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    ssl_ = std::exchange(other.ssl_, nullptr);
  }
  return *this;
}

Status Stream::send_all(std::string_view bytes, Deadline deadline) {
  if (ssl_ == nullptr) return sys::send_all(fd_, bytes, deadline);
  while (!bytes.empty()) {
    const int chunk = bytes.size() > INT_MAX ? INT_MAX : static_cast<int>(bytes.size());
    // A retried SSL_write repeats the same buffer and length, as OpenSSL requires.
    ORDO_ASSIGN_OR_RETURN(const int n,
                          internal::ssl_call(ssl_, fd_, deadline, internal::SslOp::kSend,
                                             [&] { return SSL_write(ssl_, bytes.data(), chunk); }));
    if (n == 0) return Status::io_error("connection closed", 0);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::ok();
}

Result<size_t> Stream::recv_some(char* out, size_t capacity, Deadline deadline) {
  ORDO_ASSERT(capacity > 0);
  if (ssl_ == nullptr) return sys::recv_some(fd_, out, capacity, deadline);
  ORDO_ASSIGN_OR_RETURN(const size_t n, ssl_recv(ssl_, fd_, out, capacity, deadline));
  if (n == 0) return Status::io_error("connection closed", 0);
  return n;
}

Result<size_t> Stream::recv_all(char* out, size_t size, Deadline deadline) {
  if (ssl_ == nullptr) return sys::recv_all(fd_, out, size, deadline);
  size_t got = 0;
  while (got < size) {
    ORDO_ASSIGN_OR_RETURN(const size_t n, ssl_recv(ssl_, fd_, out + got, size - got, deadline));
    if (n == 0) break;
    got += n;
  }
  return got;
}

Status Stream::recv_exact(char* out, size_t size, Deadline deadline) {
  ORDO_ASSIGN_OR_RETURN(const size_t got, recv_all(out, size, deadline));
  return whole_or_closed(got, size);
}

Result<std::string> Stream::read_line(size_t max, Deadline deadline) {
  if (ssl_ == nullptr) return sys::read_line(fd_, max, deadline);
  std::string line;
  for (;;) {
    char c = 0;
    ORDO_RETURN_IF_ERROR(recv_exact(&c, 1, deadline));
    if (c == '\n') return line;
    if (line.size() >= max) {
      return Status::invalid_argument("line longer than " + std::to_string(max) + " bytes");
    }
    line.push_back(c);
  }
}

size_t Stream::buffered() const {
  if (ssl_ == nullptr) return 0;
  // SSL_has_pending also sees a record read but not yet decrypted.
  const int pending = SSL_pending(ssl_);
  if (pending > 0) return static_cast<size_t>(pending);
  return SSL_has_pending(ssl_) == 1 ? 1 : 0;
}

bool Stream::peer_closed() {
  if (ssl_ == nullptr) return sys::peer_closed(fd_);
  if (SSL_pending(ssl_) > 0) return true;
  if (!sys::peer_closed(fd_)) return false;
  // Readable: a close, stray bytes, or a record without data (a key update).
  ERR_clear_error();
  char c = 0;
  const int r = SSL_peek(ssl_, &c, 1);
  if (r > 0) return true;
  const int err = SSL_get_error(ssl_, r);
  ERR_clear_error();
  return err != SSL_ERROR_WANT_READ;
}

std::string Stream::peer_name() const {
  if (ssl_ == nullptr) return {};
  X509* cert = SSL_get0_peer_certificate(ssl_);
  if (cert == nullptr) return {};
  char buf[256] = {};
  const int n = X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, buf,
                                          static_cast<int>(sizeof buf));
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

void Stream::shutdown_both() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

void Stream::close() {
  if (ssl_ != nullptr) {
    // One close_notify if the socket takes it now; the peer copes without.
    ERR_clear_error();
    (void)SSL_shutdown(ssl_);
    ERR_clear_error();
    SSL_free(ssl_);  // frees the BIO too, which does not own fd_
    ssl_ = nullptr;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

int Stream::release() {
  ORDO_ASSERT(ssl_ == nullptr);
  return std::exchange(fd_, -1);
}

}  // namespace ordo::sys
