// Reader slots: shared OFD byte-range locks past any real file offset, one
// byte per snapshot txn id. Nothing is written there; the locks only tell the
// writer which snapshots readers in other processes still use.
#include <fcntl.h>

#include <algorithm>
#include <cerrno>

#include "errno_status.h"
#include "ordo/io/page_file.h"

namespace ordo::io {

namespace {

int ofd_lock(int fd, int cmd, short type, uint64_t start, uint64_t len, short* found_type) {
  struct flock fl = {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(start);
  fl.l_len = static_cast<off_t>(len);
  int rc;
  do {
    rc = ::fcntl(fd, cmd, &fl);
  } while (rc != 0 && errno == EINTR);
  if (found_type != nullptr) *found_type = fl.l_type;
  return rc == 0 ? 0 : errno;
}

}  // namespace

Status PageFile::lock_reader_slot(uint64_t txn_id) {
  if (txn_id >= kReaderSlotBase) return Status::invalid_argument("txn id too large for a slot");
  int err = ofd_lock(fd_, F_OFD_SETLK, F_RDLCK, kReaderSlotBase + txn_id, 1, nullptr);
  return err == 0 ? Status::ok() : os_error("fcntl F_OFD_SETLK reader slot " + path_, err);
}

Status PageFile::unlock_reader_slot(uint64_t txn_id) {
  if (txn_id >= kReaderSlotBase) return Status::invalid_argument("txn id too large for a slot");
  int err = ofd_lock(fd_, F_OFD_SETLK, F_UNLCK, kReaderSlotBase + txn_id, 1, nullptr);
  return err == 0 ? Status::ok() : os_error("fcntl F_OFD_SETLK unlock reader slot " + path_, err);
}

Result<bool> PageFile::reader_slot_in(uint64_t first_txn, uint64_t end_txn) const {
  end_txn = std::min(end_txn, kReaderSlotBase);
  if (first_txn >= end_txn) return false;
  short found = F_UNLCK;
  int err = ofd_lock(fd_, F_OFD_GETLK, F_WRLCK, kReaderSlotBase + first_txn, end_txn - first_txn,
                     &found);
  if (err != 0) return os_error("fcntl F_OFD_GETLK reader slots " + path_, err);
  return found != F_UNLCK;
}

}  // namespace ordo::io
