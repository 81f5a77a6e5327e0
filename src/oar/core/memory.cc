#include "oar/core/memory.h"

#include <cstdint>
#include <new>

#include "oar/core/macros.h"

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

#include <cstdlib>
#endif

namespace oar {

#ifndef OAR_SYSTEM_MALLOC
namespace {

// Note [mimalloc keeps a running loop's memory]
// mimalloc (oar's tensor memory) returns freed memory to the OS 10 ms after a free by
// default, so a loop that frees and reallocates the same megabytes pays page faults on
// every new tensor (layer_norm forward+backward at 256x1024: 0.20 ms, or 0.31-0.42 ms
// once earlier ops had freed larger blocks; benchmarks/kernels.py). A delay of a second
// keeps a running loop's memory mapped. The delay does not reach blocks too large for
// mimalloc's segments: 2.0 maps each such block (a 16 MB tensor) when it is allocated
// and unmaps it when it is freed (strace), so every new tensor of that size faults its
// pages in again (fft of 2^20 complex128 points, 2 threads: 13-14 ms, 4.2-4.4 with an
// arena; docs/fft.md). Blocks from a reserved arena are kept and purged after the delay
// like the rest; the arena (1 GiB, mapped read-write as mimalloc's own option maps it)
// costs address space, not memory, since pages are backed as they are touched, and a
// larger working set falls back to mapping as before. liboar sets both when it is
// loaded, for Python and C++ programs alike, unless the environment names them
// (MIMALLOC_DECOMMIT_DELAY or, from mimalloc 2.1 on, MIMALLOC_PURGE_DELAY;
// MIMALLOC_RESERVE_OS_MEMORY), which mimalloc then reads itself. The C++ runtime's
// ResNet-18 at batch 16 took 149-155 ms a call with them against 166-170 without, where
// the kernel clearing fresh pages had been 12.8% of the call's samples (three
// alternating rounds, Xeon with AVX-512, two threads, oar_bench_jit_latency).
struct RunningLoopMemory {
  RunningLoopMemory() {
    if (std::getenv("MIMALLOC_DECOMMIT_DELAY") == nullptr &&
        std::getenv("MIMALLOC_PURGE_DELAY") == nullptr) {
#if MI_MALLOC_VERSION >= 210
      mi_option_set(mi_option_purge_delay, 1000);
#else
      mi_option_set(mi_option_decommit_delay, 1000);
#endif
    }
    if (std::getenv("MIMALLOC_RESERVE_OS_MEMORY") == nullptr) {
      mi_reserve_os_memory(size_t{1} << 30, /*commit=*/true, /*allow_large=*/true);
    }
  }
};
const RunningLoopMemory kRunningLoopMemory;  // set up when liboar is loaded

}  // namespace
#endif

// Note [Freed objects wait in a per-thread cache]
// An op makes and frees the same few small objects every call: its output's tensor
// impl and small data block, and a grad node and an autograd meta when it records. In
// a loop of ops mimalloc's page for such a size is emptied by every free and refilled
// by the next allocation, both on its slow path (retiring the page, collecting its
// free list): callgrind counted 80-105 instructions per block allocated and freed. So
// each thread keeps the blocks FastFreeSized is given (FastAllocator's, which knows
// their size; not tensor data), up to kBlocksPerSize per size rounded to 16 bytes, of
// at most kCachedMaxBytes and kCacheMaxHeld in all, and FastAlloc hands the last one
// back to the next request of that rounded size, as glibc's tcache does (every such
// block is allocated with its rounded size); an over-aligned request takes it only if
// it is aligned enough. Taking and keeping are inline (memory.h). Asking mimalloc for
// block sizes instead (mi_good_size, mi_usable_size) cost as much as its slow path. A
// thread's first FastAlloc of a small block makes its cache and the thread's end frees
// it; frees after that go straight to mimalloc. The sanitizer builds use the system
// malloc and keep no cache, so that ASan sees every free.
namespace memory_detail {

constinit OAR_HOT_TLS thread_local ObjectCache* tl_object_cache = nullptr;

namespace {

#ifndef OAR_SYSTEM_MALLOC
OAR_HOT_TLS thread_local bool tl_cache_closed = false;

struct CacheOwner {
  std::unique_ptr<ObjectCache> cache = std::make_unique<ObjectCache>();  // zeroed
  CacheOwner() { tl_object_cache = cache.get(); }
  ~CacheOwner() {
    tl_object_cache = nullptr;
    tl_cache_closed = true;
    for (size_t s = 0; s < kSizeClasses; ++s) {
      for (int i = 0; i < cache->count[s]; ++i) mi_free(cache->blocks[s][i]);
    }
  }
  CacheOwner(const CacheOwner&) = delete;
  CacheOwner& operator=(const CacheOwner&) = delete;
};

// Makes this thread's cache unless it has begun to end.
void OpenCache() {
  if (tl_object_cache != nullptr || tl_cache_closed) return;
  thread_local CacheOwner owner;  // freed when the thread ends
}

// A block that may be kept has its whole size class's bytes, whatever the request in
// that class it is handed to next.
size_t AllocationBytes(size_t bytes) {
  if (bytes > kCachedMaxBytes) return bytes;
  OpenCache();
  return SizeClass(bytes) * 16;
}
#else
size_t AllocationBytes(size_t bytes) { return bytes; }
#endif

}  // namespace

void* AllocateFresh(size_t bytes) {
  void* p = mi_malloc(AllocationBytes(bytes));
  if (!p) throw std::bad_alloc();
  return p;
}

void* AllocateFreshAligned(size_t bytes, size_t alignment) {
  void* p = mi_malloc_aligned(AllocationBytes(bytes), alignment);
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace memory_detail

void FastFree(void* p) noexcept { mi_free(p); }

}  // namespace oar
