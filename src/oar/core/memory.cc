#include "oar/core/memory.h"

#include <mimalloc.h>

#include <new>

namespace oar {

void* FastAlloc(size_t bytes) {
  void* p = mi_malloc(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

void FastFree(void* p) noexcept { mi_free(p); }

}  // namespace oar
