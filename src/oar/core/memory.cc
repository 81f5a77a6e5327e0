#include "oar/core/memory.h"

#include <new>

#ifdef OAR_SYSTEM_MALLOC
#include <cstdlib>
#define mi_malloc std::malloc  // sanitizer builds (CMakeLists.txt): malloc, which they replace
#define mi_free std::free
#else
#include <mimalloc.h>
#endif

namespace oar {

void* FastAlloc(size_t bytes) {
  void* p = mi_malloc(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

void FastFree(void* p) noexcept { mi_free(p); }

}  // namespace oar
