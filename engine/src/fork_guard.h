// ForkGuard: tells whether this is the process that made the guard or a
// fork()ed child of it, without a system call per check.
//
// A child shares its parent's open file descriptions (and with them the
// writer's flock and the reader slots' OFD locks) and its io_uring ring, so
// it must neither use nor release them. The guard keeps a flag in a page
// marked MADV_WIPEONFORK (Linux 4.14): a child sees the page zeroed. Where
// the kernel refuses that, it compares getpid() with the maker's pid.
// No pthread_atfork handler: a library does not add process-wide hooks.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

namespace ordo::engine {

class ForkGuard {
 public:
  ForkGuard();
  ~ForkGuard();
  ForkGuard(const ForkGuard&) = delete;
  ForkGuard& operator=(const ForkGuard&) = delete;

  // True in a process forked from the one that made the guard.
  bool in_forked_child() const;
  // The pid of the process that made the guard.
  pid_t maker_pid() const { return maker_pid_; }

 private:
  const pid_t maker_pid_;
  // The flag page: 1 in the maker, 0 in a child; null when the kernel
  // refused MADV_WIPEONFORK.
  volatile uint8_t* page_ = nullptr;
};

}  // namespace ordo::engine
