// Throwaway certificates for a TLS study on 127.0.0.1: a CA, one server
// certificate (CN ordo-bench-server, SAN IP:127.0.0.1, used by every node of
// either engine on client and peer ports) and one client certificate (CN
// ordo-bench-client), all EC P-256, made with the `openssl` command (Debian
// package openssl) in a directory of the run.
#pragma once

#include <string>

#include "ordo/status.h"

namespace ordo::bench {

struct TlsFiles {
  std::string ca_cert;  // PEM files, absolute or relative to the run's directory
  std::string server_cert;
  std::string server_key;
  std::string client_cert;
  std::string client_key;
};

// Makes the files in `dir` (created when missing). InvalidArgument when the
// openssl command is not installed; IOError naming the step and openssl's
// stderr when a step fails.
Result<TlsFiles> make_tls_files(const std::string& dir);

}  // namespace ordo::bench
