#include "reserved_mapping.h"

#include <sys/mman.h>

#include <cerrno>
#include <string>

#include "ordo/base/errno_status.h"

namespace ordo::io {

Result<std::byte*> reserve_address_range(uint64_t size_bytes) {
  void* base =
      ::mmap(nullptr, size_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    return base::os_error("mmap reserving " + std::to_string(size_bytes) +
                              " bytes of address space (FileOptions::map_reserve_bytes)",
                          errno);
  }
  return static_cast<std::byte*>(base);
}

Status map_file_range(std::byte* base, int fd, uint64_t offset_bytes, uint64_t length_bytes) {
  void* want = base + offset_bytes;
  void* got = ::mmap(want, length_bytes, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
                     static_cast<off_t>(offset_bytes));
  if (got == MAP_FAILED) {
    const int err = errno;
    // A failed MAP_FIXED may have unmapped the target; keep the hole reserved. If
    // this fails too there is nothing better to do than report the first error.
    (void)::mmap(want, length_bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return base::os_error("mmap of " + std::to_string(length_bytes) + " bytes at file offset " +
                              std::to_string(offset_bytes),
                          err);
  }
  return Status::ok();
}

void release_address_range(std::byte* base, uint64_t size_bytes) {
  if (base != nullptr) ::munmap(base, size_bytes);
}

}  // namespace ordo::io
