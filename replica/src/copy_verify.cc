#include "copy_verify.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <memory>
#include <vector>

#include "ordo/database.h"

namespace ordo::replica {

Result<FileDigest> digest_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::not_found("no file " + path);
    return Status::io_error("open " + path, errno);
  }
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  XXH3_64bits_reset(state.get());
  std::vector<char> buf(1 << 20);
  FileDigest d;
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return Status::io_error("read " + path, err);
    }
    if (n == 0) break;
    XXH3_64bits_update(state.get(), buf.data(), static_cast<size_t>(n));
    d.size_bytes += static_cast<uint64_t>(n);
  }
  ::close(fd);
  d.xxh3 = XXH3_64bits_digest(state.get());
  return d;
}

Status verify_copy(const std::string& path, uint64_t size_bytes, uint64_t xxh3) {
  ORDO_ASSIGN_OR_RETURN(FileDigest d, digest_file(path));
  if (d.size_bytes != size_bytes) {
    return Status::corruption("copy " + path + ": " + std::to_string(d.size_bytes) +
                              " bytes, expected " + std::to_string(size_bytes));
  }
  if (d.xxh3 != xxh3) return Status::corruption("copy " + path + ": XXH3-64 mismatch");
  return Status::ok();
}

Status check_copy(const std::string& path) {
  Options options;
  options.read_only = true;
  ORDO_ASSIGN_OR_RETURN(auto db, Database::open(path, options));
  ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db->begin_read());
  ORDO_ASSIGN_OR_RETURN(CheckReport report, txn.check());
  if (!report.clean()) {
    const CheckProblem& p = report.problems.front();
    return Status::corruption("copy " + path + " fails check: " + p.what, p.page_number);
  }
  return Status::ok();
}

Status sync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::io_error("open dir " + dir, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return Status::io_error("fsync dir " + dir, err);
  return Status::ok();
}

}  // namespace ordo::replica
