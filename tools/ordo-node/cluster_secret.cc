// Cluster secrets: read from --cluster-secret-file, made by `ordo-node secret`.
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "ordo/hex.h"
#include "server.h"

namespace ordo::node {

namespace {
constexpr size_t kMinSecretBytes = 32;
constexpr size_t kMaxSecretBytes = 4096;
}  // namespace

Result<std::string> read_cluster_secret(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::io_error("cannot read " + path, errno);
  std::string text(kMaxSecretBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxSecretBytes) {
    return Status::invalid_argument(path + " is over " + std::to_string(kMaxSecretBytes) +
                                    " bytes: not a cluster secret");
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' ||
                           text.back() == '\t')) {
    text.pop_back();
  }
  if (text.size() < kMinSecretBytes) {
    return Status::invalid_argument(
        path + " holds " + std::to_string(text.size()) + " bytes; a cluster secret has at least " +
        std::to_string(kMinSecretBytes) + " (make one with `ordo-node secret > FILE`)");
  }
  return text;
}

Result<std::string> new_cluster_secret() {
  unsigned char bytes[32];
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::io_error("getrandom", errno);
    got += static_cast<size_t>(n);
  }
  return hex_string(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes)) + "\n";
}

}  // namespace ordo::node
