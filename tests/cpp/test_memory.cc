// Memory: the allocator's statistics prove that backward frees what the graph
// saved and that dropping a graph frees everything, however deep; and liboar's
// settings of mimalloc are in force.
#ifndef OAR_SYSTEM_MALLOC
#include <mimalloc.h>
#endif

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

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
