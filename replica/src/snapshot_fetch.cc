#include "snapshot_fetch.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "codec.h"
#include "ordo/sys/socket.h"
#include "snapshot_server.h"

namespace ordo::replica {

namespace {

// Each receive of up to 1 MiB gets `timeout`.
Status receive_into(int sock, int file, uint64_t size, std::chrono::milliseconds timeout) {
  std::vector<char> buf(1 << 20);
  while (size > 0) {
    size_t want = buf.size() < size ? buf.size() : static_cast<size_t>(size);
    ORDO_RETURN_IF_ERROR(sys::recv_exact(sock, buf.data(), want, sys::deadline_in(timeout)));
    const char* p = buf.data();
    size_t left = want;
    while (left > 0) {
      ssize_t w = ::write(file, p, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        return Status::io_error("write copy", errno);
      }
      p += w;
      left -= static_cast<size_t>(w);
    }
    size -= want;
  }
  if (::fsync(file) != 0) return Status::io_error("fsync copy", errno);
  return Status::ok();
}

}  // namespace

Result<FetchedCopy> fetch_copy(const sys::HostPort& from, const std::string& dest,
                               std::chrono::milliseconds timeout, const ClusterId& cluster_id) {
  const std::string server = sys::format_address(from);
  ORDO_ASSIGN_OR_RETURN(int sock, sys::connect_to(from, sys::deadline_in(timeout)));
  const std::string request = std::string(kCopyRequest) + " " + cluster_id.hex() + "\n";
  Status s = sys::send_all(sock, request, sys::deadline_in(timeout));
  char first[8];
  if (s.is_ok()) s = sys::recv_exact(sock, first, sizeof first, sys::deadline_in(timeout));
  if (!s.is_ok()) {
    ::close(sock);
    return s.with_context("fetch a copy from " + server);
  }
  FetchedCopy copy;
  copy.size_bytes = codec::load_u64_be(std::string_view(first, sizeof first));
  if (copy.size_bytes == kNoCopy) {
    ::close(sock);
    return Status::not_found("snapshot server " + server + " made no copy");
  }
  const bool refused = copy.size_bytes == kWrongCluster;
  // xxh3, applied index, cluster id; or the cluster id alone when refused.
  char rest[32];
  const size_t rest_bytes = refused ? 16 : sizeof rest;
  s = sys::recv_exact(sock, rest, rest_bytes, sys::deadline_in(timeout));
  if (!s.is_ok()) {
    ::close(sock);
    return s.with_context("fetch a copy from " + server);
  }
  ClusterId theirs;
  std::memcpy(theirs.bytes.data(), rest + rest_bytes - 16, 16);
  if (refused || (cluster_id.known() && theirs != cluster_id)) {
    ::close(sock);
    return Status::invalid_argument("snapshot server " + server + " is in cluster " + theirs.hex() +
                                    ", this replica in cluster " + cluster_id.hex());
  }
  copy.xxh3 = codec::load_u64_be(std::string_view(rest, 8));
  copy.applied_index = codec::load_u64_be(std::string_view(rest + 8, 8));
  int file = ::open(dest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file < 0) {
    int err = errno;
    ::close(sock);
    return Status::io_error("create " + dest, err);
  }
  s = receive_into(sock, file, copy.size_bytes, timeout);
  ::close(sock);
  ::close(file);
  if (!s.is_ok()) {
    ::unlink(dest.c_str());
    return s.with_context("fetch a copy from " + server);
  }
  return copy;
}

}  // namespace ordo::replica
