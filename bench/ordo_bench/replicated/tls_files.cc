#include "tls_files.h"

#include <filesystem>
#include <fstream>
#include <vector>

#include "ordo/sys/child_process.h"

namespace ordo::bench {
namespace {

Status run_openssl(const std::string& openssl, std::vector<std::string> args,
                   const std::string& step) {
  args.insert(args.begin(), openssl);
  ORDO_ASSIGN_OR_RETURN(const sys::ChildResult r, sys::run_child(args));
  if (!r.ok()) {
    return Status::io_error("openssl " + step + " (" + r.how_it_ended() + "): " + r.err, 0);
  }
  return Status::ok();
}

// A key and a certificate signed by the CA in `files`, for `cn`, with the
// extensions in `ext` (openssl x509 -extfile syntax).
Status make_signed(const std::string& openssl, const std::string& dir, const TlsFiles& files,
                   const std::string& name, const std::string& cn, const std::string& ext,
                   std::string* cert, std::string* key) {
  *key = dir + "/" + name + ".key";
  *cert = dir + "/" + name + ".crt";
  const std::string csr = dir + "/" + name + ".csr";
  const std::string ext_file = dir + "/" + name + ".ext";
  {
    std::ofstream out(ext_file);
    out << ext << "\n";
    if (!out) return Status::io_error("cannot write " + ext_file, 0);
  }
  ORDO_RETURN_IF_ERROR(
      run_openssl(openssl,
                  {"req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                   "-keyout", *key, "-out", csr, "-subj", "/CN=" + cn},
                  name + " request"));
  return run_openssl(openssl,
                     {"x509", "-req", "-in", csr, "-CA", files.ca_cert, "-CAkey", dir + "/ca.key",
                      "-CAcreateserial", "-days", "2", "-out", *cert, "-extfile", ext_file},
                     name + " certificate");
}

}  // namespace

Result<TlsFiles> make_tls_files(const std::string& dir) {
  const std::string openssl = sys::find_in_path("openssl");
  if (openssl.empty()) {
    return Status::invalid_argument("TLS study: the openssl command is missing (package openssl)");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::io_error("cannot create " + dir, ec.value());
  TlsFiles files;
  files.ca_cert = dir + "/ca.crt";
  ORDO_RETURN_IF_ERROR(run_openssl(
      openssl,
      {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
       dir + "/ca.key", "-out", files.ca_cert, "-days", "2", "-subj", "/CN=ordo-bench-ca"},
      "CA"));
  ORDO_RETURN_IF_ERROR(
      make_signed(openssl, dir, files, "server", "ordo-bench-server",
                  "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth",
                  &files.server_cert, &files.server_key));
  ORDO_RETURN_IF_ERROR(make_signed(openssl, dir, files, "client", "ordo-bench-client",
                                   "extendedKeyUsage=clientAuth", &files.client_cert,
                                   &files.client_key));
  return files;
}

}  // namespace ordo::bench
