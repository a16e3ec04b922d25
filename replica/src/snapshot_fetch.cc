#include "snapshot_fetch.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "codec.h"
#include "snapshot_server.h"
#include "socket_io.h"

namespace ordo::replica {

namespace {

Status receive_into(int sock, int file, uint64_t size) {
  std::vector<char> buf(1 << 20);
  while (size > 0) {
    size_t want = buf.size() < size ? buf.size() : static_cast<size_t>(size);
    ORDO_RETURN_IF_ERROR(read_exact(sock, buf.data(), want));
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

Result<FetchedCopy> fetch_copy(const HostPort& from, const std::string& dest,
                               std::chrono::milliseconds timeout) {
  const std::string server = from.host + ":" + std::to_string(from.port);
  ORDO_ASSIGN_OR_RETURN(int sock, connect_to(from, timeout));
  const std::string request = std::string(kCopyRequest) + "\n";
  Status s = write_all(sock, request.data(), request.size());
  char first[8];
  if (s.is_ok()) s = read_exact(sock, first, sizeof first);
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
  char rest[16];
  s = read_exact(sock, rest, sizeof rest);
  if (!s.is_ok()) {
    ::close(sock);
    return s.with_context("fetch a copy from " + server);
  }
  copy.xxh3 = codec::load_u64_be(std::string_view(rest, 8));
  copy.applied_index = codec::load_u64_be(std::string_view(rest + 8, 8));
  int file = ::open(dest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file < 0) {
    int err = errno;
    ::close(sock);
    return Status::io_error("create " + dest, err);
  }
  s = receive_into(sock, file, copy.size_bytes);
  ::close(sock);
  ::close(file);
  if (!s.is_ok()) {
    ::unlink(dest.c_str());
    return s.with_context("fetch a copy from " + server);
  }
  return copy;
}

}  // namespace ordo::replica
