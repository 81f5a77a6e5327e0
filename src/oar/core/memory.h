// Fast allocation for the small objects every op creates (tensor impls,
// autograd metadata, grad nodes, engine bookkeeping). glibc's malloc caches
// only a handful of blocks per size, and a graph frees hundreds of nodes at
// once; mimalloc keeps such alloc/free pairs at a few dozen instructions, and
// objects freed with their size wait in a per-thread cache for the next of
// their size (Note [Freed objects wait in a per-thread cache] in memory.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "oar/core/macros.h"

namespace oar {

namespace memory_detail {

// The per-thread cache of Note [Freed objects wait in a per-thread cache] (memory.cc),
// declared here so that taking a block from it and keeping one in it are inline: out
// of line each cost a call and a frame around a dozen instructions.
inline constexpr size_t kCachedMaxBytes = 2048;
inline constexpr size_t kCacheMaxHeld = size_t{256} << 10;
inline constexpr int kBlocksPerSize = 4;
inline constexpr size_t kSizeClasses = kCachedMaxBytes / 16 + 1;

constexpr size_t SizeClass(size_t bytes) { return (bytes + 15) / 16; }

struct ObjectCache {
  void* blocks[kSizeClasses][kBlocksPerSize];
  unsigned char count[kSizeClasses];
  size_t held;
};

// Null until the thread's first allocation of a small block, after its end, and
// always in the sanitizer builds (which keep no cache).
extern constinit OAR_HOT_TLS thread_local ObjectCache* tl_object_cache;

// A kept block for `bytes` aligned to `alignment`, or null.
inline void* TakeCached(size_t bytes, size_t alignment) {
  ObjectCache* c = tl_object_cache;
  if (c == nullptr || bytes > kCachedMaxBytes) return nullptr;
  const size_t s = SizeClass(bytes);
  unsigned char& n = c->count[s];
  if (n == 0) return nullptr;
  void* p = c->blocks[s][n - 1];
  if (reinterpret_cast<uintptr_t>(p) % alignment != 0) return nullptr;
  --n;
  c->held -= s * 16;
  return p;
}

// Whether freed block p of `bytes` was kept for the next request of its size.
inline bool KeepCached(void* p, size_t bytes) {
  ObjectCache* c = tl_object_cache;
  if (c == nullptr || bytes > kCachedMaxBytes) return false;
  const size_t s = SizeClass(bytes);
  unsigned char& n = c->count[s];
  if (n == kBlocksPerSize || c->held + s * 16 > kCacheMaxHeld) return false;
  c->blocks[s][n++] = p;
  c->held += s * 16;
  return true;
}

// From mimalloc (making the thread's cache first if it has none).
void* AllocateFresh(size_t bytes);
void* AllocateFreshAligned(size_t bytes, size_t alignment);

}  // namespace memory_detail

inline void* FastAlloc(size_t bytes) {
  if (void* p = memory_detail::TakeCached(bytes, 1)) return p;
  return memory_detail::AllocateFresh(bytes);
}
// `bytes` aligned to `alignment` (a power of two), freed by FastFree.
inline void* FastAllocAligned(size_t bytes, size_t alignment) {
  if (void* p = memory_detail::TakeCached(bytes, alignment)) return p;
  return memory_detail::AllocateFreshAligned(bytes, alignment);
}
void FastFree(void* p) noexcept;
// Frees a block FastAlloc/FastAllocAligned returned for `bytes`: kept for the next
// request of that size on this thread if it is small.
inline void FastFreeSized(void* p, size_t bytes) noexcept {
  if (!memory_detail::KeepCached(p, bytes)) FastFree(p);
}

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
