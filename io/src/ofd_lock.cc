#include "ofd_lock.h"

#include <fcntl.h>

#include <cerrno>

namespace ordo::io {

namespace {

// fcntl(fd, cmd, fl) retried on EINTR; 0 or errno.
int ofd_fcntl(int fd, int cmd, struct flock* fl) {
  int rc;
  do {
    rc = ::fcntl(fd, cmd, fl);
  } while (rc != 0 && errno == EINTR);
  return rc == 0 ? 0 : errno;
}

struct flock make_flock(short type, OfdRange range) {
  struct flock fl = {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(range.start);
  fl.l_len = static_cast<off_t>(range.len);
  return fl;
}

}  // namespace

int ofd_set_lock(int fd, short type, OfdRange range) {
  struct flock fl = make_flock(type, range);
  return ofd_fcntl(fd, F_OFD_SETLK, &fl);
}

int ofd_conflicting_lock(int fd, short type, OfdRange range, std::optional<OfdRange>* found) {
  struct flock fl = make_flock(type, range);
  const int err = ofd_fcntl(fd, F_OFD_GETLK, &fl);
  if (err != 0) return err;
  if (fl.l_type == F_UNLCK) {
    *found = std::nullopt;
  } else {
    *found = OfdRange{static_cast<uint64_t>(fl.l_start), static_cast<uint64_t>(fl.l_len)};
  }
  return 0;
}

}  // namespace ordo::io
