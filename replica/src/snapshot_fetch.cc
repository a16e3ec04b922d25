#include "snapshot_fetch.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "ordo/sys/socket.h"
#include "ordo/sys/stream.h"
#include "snapshot_wire.h"

namespace ordo::replica {

namespace {

// Each receive of up to 1 MiB gets `timeout`.
Status receive_into(sys::Stream& sock, int file, uint64_t size, std::chrono::milliseconds timeout) {
  std::vector<char> buf(1 << 20);
  while (size > 0) {
    size_t want = buf.size() < size ? buf.size() : static_cast<size_t>(size);
    ORDO_RETURN_IF_ERROR(sock.recv_exact(buf.data(), want, sys::deadline_in(timeout)));
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
                               std::chrono::milliseconds timeout, const ClusterId& cluster_id,
                               const sys::TlsContext* tls) {
  const std::string server = sys::format_address(from);
  ORDO_ASSIGN_OR_RETURN(int fd, sys::connect_to(from, sys::deadline_in(timeout)));
  sys::Stream sock(fd);
  if (tls != nullptr) {
    Result<sys::Stream> secured = tls->handshake(sock.release(), sys::deadline_in(timeout));
    if (!secured.is_ok()) return secured.status().with_context("fetch a copy from " + server);
    sock = std::move(*secured);
  }
  const std::string request = encode_copy_request(cluster_id) + "\n";
  Status s = sock.send_all(request, sys::deadline_in(timeout));
  char whole[kCopyHeaderBytes];
  if (s.is_ok()) s = sock.recv_exact(whole, kFirstFieldBytes, sys::deadline_in(timeout));
  size_t header_bytes = kFirstFieldBytes;
  if (s.is_ok()) {
    header_bytes = copy_header_bytes(std::string_view(whole, kFirstFieldBytes));
    ORDO_ASSERT(header_bytes <= sizeof whole);
    s = sock.recv_exact(whole + kFirstFieldBytes, header_bytes - kFirstFieldBytes,
                        sys::deadline_in(timeout));
  }
  if (!s.is_ok()) {
    sock.close();
    return s.with_context("fetch a copy from " + server);
  }
  Result<CopyHeader> header = decode_copy_header(std::string_view(whole, header_bytes));
  if (header.status().is_not_found()) {
    sock.close();
    return Status::not_found("snapshot server " + server + " made no copy");
  }
  if (header.is_ok() && cluster_id.known() && header->cluster_id != cluster_id) {
    header = Status::invalid_argument("wrong cluster: the snapshot server is cluster " +
                                      header->cluster_id.hex());
  }
  if (!header.is_ok()) {
    sock.close();
    return Status::invalid_argument(header.status().message() + " (this replica is cluster " +
                                    cluster_id.hex() + ")")
        .with_context("fetch a copy from " + server);
  }
  FetchedCopy copy;
  copy.size_bytes = header->size_bytes;
  copy.xxh3 = header->xxh3;
  copy.applied_index = header->applied_index;
  int file = ::open(dest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file < 0) {
    int err = errno;
    sock.close();
    return Status::io_error("create " + dest, err);
  }
  s = receive_into(sock, file, copy.size_bytes, timeout);
  sock.close();
  ::close(file);
  if (!s.is_ok()) {
    ::unlink(dest.c_str());
    return s.with_context("fetch a copy from " + server);
  }
  return copy;
}

}  // namespace ordo::replica
