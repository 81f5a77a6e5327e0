// The CPU allocator: statistics follow tensor lifetimes, alignment, zero bytes, huge
// pages and the page offsets of large blocks.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "oar/core/allocator.h"
#include "oar/core/dense_tensor.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;

AllocatorStats Now() { return GetAllocatorStats(CPUPlace()); }

TEST(Allocator, StatsFollowDenseTensorLifetimes) {
  const AllocatorStats before = Now();
  {
    DenseTensor t(DType::kFloat32, {25, 4});
    EXPECT_EQ(Now().live_blocks, before.live_blocks);  // meta only, no memory yet
    t.AllocateFrom(CPUPlace());
    AllocatorStats s = Now();
    EXPECT_EQ(s.bytes_in_use - before.bytes_in_use, 400);
    EXPECT_EQ(s.live_blocks - before.live_blocks, 1);
    EXPECT_EQ(s.total_allocs - before.total_allocs, 1);
    {
      DenseTensor view;
      view.ShareDataWith(t);  // shares the block
      DenseTensor other(DType::kFloat64, {3});
      other.AllocateFrom(CPUPlace());
      s = Now();
      EXPECT_EQ(s.bytes_in_use - before.bytes_in_use, 400 + 24);
      EXPECT_EQ(s.live_blocks - before.live_blocks, 2);
    }
    s = Now();
    EXPECT_EQ(s.bytes_in_use - before.bytes_in_use, 400);  // `other` freed, `t` still alive
    EXPECT_EQ(s.live_blocks - before.live_blocks, 1);
  }
  const AllocatorStats after = Now();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.live_blocks, before.live_blocks);
  EXPECT_EQ(after.total_allocs - before.total_allocs, 2);
}

TEST(Allocator, AllocateFromReusesABlockThatIsLargeEnough) {
  DenseTensor t(DType::kInt32, {4, 4});
  void* p = t.AllocateFrom(CPUPlace());
  const int64_t allocs = Now().total_allocs;
  EXPECT_EQ(t.AllocateFrom(CPUPlace()), p);
  t.Resize({2, 4});  // smaller: the block still fits
  EXPECT_EQ(t.AllocateFrom(CPUPlace()), p);
  EXPECT_EQ(Now().total_allocs, allocs);
  t.Resize({8, 8});  // larger: a new block
  EXPECT_NE(t.AllocateFrom(CPUPlace()), nullptr);
  EXPECT_EQ(t.memory_size(), 256u);
  EXPECT_EQ(Now().total_allocs, allocs + 1);
}

TEST(Allocator, PeakTracksTheHighWaterMark) {
  ResetPeakBytes(CPUPlace());
  const int64_t base = Now().bytes_in_use;
  EXPECT_EQ(Now().peak_bytes, base);
  {
    DenseTensor big(DType::kFloat64, {1 << 17});  // 1 MiB
    big.AllocateFrom(CPUPlace());
  }
  DenseTensor small(DType::kFloat64, {16});
  small.AllocateFrom(CPUPlace());
  const AllocatorStats s = Now();
  EXPECT_EQ(s.peak_bytes - base, 1 << 20);
  EXPECT_EQ(s.bytes_in_use - base, 128);
  ResetPeakBytes(CPUPlace());
  EXPECT_EQ(Now().peak_bytes, s.bytes_in_use);
}

TEST(Allocator, BlocksAre64ByteAligned) {
  for (size_t bytes : {1, 3, 63, 64, 65, 1000, 4097}) {
    auto a = AllocateShared(CPUPlace(), bytes);
    ASSERT_NE(a->ptr(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a->ptr()) % kCPUAlignment, 0u) << bytes << " bytes";
    EXPECT_EQ(a->size(), bytes);
    EXPECT_EQ(a->place(), CPUPlace());
  }
  DenseTensor t(DType::kBool, {7});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.AllocateFrom(CPUPlace())) % 64, 0u);
}

