// Reader slots: shared OFD byte-range locks past any real file offset, one
// byte per snapshot txn id. Nothing is written there; the locks only tell the
// writer which snapshots readers in other processes still use. Commit locks
// sit below them, one byte per txn id from kCommitLockBase.
#include "ordo/io/reader_slots.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "ofd_lock.h"
#include "ordo/base/errno_status.h"
#include "ordo/io/page_file.h"

namespace ordo::io {

Status PageFile::lock_reader_slot(uint64_t txn_id) {
  if (txn_id >= kReaderSlotBase) return Status::invalid_argument("txn id too large for a slot");
  int err = ofd_set_lock(fd_, F_RDLCK, {kReaderSlotBase + txn_id, 1});
  return err == 0 ? Status::ok() : base::os_error("fcntl F_OFD_SETLK reader slot " + path_, err);
}

Status PageFile::unlock_reader_slot(uint64_t txn_id) {
  if (txn_id >= kReaderSlotBase) return Status::invalid_argument("txn id too large for a slot");
  int err = ofd_set_lock(fd_, F_UNLCK, {kReaderSlotBase + txn_id, 1});
  return err == 0 ? Status::ok()
                  : base::os_error("fcntl F_OFD_SETLK unlock reader slot " + path_, err);
}

Result<bool> PageFile::reader_slot_in(uint64_t first_txn, uint64_t end_txn) const {
  end_txn = std::min(end_txn, kReaderSlotBase);
  if (first_txn >= end_txn) return false;
  std::optional<OfdRange> found;
  int err = ofd_conflicting_lock(fd_, F_WRLCK, {kReaderSlotBase + first_txn, end_txn - first_txn},
                                 &found);
  if (err != 0) return base::os_error("fcntl F_OFD_GETLK reader slots " + path_, err);
  return found.has_value();
}

namespace {

// The held reader slots on `fd` (see PageFile::held_reader_slots).
Result<std::vector<uint64_t>> held_reader_slots_of(int fd, const std::string& path) {
  // The kernel names any conflicting lock in a range, not the lowest (its
  // list groups locks by holder), so each answer splits the range: the part
  // below the lock, the lock's own bytes (every one a held slot), the part
  // above. Every query that finds a lock finds slots no earlier one did, so
  // n slots take at most 2n + 1 queries. Ranges are taken lowest first: the
  // ids come out in order, and the cap keeps the lowest.
  constexpr uint64_t kBase = PageFile::kReaderSlotBase;
  constexpr size_t kMax = PageFile::kMaxListedReaderSlots;
  struct Range {
    uint64_t start;
    uint64_t end;
    bool held;  // known to be held: list it; else a range to ask about
  };
  const uint64_t end = kBase + kBase;  // past the largest off_t, 2^63 - 1: every slot
  std::vector<Range> todo = {{kBase, end, false}};
  std::vector<uint64_t> out;
  while (!todo.empty() && out.size() < kMax) {
    const Range r = todo.back();
    todo.pop_back();
    if (r.held) {
      for (uint64_t b = r.start; b < r.end && out.size() < kMax; ++b) {
        out.push_back(b - kBase);
      }
      continue;
    }
    std::optional<OfdRange> lock;
    const int err = ofd_conflicting_lock(fd, F_WRLCK, {r.start, r.end - r.start}, &lock);
    if (err != 0) return base::os_error("fcntl F_OFD_GETLK reader slots " + path, err);
    if (!lock) continue;
    const uint64_t lock_start = std::max(lock->start, r.start);
    const uint64_t lock_end =
        lock->len == 0 || lock->start + lock->len > r.end ? r.end : lock->start + lock->len;
    if (lock_start >= lock_end) {
      // Never from Linux; refused so that every step makes progress.
      return Status::io_error("fcntl F_OFD_GETLK reader slots " + path +
                                  ": the lock found lies outside the range asked about",
                              EIO);
    }
    if (lock_end < r.end) todo.push_back({lock_end, r.end, false});
    todo.push_back({lock_start, lock_end, true});
    if (r.start < lock_start) todo.push_back({r.start, lock_start, false});
  }
  return out;
}

// `path` opened read-only for a query of its locks.
Result<int> open_for_query(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::not_found(path + ": no such file");
    return base::os_error("open " + path, err);
  }
  return fd;
}

// One OFD lock on the file, from /proc/<pid>/fdinfo: bytes [first, last].
struct HeldLock {
  uint64_t first;
  uint64_t last;
  int pid;
};

// The OFD locks held on the file `dev`/`ino`, from /proc/<pid>/fdinfo of
// every descriptor open on it.
std::vector<HeldLock> held_locks(dev_t dev, ino_t ino) {
  std::vector<HeldLock> out;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return out;
  // readdir is safe on a stream no other thread uses (glibc; POSIX deprecates
  // readdir_r).
  while (dirent* p = ::readdir(proc)) {  // NOLINT(concurrency-mt-unsafe)
    char* end = nullptr;
    const long pid = std::strtol(p->d_name, &end, 10);
    if (end == p->d_name || *end != '\0') continue;
    const std::string fd_dir = std::string("/proc/") + p->d_name + "/fd";
    DIR* fds = ::opendir(fd_dir.c_str());
    if (fds == nullptr) continue;
    while (dirent* f = ::readdir(fds)) {  // NOLINT(concurrency-mt-unsafe): as above
      if (f->d_name[0] == '.') continue;
      struct stat st;
      if (::stat((fd_dir + "/" + f->d_name).c_str(), &st) != 0) continue;
      if (st.st_dev != dev || st.st_ino != ino) continue;
      std::ifstream info(std::string("/proc/") + p->d_name + "/fdinfo/" + f->d_name);
      std::string line;
      while (std::getline(info, line)) {
        if (line.rfind("lock:", 0) != 0 || line.find("OFDLCK") == std::string::npos) continue;
        std::istringstream words(line.substr(5));
        std::string w[8];
        for (auto& x : w) words >> x;
        // "1: OFDLCK ADVISORY READ -1 fe:00:1234 START END" (END inclusive, or "EOF")
        const uint64_t first = std::strtoull(w[6].c_str(), nullptr, 10);
        const uint64_t last = w[7] == "EOF" ? UINT64_MAX : std::strtoull(w[7].c_str(), nullptr, 10);
        out.push_back(HeldLock{first, last, static_cast<int>(pid)});
      }
    }
    ::closedir(fds);
  }
  ::closedir(proc);
  return out;
}

}  // namespace

