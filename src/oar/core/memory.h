// Fast allocation for the small objects every op creates (tensor impls,
// autograd metadata, grad nodes, engine bookkeeping). glibc's malloc caches
// only a handful of blocks per size, and a graph frees hundreds of nodes at
// once; mimalloc keeps such alloc/free pairs at a few dozen instructions, and
// objects freed with their size wait in a per-thread cache for the next of
// their size (Note [Freed objects wait in a per-thread cache] in memory.cc).
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace oar {

void* FastAlloc(size_t bytes);
// `bytes` aligned to `alignment` (a power of two), freed by FastFree.
void* FastAllocAligned(size_t bytes, size_t alignment);
void FastFree(void* p) noexcept;
// Frees a block FastAlloc/FastAllocAligned returned for `bytes`: kept for the next
// request of that size on this thread if it is small.
void FastFreeSized(void* p, size_t bytes) noexcept;

template <typename T>
struct FastAllocator {
  using value_type = T;
  FastAllocator() noexcept = default;
  template <typename U>
  FastAllocator(const FastAllocator<U>&) noexcept {}  // NOLINT: rebinding
  T* allocate(size_t n) {
    if constexpr (alignof(T) > alignof(std::max_align_t)) {
      return static_cast<T*>(FastAllocAligned(n * sizeof(T), alignof(T)));
    } else {
      return static_cast<T*>(FastAlloc(n * sizeof(T)));
    }
  }
  void deallocate(T* p, size_t n) noexcept { FastFreeSized(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const FastAllocator<U>&) const noexcept {
    return true;
  }
};

// std::make_shared through FastAllocator (object and control block in one block).
template <typename T, typename... Args>
std::shared_ptr<T> MakeShared(Args&&... args) {
  return std::allocate_shared<T>(FastAllocator<T>(), std::forward<Args>(args)...);
}

}  // namespace oar