// Note [Small blocks live in their Allocation]: up to 64 bytes in the Allocation's own heap
// block, counted like any other, and living as long as the Allocation.
TEST(Allocator, SmallBlocksLiveInTheirAllocation) {
  auto inside = [](const std::shared_ptr<Allocation>& a) {
    const auto* p = static_cast<const char*>(a->ptr());
    const auto* o = reinterpret_cast<const char*>(a.get());
    return p > o && p < o + 256;
  };
  for (size_t bytes : {1, 4, 63, 64, 65, 256}) {
    const AllocatorStats before = Now();
    {
      auto a = AllocateShared(CPUPlace(), bytes);
      if (bytes <= 64) EXPECT_TRUE(inside(a)) << bytes << " bytes";
      std::memset(a->ptr(), 0x5a, bytes);  // all of it writable
      const AllocatorStats s = Now();
      EXPECT_EQ(s.bytes_in_use - before.bytes_in_use, static_cast<int64_t>(bytes));
      EXPECT_EQ(s.live_blocks - before.live_blocks, 1);
      EXPECT_EQ(s.total_allocs - before.total_allocs, 1);
      EXPECT_FALSE(a->shared_outside());
    }
    EXPECT_EQ(Now().bytes_in_use, before.bytes_in_use);
    EXPECT_EQ(Now().live_blocks, before.live_blocks);
  }
  // A view keeps the block, and its bytes, after the tensor that made it is gone.
  DenseTensor view;
  {
    DenseTensor t(DType::kFloat32, {3});
    auto* p = static_cast<float*>(t.AllocateFrom(CPUPlace()));
    p[0] = 1.5f, p[1] = 2.5f, p[2] = -4.0f;
    view.ShareDataWith(t);
  }
  const auto* v = static_cast<const float*>(view.data());
  EXPECT_EQ(v[0], 1.5f);
  EXPECT_EQ(v[1], 2.5f);
  EXPECT_EQ(v[2], -4.0f);
}
TEST(Allocator, ZeroBytesGiveANullBlockAndCountNothing) {
  const AllocatorStats before = Now();
  auto a = AllocateShared(CPUPlace(), 0);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->ptr(), nullptr);
  EXPECT_EQ(a->size(), 0u);

  DenseTensor empty(DType::kFloat32, {0, 3});
  empty.AllocateFrom(CPUPlace());
  EXPECT_TRUE(empty.initialized());
  EXPECT_EQ(empty.memory_size(), 0u);
  EXPECT_EQ(empty.numel(), 0);

  const AllocatorStats s = Now();
  EXPECT_EQ(s.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(s.live_blocks, before.live_blocks);
  EXPECT_EQ(s.total_allocs, before.total_allocs);
}

// Note [Block counts are kept per thread]: blocks made and freed on threads that have
// ended, or freed on another thread than the one that made them, are counted all the same.
TEST(Allocator, BlockCountsFollowBlocksAcrossThreads) {
  const AllocatorStats before = Now();
  std::shared_ptr<Allocation> kept_small, kept_large;
  std::thread maker([&] {
    AllocateShared(CPUPlace(), 4);  // made and freed here
    kept_small = AllocateShared(CPUPlace(), 4);
    kept_large = AllocateShared(CPUPlace(), 4096);
  });
  maker.join();
  AllocatorStats s = Now();
  EXPECT_EQ(s.live_blocks - before.live_blocks, 2);
  EXPECT_EQ(s.total_allocs - before.total_allocs, 3);
  EXPECT_EQ(s.bytes_in_use - before.bytes_in_use, 4100);
  std::thread freer([&] { kept_large.reset(); });  // freed by a thread that made nothing
  freer.join();
  kept_small.reset();
  s = Now();
  EXPECT_EQ(s.live_blocks, before.live_blocks);
  EXPECT_EQ(s.total_allocs - before.total_allocs, 3);
  EXPECT_EQ(s.bytes_in_use, before.bytes_in_use);
}

// The VmFlags of the mapping of /proc/self/smaps that holds `address` ("" if none).
std::string VmFlagsAt(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    // A mapping's first line starts "lo-hi "; no attribute line has two hex numbers.
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) == 2) {
      inside = lo <= address && address < hi;
    } else if (inside && line.starts_with("VmFlags:")) {
      return line;
    }
  }
  return "";
}

