// Reader slots: shared OFD byte-range locks past any real file offset, one
// byte per snapshot txn id. Nothing is written there; the locks only tell the
// writer which snapshots readers in other processes still use. Commit locks
// sit below them, one byte per txn id from kCommitLockBase.
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <string>

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

Status PageFile::lock_commit(uint64_t txn_id) {
  if (!backend_) return Status::invalid_argument("commit lock on read-only file " + path_);
  if (txn_id >= kReaderSlotBase - kCommitLockBase) {
    return Status::invalid_argument("txn id too large for a commit lock");
  }
  const int err = ofd_lock(fd_, F_OFD_SETLK, F_WRLCK, kCommitLockBase + txn_id, 1, nullptr);
  if (err == EAGAIN || err == EACCES) {
    return Status::busy("commit lock of txn " + std::to_string(txn_id) + " of " + path_ +
                        " is held by another handle");
  }
  return err == 0 ? Status::ok() : os_error("fcntl F_OFD_SETLK commit lock " + path_, err);
}

Status PageFile::unlock_commit(uint64_t txn_id) {
  if (txn_id >= kReaderSlotBase - kCommitLockBase) {
    return Status::invalid_argument("txn id too large for a commit lock");
  }
  const int err = ofd_lock(fd_, F_OFD_SETLK, F_UNLCK, kCommitLockBase + txn_id, 1, nullptr);
  return err == 0 ? Status::ok() : os_error("fcntl F_OFD_SETLK unlock commit lock " + path_, err);
}

Result<bool> PageFile::commit_in_flight(uint64_t txn_id) const {
  if (txn_id >= kReaderSlotBase - kCommitLockBase) return false;
  short found = F_UNLCK;
  const int err =
      ofd_lock(fd_, F_OFD_GETLK, F_RDLCK, kCommitLockBase + txn_id, 1, &found);
  if (err != 0) return os_error("fcntl F_OFD_GETLK commit lock " + path_, err);
  return found != F_UNLCK;
}

}  // namespace ordo::io
