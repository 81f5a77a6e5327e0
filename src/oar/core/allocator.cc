#include "oar/core/allocator.h"

#include <sys/mman.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <new>

#include "oar/core/errors.h"
#include "oar/core/macros.h"
#include "oar/core/memory.h"

namespace oar {

Allocation::~Allocation() {
  if (!allocator_ || !ptr_) return;
  if (held_inside_) {
    allocator_->UncountHeld(size_);
  } else {
    allocator_->Free(ptr_, size_);
  }
}

namespace {

// Note [Block counts are kept per thread]
// Every allocation updated three shared counters with locked read-modify-write
// instructions (bytes in use, live blocks, allocations) and every free two; perf put
// about a sixth of `a + b` on one-element tensors from Python on them (Intel Xeon). The
// bytes stay one shared counter, since the peak is the highest value their sum reaches
// and only a shared sum sees it. The two block counts are summed only when read, so each
// thread keeps its own: written by that thread alone with a plain load and store (atomic,
// so a reader on another thread sees whole values), read by Stats() under a lock. A block
// freed on another thread than the one that made it leaves -1 there and +1 here; the sum
// is the same. A thread that ends adds its counts to the retired ones. Measured with the
// builds in turn (Xeon), `a + b` took 131-133 ns against 135-137 in one run of three
// rounds, and within the noise of this and Note [Tensor objects are reused] together in
// another of five (133-135 against 134-138); threads that allocate at once contend on one
// counter instead of three. The bytes unlocked as well (not kept) gained 1-2 ns. Each
// allocator takes one of kCountSlots indices in every thread's counts; one made when all
// are taken keeps shared counters.
constexpr int kCountSlots = 4;

// Plain integers read and written through std::atomic_ref, so the struct is trivial:
// zero at start with no first-use check of its own, and read with one instruction.
struct ThreadBlockCounts {
  int64_t live[kCountSlots];
  int64_t allocs[kCountSlots];
  // 0: not yet in the registry's list, 1: listed, 2: its thread is ending (counted as
  // retired from then on).
  unsigned char state;
  ThreadBlockCounts* next;
  ThreadBlockCounts* prev;
};

OAR_HOT_TLS thread_local ThreadBlockCounts tl_block_counts;

// The threads' counts and those of threads that ended, guarded by `mu`. Constant
// initialized and trivially destructible: threads may end after static destructors ran.
struct BlockCountRegistry {
  std::mutex mu;
  ThreadBlockCounts* head = nullptr;
  int slots_taken = 0;
  int64_t retired_live[kCountSlots] = {};
  int64_t retired_allocs[kCountSlots] = {};
};
constinit BlockCountRegistry g_block_counts;

// Only the owning thread writes a count, so a load and a store suffice; atomic, since
// Stats() reads it from another thread.
void AddRelaxed(int64_t& v, int64_t d) {
  const std::atomic_ref<int64_t> a(v);
  a.store(a.load(std::memory_order_relaxed) + d, std::memory_order_relaxed);
}

int64_t LoadRelaxed(const int64_t& v) {
  return std::atomic_ref<const int64_t>(v).load(std::memory_order_relaxed);
}

// Unlists the thread's counts when it ends, keeping them as retired ones.
struct ThreadBlockCountsOwner {
  ~ThreadBlockCountsOwner() {
    ThreadBlockCounts& c = tl_block_counts;
    const std::lock_guard lock(g_block_counts.mu);
    for (int i = 0; i < kCountSlots; ++i) {
      g_block_counts.retired_live[i] += c.live[i];
      g_block_counts.retired_allocs[i] += c.allocs[i];
    }
    (c.prev ? c.prev->next : g_block_counts.head) = c.next;
    if (c.next) c.next->prev = c.prev;
    c.state = 2;
  }
};

// The first count of a thread lists its counts; one after the thread began to end (a
// thread-local tensor destroyed later) goes straight to the retired counts.
[[gnu::noinline]] void RecordBlocksSlowly(int slot, int64_t delta_blocks) {
  ThreadBlockCounts& c = tl_block_counts;
  if (c.state == 2) {
    const std::lock_guard lock(g_block_counts.mu);
    g_block_counts.retired_live[slot] += delta_blocks;
    if (delta_blocks > 0) ++g_block_counts.retired_allocs[slot];
    return;
  }
  thread_local ThreadBlockCountsOwner owner;  // its destructor runs when the thread ends
  {
    const std::lock_guard lock(g_block_counts.mu);
    c.next = g_block_counts.head;
    c.prev = nullptr;
    if (c.next) c.next->prev = &c;
    g_block_counts.head = &c;
    c.state = 1;
  }
  AddRelaxed(c.live[slot], delta_blocks);
  if (delta_blocks > 0) AddRelaxed(c.allocs[slot], 1);
}

}  // namespace

Allocator::Allocator() {
  const std::lock_guard lock(g_block_counts.mu);
  slot_ = g_block_counts.slots_taken < kCountSlots ? g_block_counts.slots_taken++ : -1;
}

AllocatorStats Allocator::Stats() const {
  AllocatorStats s;
  s.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
  s.peak_bytes = peak_bytes_.load(std::memory_order_relaxed);
  s.live_blocks = live_blocks_.load(std::memory_order_relaxed);
  s.total_allocs = total_allocs_.load(std::memory_order_relaxed);
  if (slot_ >= 0) {
    const std::lock_guard lock(g_block_counts.mu);
    s.live_blocks += g_block_counts.retired_live[slot_];
    s.total_allocs += g_block_counts.retired_allocs[slot_];
    for (const ThreadBlockCounts* c = g_block_counts.head; c; c = c->next) {
      s.live_blocks += LoadRelaxed(c->live[slot_]);
      s.total_allocs += LoadRelaxed(c->allocs[slot_]);
    }
  }
  return s;
}

void Allocator::ResetPeak() {
  peak_bytes_.store(bytes_in_use_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void Allocator::Record(int64_t delta_bytes, int64_t delta_blocks) {
  const int64_t now = bytes_in_use_.fetch_add(delta_bytes, std::memory_order_relaxed) + delta_bytes;
  if (slot_ >= 0) [[likely]] {  // Note [Block counts are kept per thread]
    ThreadBlockCounts& c = tl_block_counts;
    if (c.state == 1) [[likely]] {
      AddRelaxed(c.live[slot_], delta_blocks);
      if (delta_blocks > 0) AddRelaxed(c.allocs[slot_], 1);
    } else {
      RecordBlocksSlowly(slot_, delta_blocks);
    }
  } else {
    live_blocks_.fetch_add(delta_blocks, std::memory_order_relaxed);
    if (delta_blocks > 0) total_allocs_.fetch_add(1, std::memory_order_relaxed);
  }
  int64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

namespace {

// Physical memory plus swap: the most one block could ever be backed by.
size_t HostMemoryBytes() {
  static const size_t bytes = [] {
    struct sysinfo info{};
    if (sysinfo(&info) != 0) return ~size_t{0};
    return (static_cast<size_t>(info.totalram) + info.totalswap) * info.mem_unit;
  }();
  return bytes;
}

// Note [Large blocks ask for huge pages]
// A block of at least kHugePageMinBytes has the whole huge pages (2 MiB on x86-64) inside
// it advised MADV_HUGEPAGE, as NumPy does for its arrays. Where transparent huge pages
// are enabled only on request (the kernel's "madvise" mode, common on servers), a stream
// over 4 KiB pages spends much of its time on TLB misses: x.add_(y) over 16M float32, one
// thread, Zen 4, took 6.4 ms, and 4.2 ms in huge pages (PyTorch 5.1; the record in
// benchmarks/results/kernels-zen4-huge-pages.md). The advice is given on every
// allocation, since mimalloc may have returned the range to the OS (a new mapping,
// without the advice) since it last held a large block. It costs a system call per
// block of megabytes; it changes nothing where huge pages are always or never used.
constexpr size_t kHugePageMinBytes = size_t{4} << 20;

size_t HugePageBytes() {
  static const size_t bytes = [] {
    size_t b = 0;
    std::ifstream("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") >> b;
    return b >= 4096 && (b & (b - 1)) == 0 ? b : size_t{0};
  }();
  return bytes;
}

void AdviseHugePages([[maybe_unused]] void* p, [[maybe_unused]] size_t bytes) {
#ifdef MADV_HUGEPAGE
  const size_t huge = HugePageBytes();
  if (bytes < kHugePageMinBytes || huge == 0) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(huge - 1);
  // Only advice: a kernel without transparent huge pages refuses it, and the block
  // works the same.
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

// Note [Large blocks start at turning page offsets]
// Blocks of at least kTurnMinBytes start kTurnStep * (k mod kTurns) bytes into a page,
// k counting such blocks. An allocator hands large blocks out page-aligned, so the two
// inputs of an op made one after the other start at the same offset in their pages,
// and a loop reading both at once then loses to conflicts in the first-level cache: an
// add of 10^6 float32 on one Zen 4 thread took 182-188 us with its inputs at one
// offset, 161-172 us with them 1 KiB or more apart, whatever the output's offset
// (PyTorch, whose glibc blocks start anywhere, 157-167 us). Turning through four
// offsets 1 KiB apart puts any three blocks made in a row at different ones. It costs
// 3 KiB of address space per block of at least 256 KiB.
//
// Blocks of at least kColorMinBytes also move by kColorStep per turn. mimalloc lays out
// blocks of one size at one stride (a block of 10^6 float32 every 4 MiB + 64 KiB), and
// an op streaming three such blocks that start near one another modulo 4 MiB ran slower
// on two threads: an add of [1000, 1000] float32, Zen 4, took 74-85 us with the three
// 4 MiB + 1-128 KiB apart and 64-69 us with them 4.25-7 MiB apart (one buffer, offsets
// chosen, the memory touched before), and from Python 79-86 us against PyTorch's 70-77.
// Turned by 513 KiB steps, the add took 67-73 us (PyTorch 68-69), and `kernels.py`'s add
// and broadcast multiply rows went from 1.04-1.23x and 1.19x PyTorch's time to
// 0.89-0.99x and 0.96x.
// The cost is 1.5 MiB of address space per such block; the pages past the block are
// never touched, so no memory.
constexpr size_t kTurnMinBytes = size_t{256} << 10, kTurnStep = 1024, kTurns = 4, kPage = 4096;
constexpr size_t kColorMinBytes = size_t{2} << 20, kColorStep = size_t{512} << 10;

size_t NextTurn() {
  static std::atomic<size_t> blocks{0};  // only which offset comes next
  return blocks.fetch_add(1, std::memory_order_relaxed) % kTurns;
}

// Where turn k puts a block of `bytes` from the page it was allocated at; the offset in
// the page (k KiB) says k again when the block is freed.
size_t TurnOffset(size_t k, size_t bytes) {
  return k * kTurnStep + (bytes >= kColorMinBytes ? k * kColorStep : 0);
}

// Note [Small blocks are whole lines]
// mimalloc hands out a block of one of its size classes; when the request's size is a
// multiple of 64, the blocks of that class are 64-byte aligned and mi_malloc_aligned
// takes one of them as mi_malloc would. Another size (the 4 bytes of a 1-element
// float32 tensor, or 1000) sends it down its general path, which over-allocates and
// offsets: an allocation and free of 4 bytes took 17.9 ns against 9.8 for 64 (Zen 4).
// So a block is asked for in whole 64-byte lines; the statistics count the bytes the
// tensor asked for.
constexpr size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Host memory through mimalloc: 64-byte aligned blocks cost a few dozen
// instructions even for the 1-element tensors of scalar code, where
// aligned_alloc/free cost more than the op itself.
class CPUAllocator final : public Allocator {
 public:
  void* Allocate(size_t bytes) override {
    // A block larger than the machine's memory and swap is refused before malloc.
    // mimalloc reserves address space without committing it, so such a request
    // succeeded and the first fill then paged for ever: oar.zeros([2**40]) hung where
    // PyTorch raises. (Sanitizer runtimes abort on it instead of returning null.)
    if (bytes > std::min(HostMemoryBytes(), size_t{1} << 48)) {
      throw errors::ResourceExhausted("out of host memory: failed to allocate ", bytes,
                                      " bytes, more than this machine's ", HostMemoryBytes(),
                                      " bytes of memory and swap");
    }
    const bool turn = bytes >= kTurnMinBytes;  // Note [Large blocks start at turning page offsets]
    // Note [Small blocks are whole lines]
    void* p;
    try {
      p = turn ? FastAllocAligned(bytes + TurnOffset(kTurns - 1, bytes), kPage)
               : FastAllocAligned(RoundUp(bytes, kCPUAlignment), kCPUAlignment);
    } catch (const std::bad_alloc&) {
      throw errors::ResourceExhausted("out of host memory: failed to allocate ", bytes, " bytes");
    }
    if (turn) p = static_cast<char*>(p) + TurnOffset(NextTurn(), bytes);
    AdviseHugePages(p, bytes);
    Record(static_cast<int64_t>(bytes), 1);
    return p;
  }
  void Free(void* ptr, size_t bytes) override {
    if (bytes >= kTurnMinBytes) {  // back to where the block was allocated
      const uintptr_t u = reinterpret_cast<uintptr_t>(ptr);
      ptr = reinterpret_cast<void*>(u - TurnOffset((u & (kPage - 1)) / kTurnStep, bytes));
    }
    FastFree(ptr);
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

namespace {

// Note [Small blocks live in their Allocation]
// A tensor's memory took three heap blocks: the DenseTensor, the Allocation (with its
// shared_ptr count) and the bytes. For the one-element tensors of scalar code the bytes'
// own block, allocated and freed through the allocator, cost about 8 of the 80 ns of a
// C++ `add` of two one-element float32 tensors (Zen 4: 79-80 ns before, 72 after, in
// oar_bench_op_overhead). A block of at most kHeldMaxBytes on the CPU now
// lives inside its Allocation, 64-byte aligned like any other: one heap block less per
// op. The allocator's statistics count it as a block all the same (bytes in use, live
// blocks, allocations), so what tests prove about freed memory holds for small tensors
// too. Memory handed outside (NumPy, DLPack) holds the Allocation, so the bytes live as
// long as before.
constexpr size_t kHeldMaxBytes = 64;

class HeldAllocation final : public Allocation {
 public:
  HeldAllocation(size_t bytes, Allocator* allocator)
      : Allocation(HeldInside{}, bytes_, bytes, CPUPlace(), allocator) {
    allocator->CountHeld(bytes);
  }

 private:
  alignas(kCPUAlignment) std::byte bytes_[kHeldMaxBytes];
};

}  // namespace

std::shared_ptr<Allocation> AllocateShared(const Place& place, size_t bytes) {
  Allocator& a = GetAllocator(place);
  if (bytes > 0 && bytes <= kHeldMaxBytes && place.type == AllocationType::kCPU) {
    return MakeShared<HeldAllocation>(bytes, &a);
  }
  void* p = bytes ? a.Allocate(bytes) : nullptr;
  try {
    return MakeShared<Allocation>(p, bytes, place, &a);
  } catch (...) {
    if (p) a.Free(p, bytes);
    throw;
  }
}

AllocatorStats GetAllocatorStats(const Place& place) { return GetAllocator(place).Stats(); }
void ResetPeakBytes(const Place& place) { GetAllocator(place).ResetPeak(); }

}  // namespace oar
