// NaN/Inf detection, concurrent backward passes, create_graph memory, and
// jacobian/hessian.
#include <thread>

#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::Contains;
using testing::ExpectClose;
using testing::Make;
using testing::Values;

class NanInfFlag {
 public:
  NanInfFlag() { SetFlag("FLAGS_check_nan_inf", 1); }
  ~NanInfFlag() { SetFlag("FLAGS_check_nan_inf", 0); }
};

TEST(NanInf, ForwardOpIsNamed) {
  NanInfFlag flag;
  Tensor x = Make({-1.0, 1.0}, {2});
  const Error e = Catch([&] { log(x); });
  EXPECT_TRUE(Contains(e.message(), "output of log")) << e.what();
  EXPECT_TRUE(Contains(e.message(), "1 NaN")) << e.what();
}

TEST(NanInf, BackwardNodeAndItsForwardOpAreNamed) {
  Tensor x = Make({0.0, 1.0}, {2}, DType::kFloat64, false);
  Tensor y = sum(sqrt(x));  // fine forward; d sqrt / dx = inf at 0
  NanInfFlag flag;
  const Error e = Catch([&] { y.backward(); });
  EXPECT_TRUE(Contains(e.message(), "SqrtGradNode (the backward of sqrt)")) << e.what();
  EXPECT_TRUE(Contains(e.message(), "Inf")) << e.what();
}

TEST(NanInf, OffByDefault) {
  EXPECT_EQ(GetFlag("check_nan_inf"), 0);
  EXPECT_NO_THROW(log(Make({-1.0}, {1})));
  Catch([] { SetFlag("FLAGS_no_such_flag", 1); });
}

// One forward + backward on a fresh graph; returns the gradients.
std::vector<double> Step(int seed_value) {
  std::vector<double> xv(12), wv(12);
  for (int i = 0; i < 12; ++i) {
    xv[i] = std::sin(seed_value + i);
    wv[i] = std::cos(seed_value * 2 + i);
  }
  Tensor x = Make(xv, {3, 4}, DType::kFloat64, false);
  Tensor w = Make(wv, {4, 3}, DType::kFloat64, false);
  Tensor loss = mean(tanh(matmul(x, w)));
  loss.backward();
  GradOptions cg;
  cg.create_graph = true;
  Tensor h = Grad({sum(pow(x, 3.0))}, {x}, {}, cg)[0];
  std::vector<double> out = Values(x.grad());
  const auto wg = Values(w.grad());
  const auto hv = Values(Grad({sum(h)}, {x})[0]);
  out.insert(out.end(), wg.begin(), wg.end());
  out.insert(out.end(), hv.begin(), hv.end());
  return out;
}

TEST(Threads, ConcurrentBackwardMatchesSingleThreaded) {
  constexpr int kThreads = 8, kIters = 1000;
  std::vector<std::vector<double>> expected;
  for (int t = 0; t < kThreads; ++t) expected.push_back(Step(t));
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Grad mode is thread-local: turning it off here must not affect others.
      if (t == 0) SetHasGrad(false);
      for (int i = 0; i < kIters; ++i) {
        if (t == 0) {
          EnableGradGuard g;
          mismatches[t] += Step(t) != expected[t];
        } else {
          mismatches[t] += Step(t) != expected[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  EXPECT_TRUE(HasGrad());
}

TEST(Memory, CreateGraphResultsFreeEverything) {
  const int64_t base = testing::BytesInUse();
  {
    Tensor x = randn({16, 16}, DType::kFloat64);
    x.set_stop_gradient(false);
    GradOptions cg;
    cg.create_graph = true;
    Tensor y = sum(pow(tanh(matmul(x, x)), 3.0));
    Tensor g = Grad({y}, {x}, {}, cg)[0];
    Tensor gg = Grad({sum(multiply(g, g))}, {x}, {}, cg)[0];
    sum(gg).backward();
    EXPECT_TRUE(x.grad().defined());
  }
  EXPECT_EQ(testing::BytesInUse(), base);
}

TEST(Functional, JacobianAndHessian) {
  Tensor x = Make({1.0, 2.0, 3.0}, {3}, DType::kFloat64, false);
  Tensor y = multiply(x, x);
  ExpectClose(jacobian(y, x), {2, 0, 0, 0, 4, 0, 0, 0, 6}, {3, 3});
  Tensor s = sum(pow(x, 3.0));
  ExpectClose(hessian(s, x), {6, 0, 0, 0, 12, 0, 0, 0, 18}, {3, 3});
}

TEST(Functional, BatchedJacobianComputesRowsForTheWholeBatch) {
  // y[b] = W x[b]: J[b] = W for every sample.
  Tensor x = Make({1, 2, 3, 4, 5, 6}, {2, 3}, DType::kFloat64, false);
  Tensor w = Make({1, 0, 2, 0, 1, 1}, {2, 3}, DType::kFloat64);
  Tensor y = matmul(x, w, false, true);  // [2, 2]
  Tensor j = jacobian(y, x, 0);
  ExpectClose(j, {1, 0, 2, 0, 1, 1, 1, 0, 2, 0, 1, 1}, {2, 2, 3});
  Tensor s = sum(pow(x, 2.0), {1});  // one scalar per sample
  ExpectClose(hessian(s, x, 0), {2, 0, 0, 0, 2, 0, 0, 0, 2, 2, 0, 0, 0, 2, 0, 0, 0, 2}, {2, 3, 3});
}

}  // namespace
}  // namespace oar
