#include "oar/core/memory.h"

#include <new>

#ifdef OAR_SYSTEM_MALLOC
#include <cstdlib>
#define mi_malloc std::malloc  // sanitizer builds (CMakeLists.txt): malloc, which they replace
#define mi_free std::free
static void* mi_malloc_aligned(size_t n, size_t align) {
  void* p = nullptr;
  return posix_memalign(&p, align, n ? n : 1) == 0 ? p : nullptr;
}
#else
#include <mimalloc.h>
#endif

namespace oar {

void* FastAlloc(size_t bytes) {
  void* p = mi_malloc(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

void* FastAllocAligned(size_t bytes, size_t alignment) {
  void* p = mi_malloc_aligned(bytes, alignment);
  if (!p) throw std::bad_alloc();
  return p;
}

void FastFree(void* p) noexcept { mi_free(p); }

}  // namespace oar
