#include "fork_guard.h"

#include <sys/mman.h>
#include <unistd.h>

#include "ordo/assert.h"

namespace ordo::engine {

namespace {
size_t page_bytes() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }
}  // namespace

ForkGuard::ForkGuard() : maker_pid_(::getpid()) {
  void* p =
      ::mmap(nullptr, page_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  if (::madvise(p, page_bytes(), MADV_WIPEONFORK) != 0) {
    ::munmap(p, page_bytes());
    return;
  }
  page_ = static_cast<volatile uint8_t*>(p);
  *page_ = 1;
}

ForkGuard::~ForkGuard() {
  if (page_ != nullptr) ::munmap(const_cast<uint8_t*>(page_), page_bytes());
}

bool ForkGuard::in_forked_child() const {
  if (page_ != nullptr) {
    const uint8_t flag = *page_;
    ORDO_ASSERT(flag <= 1);  // set to 1 by the maker, wiped to 0 in a child; nothing else
    return flag == 0;
  }
  return ::getpid() != maker_pid_;
}

}  // namespace ordo::engine
