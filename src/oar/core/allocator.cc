#include "oar/core/allocator.h"

#include <cstdlib>
#include <new>

#include "oar/core/errors.h"
#include "oar/core/macros.h"

namespace oar {

Allocation::~Allocation() {
  if (allocator_ && ptr_) allocator_->Free(ptr_, size_);
}

AllocatorStats Allocator::Stats() const {
  AllocatorStats s;
  s.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
  s.peak_bytes = peak_bytes_.load(std::memory_order_relaxed);
  s.live_blocks = live_blocks_.load(std::memory_order_relaxed);
  s.total_allocs = total_allocs_.load(std::memory_order_relaxed);
  return s;
}

void Allocator::ResetPeak() {
  peak_bytes_.store(bytes_in_use_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void Allocator::Record(int64_t delta_bytes, int64_t delta_blocks) {
  const int64_t now = bytes_in_use_.fetch_add(delta_bytes, std::memory_order_relaxed) + delta_bytes;
  live_blocks_.fetch_add(delta_blocks, std::memory_order_relaxed);
  if (delta_blocks > 0) total_allocs_.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

namespace {

// Small blocks are recycled through a per-thread cache: aligned_alloc/free cost
// more than a whole 1-element op. A block freed on another thread simply joins
// that thread's cache; each cache returns its blocks to the system at thread exit.
constexpr size_t kSizeClasses = 5;  // 64, 128, 256, 512, 1024 bytes
constexpr size_t kBlocksPerClass = 64;

int SizeClass(size_t rounded) {
  for (size_t c = 0; c < kSizeClasses; ++c) {
    if (rounded == (kCPUAlignment << c)) return static_cast<int>(c);
  }
  return -1;
}

struct BlockCache {
  void* blocks[kSizeClasses][kBlocksPerClass];
  size_t count[kSizeClasses] = {};
  ~BlockCache() {
    for (size_t c = 0; c < kSizeClasses; ++c) {
      for (size_t i = 0; i < count[c]; ++i) std::free(blocks[c][i]);
    }
  }
};
// The cache is reached through a hot pointer; its owner frees it at thread
// exit, after which (other thread-locals still freeing tensors) blocks bypass it.
OAR_HOT_TLS thread_local BlockCache* tls_cache = nullptr;
OAR_HOT_TLS thread_local bool tls_cache_gone = false;
struct CacheOwner {
  std::unique_ptr<BlockCache> cache = std::make_unique<BlockCache>();
  ~CacheOwner() {
    tls_cache = nullptr;
    tls_cache_gone = true;
  }
};

// This thread's cache, or null once the thread is exiting.
BlockCache* Cache() {
  if (!tls_cache && !tls_cache_gone) [[unlikely]] {
    thread_local CacheOwner owner;
    tls_cache = owner.cache.get();
  }
  return tls_cache;
}

size_t RoundUp(size_t bytes) {
  size_t r = (bytes + kCPUAlignment - 1) / kCPUAlignment * kCPUAlignment;
  // Small sizes round to a power of two so that blocks can be reused.
  if (r <= (kCPUAlignment << (kSizeClasses - 1))) {
    size_t p = kCPUAlignment;
    while (p < r) p <<= 1;
    r = p;
  }
  return r;
}

class CPUAllocator final : public Allocator {
 public:
  void* Allocate(size_t bytes) override {
    const size_t rounded = RoundUp(bytes);
    const int c = SizeClass(rounded);
    void* p = nullptr;
    BlockCache* cache = c >= 0 ? Cache() : nullptr;
    if (cache && cache->count[c] > 0) {
      p = cache->blocks[c][--cache->count[c]];
    } else {
      p = std::aligned_alloc(kCPUAlignment, rounded);
    }
    if (!p) {
      throw errors::ResourceExhausted("out of host memory: failed to allocate ", bytes, " bytes");
    }
    Record(static_cast<int64_t>(bytes), 1);
    return p;
  }
  void Free(void* ptr, size_t bytes) override {
    const int c = SizeClass(RoundUp(bytes));
    BlockCache* cache = c >= 0 ? Cache() : nullptr;
    if (cache && cache->count[c] < kBlocksPerClass) {
      cache->blocks[c][cache->count[c]++] = ptr;
    } else {
      std::free(ptr);
    }
    Record(-static_cast<int64_t>(bytes), -1);
  }
  Place place() const override { return CPUPlace(); }
};

}  // namespace

Allocator& GetAllocator(const Place& place) {
  switch (place.type) {
    case AllocationType::kCPU: {
      static CPUAllocator cpu;  // immutable apart from its atomic statistics
      return cpu;
    }
    default:
      throw errors::Unimplemented("no allocator for ", place,
                                  ": this build of oar supports only the CPU");
  }
}

std::shared_ptr<Allocation> AllocateShared(const Place& place, size_t bytes) {
  Allocator& a = GetAllocator(place);
  void* p = bytes ? a.Allocate(bytes) : nullptr;
  try {
    return std::make_shared<Allocation>(p, bytes, place, &a);
  } catch (...) {
    if (p) a.Free(p, bytes);
    throw;
  }
}

AllocatorStats GetAllocatorStats(const Place& place) { return GetAllocator(place).Stats(); }
void ResetPeakBytes(const Place& place) { GetAllocator(place).ResetPeak(); }

}  // namespace oar