Result<std::vector<uint64_t>> PageFile::held_reader_slots(const std::string& path) {
  ORDO_ASSIGN_OR_RETURN(const int fd, open_for_query(path));
  auto out = held_reader_slots_of(fd, path);
  ::close(fd);
  return out;
}

Result<std::vector<HeldReaderSlot>> reader_slot_holders(const std::string& path) {
  ORDO_ASSIGN_OR_RETURN(const int fd, open_for_query(path));
  Result<std::vector<uint64_t>> held = held_reader_slots_of(fd, path);
  struct stat st {};
  const int stat_err = held.is_ok() && !held->empty() && ::fstat(fd, &st) != 0 ? errno : 0;
  ::close(fd);
  ORDO_RETURN_IF_ERROR(held.status());
  if (stat_err != 0) return base::os_error("fstat " + path, stat_err);
  std::vector<HeldLock> locks;
  if (!held->empty()) locks = held_locks(st.st_dev, st.st_ino);
  std::vector<HeldReaderSlot> out;
  out.reserve(held->size());
  for (const uint64_t txn : *held) {
    HeldReaderSlot slot{txn, {}};
    const uint64_t byte = PageFile::kReaderSlotBase + txn;
    for (const HeldLock& lock : locks) {
      if (lock.first > byte || lock.last < byte) continue;
      if (std::find(slot.pids.begin(), slot.pids.end(), lock.pid) == slot.pids.end()) {
        slot.pids.push_back(lock.pid);
      }
    }
    std::sort(slot.pids.begin(), slot.pids.end());
    out.push_back(std::move(slot));
  }
  return out;
}

namespace {

// Commit locks cover the txn ids below this: bytes [kCommitLockBase, kReaderSlotBase).
constexpr uint64_t kCommitLockTxns = PageFile::kReaderSlotBase - PageFile::kCommitLockBase;

Status commit_lock_txn_too_large() {
  return Status::invalid_argument("txn id too large for a commit lock");
}

}  // namespace

Status PageFile::lock_commit(uint64_t txn_id) {
  if (!backend_) return Status::invalid_argument("commit lock on read-only file " + path_);
  if (txn_id >= kCommitLockTxns) return commit_lock_txn_too_large();
  const int err = ofd_set_lock(fd_, F_WRLCK, {kCommitLockBase + txn_id, 1});
  if (err == EAGAIN || err == EACCES) {
    return Status::busy("commit lock of txn " + std::to_string(txn_id) + " of " + path_ +
                        " is held by another handle");
  }
  return err == 0 ? Status::ok() : base::os_error("fcntl F_OFD_SETLK commit lock " + path_, err);
}

Status PageFile::unlock_commit(uint64_t txn_id) {
  if (txn_id >= kCommitLockTxns) return commit_lock_txn_too_large();
  const int err = ofd_set_lock(fd_, F_UNLCK, {kCommitLockBase + txn_id, 1});
  return err == 0 ? Status::ok()
                  : base::os_error("fcntl F_OFD_SETLK unlock commit lock " + path_, err);
}

Result<bool> PageFile::commit_in_flight(uint64_t txn_id) const {
  if (txn_id >= kCommitLockTxns) return false;
  std::optional<OfdRange> found;
  const int err = ofd_conflicting_lock(fd_, F_RDLCK, {kCommitLockBase + txn_id, 1}, &found);
  if (err != 0) return base::os_error("fcntl F_OFD_GETLK commit lock " + path_, err);
  return found.has_value();
}

}  // namespace ordo::io
