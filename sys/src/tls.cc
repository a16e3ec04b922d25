#include "ordo/sys/tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <mutex>

#include "ordo/base/errno_status.h"
#include "ssl_io.h"

namespace ordo::sys {
namespace {

// A BIO over a socket descriptor that never raises SIGPIPE (OpenSSL's
// socket BIO writes with write(2)) and never blocks (each call is
// MSG_DONTWAIT; ssl_call waits with poll). It does not close the socket.
int socket_of(BIO* bio) { return static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(bio))); }

int bio_write(BIO* bio, const char* data, int size) {
  BIO_clear_retry_flags(bio);
  const ssize_t n =
      ::send(socket_of(bio), data, static_cast<size_t>(size), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_write(bio);
  }
  return static_cast<int>(n);
}

int bio_read(BIO* bio, char* out, int size) {
  BIO_clear_retry_flags(bio);
  const ssize_t n = ::recv(socket_of(bio), out, static_cast<size_t>(size), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_read(bio);
  }
  return static_cast<int>(n);
}

long bio_ctrl(BIO* /*bio*/, int command, long /*num*/, void* /*ptr*/) {
  // Writes go straight to the socket: nothing to flush.
  return command == BIO_CTRL_FLUSH ? 1 : 0;
}

// Made once and kept for the process: a table of function pointers, not a
// setting of OpenSSL's.
BIO_METHOD* socket_bio_method() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "ordo socket");
    if (m != nullptr) {
      BIO_meth_set_write(m, bio_write);
      BIO_meth_set_read(m, bio_read);
      BIO_meth_set_ctrl(m, bio_ctrl);
    }
    return m;
  }();
  return method;
}

Status file_error(const std::string& what, const std::string& file) {
  if (::access(file.c_str(), R_OK) != 0) return base::os_error(what + " " + file, errno);
  return Status::io_error(what + " " + file + ": " + internal::ssl_error_text(nullptr), EPROTO);
}

// The names a certificate goes by: its subject CN and DNS alternative names.
std::vector<std::string> certificate_names(X509* cert) {
  std::vector<std::string> names;
  char cn[256] = {};
  const int n = X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn,
                                          static_cast<int>(sizeof cn));
  if (n > 0) names.emplace_back(cn, static_cast<size_t>(n));
  auto* sans =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (sans != nullptr) {
    for (int i = 0; i < sk_GENERAL_NAME_num(sans); ++i) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(sans, i);
      if (name->type != GEN_DNS) continue;
      const ASN1_STRING* s = name->d.dNSName;
      names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                         static_cast<size_t>(ASN1_STRING_length(s)));
    }
    GENERAL_NAMES_free(sans);
  }
  return names;
}

}  // namespace

Result<std::shared_ptr<TlsContext>> TlsContext::create(const TlsConfig& config, TlsRole role) {
  const bool server = role == TlsRole::kServer;
  if (config.ca_file.empty()) return Status::invalid_argument("TLS needs a CA file (--tls-ca)");
  if (server && (config.cert_file.empty() || config.key_file.empty())) {
    return Status::invalid_argument(
        "a TLS server needs a certificate and a key (--tls-cert, "
        "--tls-key)");
  }
  if (config.cert_file.empty() != config.key_file.empty()) {
    return Status::invalid_argument(
        "a TLS certificate needs its key and a key its certificate "
        "(--tls-cert with --tls-key)");
  }
  if (socket_bio_method() == nullptr) {
    return Status::io_error("TLS: " + internal::ssl_error_text(nullptr), EPROTO);
  }
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  if (ctx == nullptr) return Status::io_error("TLS: " + internal::ssl_error_text(nullptr), EPROTO);
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> owner(ctx, &SSL_CTX_free);
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION);
  // A peer that closes without close_notify is an EOF: frames carry their own length.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
  // No session tickets: no resumption is used, and a ticket arriving after
  // the handshake would look like stray bytes to an idle client.
  if (server) SSL_CTX_set_num_tickets(ctx, 0);
  if (!config.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx, config.cert_file.c_str()) != 1) {
      return file_error("TLS certificate", config.cert_file);
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, config.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      return file_error("TLS key", config.key_file);
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
      return Status::io_error("TLS key " + config.key_file + " does not match the certificate " +
                                  config.cert_file + ": " + internal::ssl_error_text(nullptr),
                              EPROTO);
    }
  }
  if (SSL_CTX_load_verify_file(ctx, config.ca_file.c_str()) != 1) {
    return file_error("TLS CA file", config.ca_file);
  }
  int mode = SSL_VERIFY_PEER;
  if (!server || config.require_peer_cert) mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  SSL_CTX_set_verify(ctx, mode, nullptr);
  return std::shared_ptr<TlsContext>(
      new TlsContext(owner.release(), role, config.allowed_peer_names));
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

Result<Stream> TlsContext::handshake(int fd, Deadline deadline) const {
  ERR_clear_error();
  SSL* ssl = SSL_new(ctx_);
  BIO* bio = ssl == nullptr ? nullptr : BIO_new(socket_bio_method());
  if (bio == nullptr) {
    SSL_free(ssl);
    ::close(fd);
    return Status::io_error("TLS: " + internal::ssl_error_text(nullptr), EPROTO);
  }
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<intptr_t>(fd)));
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl, bio, bio);
  if (role_ == TlsRole::kServer) {
    SSL_set_accept_state(ssl);
  } else {
    SSL_set_connect_state(ssl);
  }
  Stream stream(fd, ssl);  // closes both on every return below but the last
  ORDO_ASSIGN_OR_RETURN(const int done,
                        internal::ssl_call(ssl, fd, deadline, internal::SslOp::kHandshake,
                                           [ssl] { return SSL_do_handshake(ssl); }));
  if (done == 0) return Status::io_error("TLS handshake: connection closed", 0);
  if (!allowed_.empty()) {
    X509* cert = SSL_get0_peer_certificate(ssl);
    std::vector<std::string> names;
    if (cert != nullptr) names = certificate_names(cert);
    const bool allowed = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
      return std::find(allowed_.begin(), allowed_.end(), n) != allowed_.end();
    });
    if (!allowed) {
      return Status::io_error(
          "TLS: peer '" + (names.empty() ? std::string() : names.front()) + "' is not allowed",
          EACCES);
    }
  }
  return stream;
}

}  // namespace ordo::sys
