// mimalloc loaded on first use; libc's aligned_alloc when it cannot be.
#include "page_memory.h"

#include <dlfcn.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

#include "ordo/assert.h"

namespace ordo::engine {
namespace {

struct PageAllocator {
  void* (*malloc_aligned)(size_t size, size_t alignment) = nullptr;
  void* (*zalloc_aligned)(size_t size, size_t alignment) = nullptr;
  void (*free)(void* p) = nullptr;
  void (*collect)(bool force) = nullptr;
};

// ORDO_MIMALLOC_SONAME comes from CMake (the soname of the mimalloc found at build time).
// RTLD_LOCAL keeps its malloc, free and operator new out of the global scope. The
// library stays loaded for the life of the process: blocks may outlive any handle.
PageAllocator load() {
  PageAllocator a;
#ifdef ORDO_MIMALLOC_SONAME
  void* lib = dlopen(ORDO_MIMALLOC_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return a;
  a.malloc_aligned = reinterpret_cast<void* (*)(size_t, size_t)>(dlsym(lib, "mi_malloc_aligned"));
  a.zalloc_aligned = reinterpret_cast<void* (*)(size_t, size_t)>(dlsym(lib, "mi_zalloc_aligned"));
  a.free = reinterpret_cast<void (*)(void*)>(dlsym(lib, "mi_free"));
  a.collect = reinterpret_cast<void (*)(bool)>(dlsym(lib, "mi_collect"));
  if (a.malloc_aligned == nullptr || a.zalloc_aligned == nullptr || a.free == nullptr ||
      a.collect == nullptr) {
    a = PageAllocator{};
  }
#endif
  return a;
}

const PageAllocator& allocator() {
  static const PageAllocator a = load();  // thread-safe, once
  return a;
}

// aligned_alloc wants a size that is a multiple of the alignment.
size_t round_up(size_t bytes) {
  static_assert((kPageAlignment & (kPageAlignment - 1)) == 0, "a power of two");
  ORDO_ASSERT(bytes > 0);  // A page or a page-sized buffer, never empty.
  return (bytes + kPageAlignment - 1) & ~(kPageAlignment - 1);
}

}  // namespace

void* page_alloc(size_t bytes) {
  ORDO_ASSERT(bytes != 0);  // a page or a page-sized buffer, on either allocator
  const PageAllocator& a = allocator();
  if (a.malloc_aligned != nullptr) return a.malloc_aligned(bytes, kPageAlignment);
  return std::aligned_alloc(kPageAlignment, round_up(bytes));
}

void* page_zalloc(size_t bytes) {
  ORDO_ASSERT(bytes != 0);
  const PageAllocator& a = allocator();
  if (a.zalloc_aligned != nullptr) return a.zalloc_aligned(bytes, kPageAlignment);
  void* p = std::aligned_alloc(kPageAlignment, round_up(bytes));
  if (p != nullptr) std::memset(p, 0, bytes);
  return p;
}

void page_free(void* p) {
  const PageAllocator& a = allocator();
  if (a.free != nullptr) {
    a.free(p);
  } else {
    std::free(p);
  }
}

void page_collect() {
  const PageAllocator& a = allocator();
  if (a.collect != nullptr) a.collect(true);
}

void* pool_map(size_t bytes) {
  ORDO_ASSERT(bytes > 0 && bytes % kPageAlignment == 0);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void pool_unmap(void* p, size_t bytes) {
  ORDO_ASSERT(p != nullptr && bytes % kPageAlignment == 0);
  munmap(p, bytes);
}

void pool_release(void* p, size_t bytes) {
  ORDO_ASSERT(p != nullptr && bytes % kPageAlignment == 0);
  // Advice only: where it fails the memory simply stays resident.
  (void)madvise(p, bytes, MADV_DONTNEED);
}

const char* page_allocator_name() { return allocator().free != nullptr ? "mimalloc" : "libc"; }

}  // namespace ordo::engine