// Note [Large blocks ask for huge pages]: the whole huge pages inside a block of 4 MiB
// or more are advised where the kernel has transparent huge pages; where it has none
// (no hpage_pmd_size), nothing is advised and the block is mapped all the same.
TEST(Allocator, LargeBlocksAreAdvisedHugePages) {
  size_t huge = 0;
  std::ifstream("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") >> huge;
  auto allocation = AllocateShared(CPUPlace(), size_t{8} << 20);
  const auto p = reinterpret_cast<uintptr_t>(allocation->ptr());
  const uintptr_t first_whole_page = huge == 0 ? p : (p + huge - 1) & ~(huge - 1);
  const std::string flags = VmFlagsAt(first_whole_page);
  ASSERT_FALSE(flags.empty()) << "no mapping holds the block";
  EXPECT_EQ(flags.find(" hg") != std::string::npos, huge != 0) << flags;
}

// Note [Large blocks start at turning page offsets]: three large blocks made in a row
// start at three different offsets in their pages, at least 1 KiB apart, still 64-byte
// aligned; they hold their bytes and free cleanly (the sanitizer builds check the frees).
TEST(Allocator, LargeBlocksMadeInARowStartAtDifferentPageOffsets) {
  std::vector<std::shared_ptr<Allocation>> blocks;
  std::vector<int64_t> offsets;
  for (int i = 0; i < 3; ++i) {
    blocks.push_back(AllocateShared(CPUPlace(), size_t{1} << 20));
    const auto p = reinterpret_cast<uintptr_t>(blocks.back()->ptr());
    EXPECT_EQ(p % kCPUAlignment, 0u);
    offsets.push_back(static_cast<int64_t>(p % 4096));
    std::memset(blocks.back()->ptr(), i, size_t{1} << 20);  // every byte is the block's
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = i + 1; j < 3; ++j) {
      EXPECT_GE(std::abs(offsets[i] - offsets[j]), 1024) << offsets[i] << " " << offsets[j];
    }
  }
  for (int i = 0; i < 3; ++i) {
    const auto* bytes = static_cast<const unsigned char*>(blocks[i]->ptr());
    EXPECT_EQ(bytes[0], i);
    EXPECT_EQ(bytes[(size_t{1} << 20) - 1], i);
  }
  auto small = AllocateShared(CPUPlace(), 1000);  // small blocks are as before
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small->ptr()) % kCPUAlignment, 0u);
}

// Blocks of 2 MiB and more also move by 512 KiB per turn (the same note): blocks on
// both sides of both thresholds, four of each size so every turn is taken, hold all
// their bytes and go back to where they were allocated when freed, in another order
// (a wrong start would corrupt the heap: the sanitizer builds run this too).
TEST(Allocator, TurnedBlocksOfEverySizeFreeCleanly) {
  const AllocatorStats before = Now();
  const size_t kib = 1024, mib = kib * kib;
  std::vector<std::shared_ptr<Allocation>> blocks;
  for (size_t bytes : {256 * kib - 64, 256 * kib, 2 * mib - 64, 2 * mib, 2 * mib + 4096,
                       size_t{4000000}, 9 * mib + 100}) {
    for (int i = 0; i < 4; ++i) {
      blocks.push_back(AllocateShared(CPUPlace(), bytes));
      EXPECT_EQ(reinterpret_cast<uintptr_t>(blocks.back()->ptr()) % kCPUAlignment, 0u);
      std::memset(blocks.back()->ptr(), static_cast<int>(blocks.size()), bytes);
    }
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    const auto* bytes = static_cast<const unsigned char*>(blocks[i]->ptr());
    EXPECT_EQ(bytes[0], static_cast<unsigned char>(i + 1));
    EXPECT_EQ(bytes[blocks[i]->size() - 1], static_cast<unsigned char>(i + 1));
  }
  for (size_t i = 0; i < blocks.size(); i += 2) blocks[i].reset();  // every other first
  blocks.clear();
  EXPECT_EQ(Now().bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(Now().live_blocks, before.live_blocks);
}

TEST(Allocator, OnlyTheCPUHasAnAllocator) {
  Catch([] { GetAllocator(GPUPlace()); }, ErrorCode::kUnimplemented);  // no GPU allocator
}

}  // namespace
}  // namespace oar
