// Page-aligned memory for page buffers. Pages come from mimalloc's API when its
// shared library can be loaded, else from the C library. mimalloc is loaded with
// dlopen(RTLD_LOCAL), never linked: linking it would replace the host program's
// malloc and operator new, which a library must not do.
#pragma once

#include <cstddef>

namespace ordo::engine {

// Alignment of every block: the page size of the smallest pages and of O_DIRECT.
inline constexpr size_t kPageAlignment = 4096;

// `bytes` of uninitialized / zeroed memory aligned to kPageAlignment; null when out of
// memory. Free with page_free.
void* page_alloc(size_t bytes);
void* page_zalloc(size_t bytes);
void page_free(void* p);

// Gives the memory of freed blocks back to the OS now (mimalloc's mi_collect:
// it keeps freed pages mapped, and counted as resident, for a while). Only
// what no block uses; no effect on the libc fallback.
void page_collect();

// A region of `bytes` (a multiple of kPageAlignment) of zero-filled anonymous
// memory that the OS backs only where it is touched; null when it cannot be
// mapped. Free with pool_unmap.
void* pool_map(size_t bytes);
void pool_unmap(void* p, size_t bytes);
// Gives the region's memory back to the OS; it reads as zeros when touched again.
void pool_release(void* p, size_t bytes);

// "mimalloc" or "libc": the allocator the three functions use (for diagnostics).
const char* page_allocator_name();

}  // namespace ordo::engine
