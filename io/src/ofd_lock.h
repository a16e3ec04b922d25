// Open-file-description byte-range locks (fcntl F_OFD_SETLK / F_OFD_GETLK):
// they belong to the open file description, not the process, so two opens of
// one file conflict even in one process, and they vanish when the last
// descriptor of the description closes.
#pragma once

#include <cstdint>
#include <optional>

namespace ordo::io {

// A byte range [start, start + len); len 0 reaches past any offset.
struct OfdRange {
  uint64_t start = 0;
  uint64_t len = 0;
};

// F_OFD_SETLK of `type` (F_RDLCK, F_WRLCK, or F_UNLCK to release) on
// `range` of `fd`, retried on EINTR. Returns 0 or the errno of fcntl.
int ofd_set_lock(int fd, short type, OfdRange range);

// F_OFD_GETLK: would a lock of `type` on `range` of `fd` conflict with a lock
// another open file description holds? Sets *found to one such lock (the
// whole lock as held, which may reach outside `range`; which one is the
// kernel's choice, not the lowest) or to nullopt when none conflicts.
// Retried on EINTR. Returns 0 or the errno of fcntl.
int ofd_conflicting_lock(int fd, short type, OfdRange range, std::optional<OfdRange>* found);

}  // namespace ordo::io
