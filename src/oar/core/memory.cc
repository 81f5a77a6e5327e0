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
