// Per-op framework overhead: ops on 1-element float32 tensors, where the
// kernel's arithmetic is negligible and the time is all dispatch, allocation
// and autograd bookkeeping. Modes:
//   record   oar::<op> with grad recording, inputs require grad (the graph
//            of each 100-op chain is built, then dropped: both are counted)
//   no_grad  oar::<op> under NoGradGuard, inputs still require grad
//   fwd+bwd  record a 100-op chain, then backward() on its end (total / 100)
//   api      oar::api::<op>, the C++ API below autograd
// Each sample runs kChainsPerSample chains of kChain ops; the report is the
// best and the median over the samples, after warm-up. Samples of all rows
// are interleaved (round-robin), so a slow phase of the machine (a shared VM,
// another process) spreads over every row instead of skewing whole rows.
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

// One table row: a mode/op pair and the ns-per-op of each of its samples.
struct Case {
  const char* mode;
  const char* op;
  std::function<void()> run_chain;  // performs kChain ops
  std::vector<double> ns_per_op{};  // filled by the timing loop
};

void Warmup(const Case& c) {
  for (int i = 0; i < kWarmupSamples * kChainsPerSample; ++i) c.run_chain();
}

void Sample(Case& c) {
  const auto t0 = Clock::now();
  for (int i = 0; i < kChainsPerSample; ++i) c.run_chain();
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  c.ns_per_op.push_back(ns / (double(kChainsPerSample) * kChain));
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

  std::vector<Case> cases;
  for (const Op& op : ops) {
    // (a) recording forward: builds a kChain-node graph, dropped at scope end.
    cases.push_back({"record", op.name, [&] {
                       oar::Tensor y = x;
                       for (int i = 0; i < kChain; ++i) y = op.eager(y, b);
                     }});
    // (b) the same calls with recording off.
    cases.push_back({"no_grad", op.name, [&] {
                       oar::NoGradGuard no_grad;
                       oar::Tensor y = x;
                       for (int i = 0; i < kChain; ++i) y = op.eager(y, b);
                     }});
    // (c) forward + backward; the leaves' .grad accumulates across chains,
    // which is part of what a training step pays too.
    cases.push_back({"fwd+bwd", op.name, [&] {
                       oar::Tensor y = x;
                       for (int i = 0; i < kChain; ++i) y = op.eager(y, b);
                       y.backward();
                     }});
    // (d) the C++ API without autograd.
    cases.push_back({"api", op.name, [&] {
                       oar::Tensor y = x;
                       for (int i = 0; i < kChain; ++i) y = op.api(y, b);
                     }});
  }

  for (const Case& c : cases) Warmup(c);
  for (int s = 0; s < samples; ++s) {
    for (Case& c : cases) Sample(c);
  }

  std::printf("oar per-op overhead: 1-element float32 tensors, %d-op chains, %d ops/sample,\n",
              kChain, kChain * kChainsPerSample);
  std::printf("best and median of %d interleaved samples after warm-up (ns per op)\n\n", samples);
  std::printf("%-9s %-9s %10s %10s\n", "mode", "op", "best", "median");
  std::printf("%-9s %-9s %10s %10s\n", "---------", "---------", "----------", "----------");
  for (Case& c : cases) {
    std::sort(c.ns_per_op.begin(), c.ns_per_op.end());
    std::printf("%-9s %-9s %10.1f %10.1f\n", c.mode, c.op, c.ns_per_op.front(),
                c.ns_per_op[c.ns_per_op.size() / 2]);
  }
  std::printf("\ntargets: record < 500 ns/op, fwd+bwd < 1000 ns/op\n");
  return 0;
}
