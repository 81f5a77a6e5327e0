// Memory: the allocator's statistics prove that backward frees what the graph
// saved and that dropping a graph frees everything, however deep; liboar's
// settings of mimalloc are in force; and the per-thread cache of freed objects
// hands out blocks large and aligned enough, across threads that end.
#ifndef OAR_SYSTEM_MALLOC
#include <mimalloc.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "oar/autograd/autograd_meta.h"
#include "oar/core/memory.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::BytesInUse;

int64_t Bytes(const Tensor& t) { return t.numel() * static_cast<int64_t>(SizeOf(t.dtype())); }

TEST(Memory, BackwardFreesSavedTensors) {
  const int64_t base = BytesInUse();
  Tensor x = randn({64, 64});
  Tensor w = randn({64, 64});
  x.set_stop_gradient(false);
  w.set_stop_gradient(false);
  const int64_t inputs = BytesInUse() - base;
  // multiply saves x (already live); matmul saves x*x, tanh its output: two new blocks.
  Tensor loss = mean(tanh(matmul(multiply(x, x), w)));
  EXPECT_EQ(BytesInUse() - base, inputs + 2 * Bytes(x) + Bytes(loss));
  loss.backward();
  // Live now: x, w, their grads and the loss. Nothing the graph saved.
  EXPECT_EQ(BytesInUse() - base, inputs + Bytes(x.grad()) + Bytes(w.grad()) + Bytes(loss));
  loss = Tensor();
  x = w = Tensor();
  EXPECT_EQ(BytesInUse(), base);
}

TEST(Memory, RetainGraphKeepsSavedTensorsUntilTheGraphIsDropped) {
  const int64_t base = BytesInUse();
  Tensor x = randn({32, 32});
  x.set_stop_gradient(false);
  Tensor loss = sum(exp(multiply(x, x)));
  loss.backward(Tensor(), /*retain_graph=*/true);
  const int64_t live = Bytes(x) + Bytes(x.grad()) + Bytes(loss);
  EXPECT_GT(BytesInUse() - base, live);  // the saved tensors are still there
  loss = Tensor();                       // dropping the graph frees them
  EXPECT_EQ(BytesInUse() - base, Bytes(x) + Bytes(x.grad()));
  x = Tensor();
  EXPECT_EQ(BytesInUse(), base);
}

TEST(Memory, DroppingAVeryDeepChainFreesEverythingWithoutRecursion) {
  const int64_t base = BytesInUse();
  {
    Tensor x = ones({4});
    x.set_stop_gradient(false);
    Tensor y = x;
    for (int i = 0; i < 100000; ++i) y = tanh(y);  // each node saves its output
    EXPECT_GE(BytesInUse() - base, 100000 * Bytes(x));
  }  // the last reference to the 100,000-node graph goes here
  EXPECT_EQ(BytesInUse(), base);
}

TEST(Memory, BackwardThroughAVeryDeepChain) {
  const int64_t base = BytesInUse();
  {
    Tensor x = ones({4});
    x.set_stop_gradient(false);
    Tensor y = x;
    for (int i = 0; i < 100000; ++i) y = multiply(y, full({4}, 1.0));
    y.backward();
    testing::ExpectClose(x.grad(), {1, 1, 1, 1}, {4});
  }
  EXPECT_EQ(BytesInUse(), base);
}

TEST(Memory, AStoppedBranchIsNotKept) {
  const int64_t base = BytesInUse();
  Tensor x = randn({100});
  {
    Tensor y = exp(x);  // x does not require grad: nothing is recorded
    EXPECT_TRUE(y.stop_gradient());
  }
  EXPECT_EQ(BytesInUse() - base, Bytes(x));
}

