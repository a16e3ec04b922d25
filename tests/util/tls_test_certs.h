// Throwaway certificates for TLS tests, made with the `openssl` command line
// tool (Debian's openssl package) in a directory of the test's: a CA, a node
// certificate and client certificates signed by it, and a second CA with a
// client certificate of its own (one the first CA does not vouch for).
// P-256 keys, valid for a day. Names: file stems below, each NAME.pem and
// NAME.key (ca.pem, node.pem, node.key, ...).
#pragma once

#include <cstdlib>
#include <string>

#include "ordo/status.h"

namespace ordo::test {

// CN of each certificate: ca "test-ca", node "node" (DNS SAN "node.test"),
// client "client", intruder "intruder" (signed by ca), other-ca
// "other-ca", stranger "client" (signed by other-ca).
inline Status make_test_certs(const std::string& dir) {
  const std::string script =
      "set -e; cd '" + dir +
      "'; "
      "key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out $1.key; }; "
      "ca() { key $1; openssl req -x509 -new -key $1.key -out $1.pem -days 1 -subj /CN=$2; }; "
      "leaf() { key $1; openssl req -new -key $1.key -out $1.csr -subj /CN=$2 $4; "
      "  openssl x509 -req -in $1.csr -CA $3.pem -CAkey $3.key -CAcreateserial -out $1.pem "
      "  -days 1 -copy_extensions copy; }; "
      "ca ca test-ca; ca other-ca other-ca; "
      "leaf node node ca '-addext subjectAltName=DNS:node.test'; "
      "leaf client client ca; leaf intruder intruder ca; leaf stranger client other-ca; "
      "} >/dev/null 2>'" +
      dir + "/make-certs.log'";
  // The braces group every command's output into the log.
  const std::string command = "{ " + script;
  if (std::system(command.c_str()) != 0) {
    return Status::io_error(
        "openssl could not make the test certificates (see " + dir + "/make-certs.log)", 0);
  }
  return Status::ok();
}

}  // namespace ordo::test
