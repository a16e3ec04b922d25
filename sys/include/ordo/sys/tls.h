// TLS 1.3 over OpenSSL 3 for the sockets of socket.h: a TlsContext made from
// PEM files, which turns a connected socket into a TLS Stream (stream.h).
// Both ends verify the other's certificate chain against the CA file; no
// host name or address is checked. A server context may require a client
// certificate and restrict the certificates' names (subject CN or a DNS
// subject alternative name) to an allow-list.
//
// No global state is changed: OpenSSL 3 initializes itself, and the sockets
// are written with MSG_NOSIGNAL (no SIGPIPE), so the host's signal handling
// is left as it is.
// Thread-safety: a TlsContext may be used from any number of threads at
// once; each Stream by one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ordo/status.h"
#include "ordo/sys/socket.h"
#include "ordo/sys/stream.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace ordo::sys {

struct TlsConfig {
  std::string cert_file;  // PEM certificate (chain) presented to the peer
  std::string key_file;   // PEM private key of cert_file
  std::string ca_file;    // PEM CA certificate(s) the peer's chain must end in
  // Server: refuse a client without a certificate (mutual TLS). A client
  // always requires the server's.
  bool require_peer_cert = true;
  // When not empty: only peers whose certificate names one of these (its
  // subject CN or a DNS subject alternative name) are accepted.
  std::vector<std::string> allowed_peer_names;

  // Whether TLS is asked for at all (any file given).
  bool enabled() const { return !cert_file.empty() || !key_file.empty() || !ca_file.empty(); }
};

enum class TlsRole { kClient, kServer };

class TlsContext {
 public:
  // Loads the files of `config`. InvalidArgument naming what is missing (a
  // server needs cert, key and CA; a client the CA, and a key with a cert);
  // IOError "<file>: <OpenSSL's reason>" for a file that cannot be read or
  // parsed, or a key that does not match the certificate.
  static Result<std::shared_ptr<TlsContext>> create(const TlsConfig& config, TlsRole role);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  TlsRole role() const { return role_; }

  // Runs the TLS handshake on the connected socket `fd` (either blocking
  // mode) as this context's role, bounded by `deadline`, and checks the
  // peer's name against the allow-list. Takes `fd` over: on failure it is
  // closed. IOError "TLS handshake: <reason>" (a certificate the CA did not
  // sign, no certificate, a peer that is not TLS, "timed out", "connection
  // closed"), or
  // "TLS: peer '<name>' is not allowed".
  Result<Stream> handshake(int fd, Deadline deadline) const;

 private:
  TlsContext(ssl_ctx_st* ctx, TlsRole role, std::vector<std::string> allowed)
      : ctx_(ctx), role_(role), allowed_(std::move(allowed)) {}
  ssl_ctx_st* ctx_;
  TlsRole role_;
  std::vector<std::string> allowed_;
};

// The first byte a TLS client sends (a handshake record): a connection
// whose first byte is another one is not speaking TLS.
inline constexpr unsigned char kTlsHandshakeRecord = 0x16;

}  // namespace ordo::sys
