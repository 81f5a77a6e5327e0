// Memory blocks and the allocator. Statistics (bytes in use, peak) are how
// tests prove that backward frees what it saved.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "oar/core/inplace_version.h"
#include "oar/core/place.h"

namespace oar {

class Allocator;

// What a kernel keeps beside a block for its own use, computed from the block's
// contents (a convolution's packed weight), and freed with the block.
class DerivedCopy {
 public:
  virtual ~DerivedCopy() = default;
};

// One block of memory, freed when the last DenseTensor sharing it goes away.
class Allocation {
 public:
  Allocation(void* ptr, size_t size, Place place, Allocator* allocator)
      : ptr_(ptr), size_(size), place_(place), allocator_(allocator) {}
  ~Allocation();
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;

  void* ptr() const { return ptr_; }
  size_t size() const { return size_; }
  const Place& place() const { return place_; }
  InplaceVersion& inplace_version() { return version_; }

  // Whether code outside oar's ops may write the block without bumping its
  // version: memory oar wraps but did not allocate (a numpy array, an imported
  // DLPack tensor), or a block handed out writable (a numpy view, a DLPack
  // export). Nothing derived from such a block is kept.
  bool shared_outside() const {
    return allocator_ == nullptr || shared_outside_.load(std::memory_order_relaxed);
  }
  void MarkSharedOutside() {
    shared_outside_.store(true, std::memory_order_relaxed);
    derived_.store(nullptr, std::memory_order_relaxed);
  }
  // The copy a kernel derived from the block (null: none), and replacing it.
  std::shared_ptr<const DerivedCopy> derived() const {
    return derived_.load(std::memory_order_acquire);
  }
  void set_derived(std::shared_ptr<const DerivedCopy> copy) {
    derived_.store(std::move(copy), std::memory_order_release);
  }

 protected:
  // A block whose bytes live inside the object of a subclass (Note [Small blocks live in
  // their Allocation]): counted by `allocator`'s statistics, never passed to its Free.
  struct HeldInside {};
  Allocation(HeldInside, void* ptr, size_t size, Place place, Allocator* allocator)
      : Allocation(ptr, size, place, allocator) {
    held_inside_ = true;
  }

 private:
  void* ptr_;
  size_t size_;
  Place place_;
  Allocator* allocator_;
  bool held_inside_ = false;
  InplaceVersion version_;
  std::atomic<bool> shared_outside_{false};
  std::atomic<std::shared_ptr<const DerivedCopy>> derived_;
};

struct AllocatorStats {
  int64_t bytes_in_use = 0;  // bytes handed out and not yet freed
  int64_t peak_bytes = 0;    // highest bytes_in_use since the last ResetPeak
  int64_t live_blocks = 0;   // blocks handed out and not yet freed
  int64_t total_allocs = 0;  // blocks handed out since start
};

class Allocator {
 public:
  Allocator();
  virtual ~Allocator() = default;
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Free(void* ptr, size_t bytes) = 0;
  virtual Place place() const = 0;

  AllocatorStats Stats() const;
  void ResetPeak();

  // Statistics of a block held inside its Allocation (Note [Small blocks live in their
  // Allocation]), which the allocator neither allocates nor frees but counts.
  void CountHeld(size_t bytes) { Record(static_cast<int64_t>(bytes), 1); }
  void UncountHeld(size_t bytes) { Record(-static_cast<int64_t>(bytes), -1); }

 protected:
  void Record(int64_t delta_bytes, int64_t delta_blocks);

 private:
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_{0};
  // Where the block counts are kept (Note [Block counts are kept per thread]): the index
  // of this allocator's counts in each thread's, or -1 when all indices are taken and the
  // counts are these two.
  int slot_;
  std::atomic<int64_t> live_blocks_{0};
  std::atomic<int64_t> total_allocs_{0};
};

// 64-byte aligned host memory (one AVX-512 line; good for any vector width).
inline constexpr size_t kCPUAlignment = 64;

// The allocator for `place`; it lives for the whole process and is thread-safe.
Allocator& GetAllocator(const Place& place);

// Allocates `bytes` on `place`; zero bytes gives a block with a null pointer.
std::shared_ptr<Allocation> AllocateShared(const Place& place, size_t bytes);

AllocatorStats GetAllocatorStats(const Place& place);
void ResetPeakBytes(const Place& place);

}  // namespace oar
