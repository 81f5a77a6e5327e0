// Fits a 1 -> 32 -> 1 tanh MLP to y = sin(3x) + noise with plain SGD, using
// only the public C++ API. Doubles as a smoke test of the whole stack
// (random creation, broadcasting ops, matmul, autograd, in-place updates):
// it exits non-zero unless the loss drops well below its starting value.
//
//   usage: mlp_regression [steps]   (default 2000)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "oar/oar.h"

namespace {

constexpr int64_t kSamples = 256;
constexpr int64_t kHidden = 32;
// Larger rates (0.1) overshoot: the loss grows ~2.5x per step for the first
// ~8 steps before recovering, because the initially correlated tanh units make
// the curvature along w2 large.
constexpr double kLearningRate = 0.05;
// The run fails unless final_loss < kRequiredRatio * initial_loss.
constexpr double kRequiredRatio = 0.25;

// A trainable leaf: a freshly created tensor (no grad node) that asks for
// gradients, so backward() accumulates into its .grad().
oar::Tensor Parameter(oar::Tensor init) {
  init.set_stop_gradient(false);
  return init;
}

struct Mlp {
  oar::Tensor w1, b1, w2, b2;

  // x: [N, 1] -> [N, 1]; the biases broadcast over the batch dimension.
  oar::Tensor Forward(const oar::Tensor& x) const {
    oar::Tensor h = oar::tanh(oar::add(oar::matmul(x, w1), b1));
    return oar::add(oar::matmul(h, w2), b2);
  }

  // Pointers because the in-place update (subtract_) takes a mutable Tensor&.
  std::vector<oar::Tensor*> Parameters() { return {&w1, &b1, &w2, &b2}; }
};

oar::Tensor MseLoss(const oar::Tensor& pred, const oar::Tensor& target) {
  return oar::mean(oar::pow(oar::subtract(pred, target), 2.0));
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2000;
  if (steps <= 0) {
    std::fprintf(stderr, "usage: %s [steps > 0]\n", argv[0]);
    return 2;
  }
  const int log_every = steps >= 10 ? steps / 10 : 1;
  const auto start = std::chrono::steady_clock::now();

  oar::seed(0);  // makes the data and the initial weights reproducible

  // Data never needs gradients, so it keeps the default stop_gradient=true.
  const oar::Tensor x = oar::uniform({kSamples, 1}, oar::DType::kFloat32, -1.0, 1.0);
  const oar::Tensor y =
      oar::add(oar::sin(oar::scale(x, 3.0)), oar::normal({kSamples, 1}, 0.0, 0.05));

  // w1 ~ N(0, 2^2) spreads the tanh units over the input range so the hidden
  // features differ; w2 ~ N(0, 1/hidden) keeps the initial output O(1).
  Mlp model{Parameter(oar::normal({1, kHidden}, 0.0, 2.0)), Parameter(oar::zeros({kHidden})),
            Parameter(oar::normal({kHidden, 1}, 0.0, 1.0 / std::sqrt(double(kHidden)))),
            Parameter(oar::zeros({1}))};

  double initial_loss = 0.0, final_loss = 0.0;
  for (int step = 0; step < steps; ++step) {
    oar::Tensor loss = MseLoss(model.Forward(x), y);
    const double value = loss.item<double>();
    if (step == 0) initial_loss = value;
    final_loss = value;
    if (step % log_every == 0) std::printf("step %5d  loss %.6f\n", step, value);

    loss.backward();

    // The SGD update must not be recorded: it would attach the parameters to
    // a graph (and in-place ops on leaves that need grad are rejected).
    oar::NoGradGuard no_grad;
    for (oar::Tensor* p : model.Parameters()) {
      oar::subtract_(*p, oar::scale(p->grad(), kLearningRate));
      p->clear_grad();  // zero in place, so the next backward accumulates from 0
    }
  }
  // Loss of the final weights (the loop logged the loss before the last update).
  {
    oar::NoGradGuard no_grad;
    final_loss = MseLoss(model.Forward(x), y).item<double>();
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double ratio = final_loss / initial_loss;
  std::printf("steps %d: initial loss %.6f, final loss %.6f (%.1f%% of initial), %.2f s\n", steps,
              initial_loss, final_loss, 100.0 * ratio, seconds);
  if (!(ratio < kRequiredRatio)) {  // also fails on NaN
    std::printf("FAIL: final loss is not below %.0f%% of the initial loss\n",
                100.0 * kRequiredRatio);
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
