// Threads that share parameters: several backward passes at once into the same
// leaves, hooks and retained grads, and forward passes through one model.
// Every value is an integer in float32/float64, so the parallel sums must be
// exactly the serial ones. See Note [Thread safety of grad nodes].
#include <atomic>
#include <barrier>
#include <thread>

#include "test_util.h"

namespace oar {
namespace {

using testing::Make;
using testing::Values;

constexpr int kThreads = 8;
constexpr int kIters = 1000;

// Runs body(thread_index) on kThreads threads that start together.
template <typename F>
void RunThreads(F body) {
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      body(t);
    });
  }
  for (auto& th : threads) th.join();
}

void ExpectAll(const Tensor& t, double value) {
  ASSERT_TRUE(t.defined());
  for (double v : Values(t)) EXPECT_EQ(v, value);
}

TEST(Threads, SharedLeafAccumulatesExactly) {
  Tensor w = Make({1, 2, 3, 4}, {4}, DType::kFloat32, false);
  RunThreads([&](int) {
    for (int i = 0; i < kIters; ++i) sum(w).backward();
  });
  ExpectAll(w.grad(), kThreads * kIters);
}

TEST(Threads, SharedLeafHooksSeeEveryGradient) {
  Tensor w = Make({1, 2, 3}, {3}, DType::kFloat64, false);
  int64_t tensor_hook_calls = 0;  // plain ints: the hooks of one node never run at once
  int64_t reduce_hook_calls = 0;
  w.register_hook([&](const Tensor& g) {
    ++tensor_hook_calls;
    return scale(g, 2.0);
  });
  RegisterLeafGradAccumulatedHook(w, [&] { ++reduce_hook_calls; });
  RunThreads([&](int) {
    for (int i = 0; i < kIters; ++i) sum(w).backward();
  });
  EXPECT_EQ(tensor_hook_calls, kThreads * kIters);
  EXPECT_EQ(reduce_hook_calls, kThreads * kIters);
  ExpectAll(w.grad(), 2.0 * kThreads * kIters);
}

TEST(Threads, SharedRetainedGradAccumulatesExactly) {
  Tensor w = Make({1, 2, 3}, {3}, DType::kFloat32, false);
  Tensor y = scale(w, 2.0);  // one non-leaf shared by every thread
  y.retain_grads();
  RunThreads([&](int) {
    for (int i = 0; i < kIters; ++i) sum(y).backward(Tensor(), /*retain_graph=*/true);
  });
  ExpectAll(y.grad(), kThreads * kIters);
  ExpectAll(w.grad(), 2.0 * kThreads * kIters);
}

TEST(Threads, SharedGraphFreedOnceOthersGetAClearError) {
  // Without retain_graph the first backward frees what the node saved; the
  // others must fail cleanly, never read freed tensors.
  for (int round = 0; round < 50; ++round) {
    Tensor w = Make({1, 2, 3}, {3}, DType::kFloat64, false);
    Tensor y = sum(multiply(w, w));
    std::atomic<int> ok = 0, refused = 0;
    RunThreads([&](int) {
      if (const std::optional<Error> e = testing::ErrorOf([&] { y.backward(); })) {
        EXPECT_TRUE(testing::Contains(e->message(), "second time")) << e->what();
        ++refused;
      } else {
        ++ok;
      }
    });
    EXPECT_EQ(ok + refused, kThreads);
    EXPECT_GE(ok, 1);
    // Each backward that ran before the graph was freed added 2 * w.
    ExpectAll(divide(w.grad(), scale(w, 2.0 * ok)), 1.0);
  }
}

TEST(Threads, ForwardThroughOneModelOnFreshLeaves) {
  // The leaves' accumulation nodes are created by whichever thread uses them
  // first; every round starts with new leaves so that creation races.
  for (int round = 0; round < 100; ++round) {
    Tensor w1 = Make({1, -1, 2, 0, 1, 1}, {2, 3}, DType::kFloat64, false);
    Tensor w2 = Make({1, 2, 3}, {3, 1}, DType::kFloat64, false);
    RunThreads([&](int t) {
      Tensor x = Make({double(t), 1.0}, {1, 2});
      sum(matmul(relu(matmul(x, w1)), w2)).backward();
    });
    // d/dw2 = sum over threads of relu(x w1)^T; d/dw1 = x^T (w2^T * mask).
    std::vector<double> g1(6, 0.0), g2(3, 0.0);
    for (int t = 0; t < kThreads; ++t) {
      const double x[2] = {double(t), 1.0};
      const double w1v[6] = {1, -1, 2, 0, 1, 1}, w2v[3] = {1, 2, 3};
      for (int j = 0; j < 3; ++j) {
        const double h = x[0] * w1v[j] + x[1] * w1v[3 + j];
        if (h <= 0) continue;
        g2[j] += h;
        for (int i = 0; i < 2; ++i) g1[i * 3 + j] += x[i] * w2v[j];
      }
    }
    EXPECT_EQ(Values(w1.grad()), g1) << "round " << round;
    EXPECT_EQ(Values(w2.grad()), g2) << "round " << round;
  }
}

}  // namespace
}  // namespace oar