// Note [Freed objects wait in a per-thread cache]: requests of 33 to 48 bytes share a
// size class, so a block kept after any of them must hold 48; an over-aligned request
// gets an aligned block whatever was kept.
TEST(Memory, AKeptBlockServesEveryRequestOfItsSizeClass) {
  for (size_t first = 33; first <= 48; ++first) {
    FastFreeSized(FastAlloc(first), first);
    void* q = FastAlloc(48);
    std::memset(q, 0xab, 48);
#ifndef OAR_SYSTEM_MALLOC
    EXPECT_GE(mi_usable_size(q), 48u) << "kept after a request of " << first;
#endif
    FastFreeSized(q, 48);
  }
  std::vector<void*> kept;
  for (int i = 0; i < 8; ++i) kept.push_back(FastAlloc(184));
  for (void* p : kept) FastFreeSized(p, 184);
  for (int i = 0; i < 8; ++i) {
    void* p = FastAllocAligned(192, 64);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    std::memset(p, 0xcd, 192);
    FastFreeSized(p, 192);
  }
}

// Objects made on one thread and dropped on another, by threads that end (each
// freeing its cache), and this thread's ops after them.
TEST(Memory, ObjectsOutliveTheThreadsThatMadeAndCachedThem) {
  constexpr int kThreads = 4;
  constexpr int kObjects = 3000;
  std::vector<std::vector<std::shared_ptr<AutogradMeta>>> made(kThreads);
  std::vector<std::thread> makers;
  for (int t = 0; t < kThreads; ++t) {
    makers.emplace_back([&made, t] {
      for (int i = 0; i < kObjects; ++i) made[t].push_back(MakeShared<AutogradMeta>());
    });
  }
  for (auto& th : makers) th.join();
  std::vector<std::thread> droppers;
  for (int t = 0; t < kThreads; ++t) {
    droppers.emplace_back([&made, t] {
      made[(t + 1) % kThreads].clear();  // into this thread's cache, or freed
      for (int i = 0; i < kObjects; ++i) {
        auto kept = MakeShared<AutogradMeta>();  // from this thread's cache
        kept->SetStopGradient(false);
        EXPECT_FALSE(kept->StopGradient());
      }
    });
  }
  for (auto& th : droppers) th.join();
  Tensor x = testing::Make({1, 2, 3}, {3}, DType::kFloat32, false);
  EXPECT_EQ(testing::Values(add(x, x)), std::vector<double>({2, 4, 6}));
}

#ifndef OAR_SYSTEM_MALLOC
// The process's mappings when it started, after liboar was loaded and before any test
// ran: later, mimalloc's purges split the arena into mappings of other permissions.
const std::string kMapsAtStart = [] {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str();
}();

// Note [mimalloc keeps a running loop's memory]: loading liboar set mimalloc's purge
// delay to a second and reserved a 1 GiB arena, unless the environment names them.
TEST(Memory, LiboarKeepsARunningLoopsMemory) {
  if (std::getenv("MIMALLOC_DECOMMIT_DELAY") == nullptr &&
      std::getenv("MIMALLOC_PURGE_DELAY") == nullptr) {
#if MI_MALLOC_VERSION >= 210
    EXPECT_EQ(mi_option_get(mi_option_purge_delay), 1000);
#else
    EXPECT_EQ(mi_option_get(mi_option_decommit_delay), 1000);
#endif
  }
  if (std::getenv("MIMALLOC_RESERVE_OS_MEMORY") == nullptr) {
    // The arena: a read-write mapping of at least 1 GiB (the kernel merges it with an
    // adjacent one of mimalloc's); nothing else in this process maps that much.
    std::istringstream maps(kMapsAtStart);
    int arenas = 0;
    for (std::string line; std::getline(maps, line);) {
      std::istringstream in(line);
      std::string range, perms;
      in >> range >> perms;
      const size_t dash = range.find('-');
      const unsigned long long lo = std::stoull(range.substr(0, dash), nullptr, 16);
      const unsigned long long hi = std::stoull(range.substr(dash + 1), nullptr, 16);
      if (hi - lo >= (1ULL << 30) && perms.starts_with("rw")) ++arenas;
    }
    EXPECT_GE(arenas, 1);
  }
}
#endif

}  // namespace
}  // namespace oar
