// Per-op framework overhead: ops on 1-element float32 tensors, where the
// kernel's arithmetic is negligible and the time is all dispatch, allocation
// and autograd bookkeeping. Modes:
//   record   oar::<op> with grad recording, inputs require grad (the graph
//            of each 100-op chain is built, then dropped: both are counted)
//   no_grad  oar::<op> under NoGradGuard, inputs still require grad
//   fwd+bwd  record a 100-op chain, then backward() on its end (total / 100)
//   api      oar::api::<op>, the C++ API below autograd
// Each sample runs kChainsPerSample chains of kChain ops; the report is the
// best and the median over kSamples samples, after warm-up.
//
//   usage: oar_bench_op_overhead [samples]   (default 15)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "oar/api/api.h"
#include "oar/oar.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kChain = 100;            // ops per chain (and per backward)
constexpr int kChainsPerSample = 200;  // 20'000 ops per timed sample
constexpr int kWarmupSamples = 3;

struct Result {
  double best_ns, median_ns;
};

// Times `run_chain` (which performs kChain ops) and returns ns per op.
Result Measure(const std::function<void()>& run_chain, int samples) {
  for (int i = 0; i < kWarmupSamples * kChainsPerSample; ++i) run_chain();
  std::vector<double> per_op;
  for (int s = 0; s < samples; ++s) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kChainsPerSample; ++i) run_chain();
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    per_op.push_back(ns / (double(kChainsPerSample) * kChain));
  }
  std::sort(per_op.begin(), per_op.end());
  return {per_op.front(), per_op[per_op.size() / 2]};
}

// A 1-element float32 leaf; requires grad unless stop_gradient.
oar::Tensor Scalar1(float v, bool stop_gradient) {
  return oar::to_tensor<float>({v}, {1}, stop_gradient);
}

// The op under test, y <- op(y, b), in both API layers. Values are chosen so
// a 100-op chain stays finite (they do not matter for the timing).
struct Op {
  const char* name;
  std::function<oar::Tensor(const oar::Tensor&, const oar::Tensor&)> eager, api;
};

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;

  const std::vector<Op> ops = {
      {"add", [](const oar::Tensor& y, const oar::Tensor& b) { return oar::add(y, b); },
       [](const oar::Tensor& y, const oar::Tensor& b) { return oar::api::add(y, b); }},
      // multiply saves both inputs for backward (add saves none).
      {"multiply", [](const oar::Tensor& y, const oar::Tensor& b) { return oar::multiply(y, b); },
       [](const oar::Tensor& y, const oar::Tensor& b) { return oar::api::multiply(y, b); }},
      // a unary op with attributes
      {"scale", [](const oar::Tensor& y, const oar::Tensor&) { return oar::scale(y, 1.0, 0.5); },
       [](const oar::Tensor& y, const oar::Tensor&) { return oar::api::scale(y, 1.0, 0.5); }},
  };

  const oar::Tensor x = Scalar1(1.0f, /*stop_gradient=*/false);
  const oar::Tensor b = Scalar1(1.0f, /*stop_gradient=*/false);

  std::printf("oar per-op overhead: 1-element float32 tensors, %d-op chains, %d ops/sample,\n",
              kChain, kChain * kChainsPerSample);
  std::printf("best and median of %d samples after warm-up (ns per op)\n\n", samples);
  std::printf("%-9s %-9s %10s %10s\n", "mode", "op", "best", "median");
  std::printf("%-9s %-9s %10s %10s\n", "---------", "---------", "----------", "----------");

  auto row = [](const char* mode, const char* op, Result r) {
    std::printf("%-9s %-9s %10.1f %10.1f\n", mode, op, r.best_ns, r.median_ns);
    std::fflush(stdout);
  };

  for (const Op& op : ops) {
    // (a) recording forward: builds a kChain-node graph, dropped at scope end.
    row("record", op.name,
        Measure(
            [&] {
              oar::Tensor y = x;
              for (int i = 0; i < kChain; ++i) y = op.eager(y, b);
            },
            samples));
    // (b) the same calls with recording off.
    row("no_grad", op.name,
        Measure(
            [&] {
              oar::NoGradGuard no_grad;
              oar::Tensor y = x;
              for (int i = 0; i < kChain; ++i) y = op.eager(y, b);
            },
            samples));
    // (c) forward + backward; the leaves' .grad accumulates across chains,
    // which is part of what a training step pays too.
    row("fwd+bwd", op.name,
        Measure(
            [&] {
              oar::Tensor y = x;
              for (int i = 0; i < kChain; ++i) y = op.eager(y, b);
              y.backward();
            },
            samples));
    // (d) the C++ API without autograd.
    row("api", op.name,
        Measure(
            [&] {
              oar::Tensor y = x;
              for (int i = 0; i < kChain; ++i) y = op.api(y, b);
            },
            samples));
  }
  std::printf("\ntargets: record < 500 ns/op, fwd+bwd < 1000 ns/op\n");
  return 0;
}
