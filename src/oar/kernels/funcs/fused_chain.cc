#include "oar/kernels/funcs/fused_chain.h"

#include <algorithm>

#include "oar/core/parallel.h"

namespace oar::funcs {

namespace {

// Elements per block: every step's block of floats stays in L1/L2 together.
constexpr int64_t kBlock = 1024;

// Note [A fused chain computes what its ops compute]: the expressions are those
// of the ops' kernels (unary_kernels.cc, binary_kernels.cc).
void Step(const ChainStep& s, const float* a, const float* b, float* y, int64_t n) {
  using K = ChainStep::Kind;
  switch (s.kind) {
    case K::kVec:
      vec::Apply(s.fn, a, y, n);
      return;
    case K::kRelu:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] < 0.0f ? 0.0f : a[i];
      return;
    case K::kAdd:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
      return;
    case K::kSubtract:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] - b[i];
      return;
    case K::kMultiply:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
      return;
    case K::kDivide:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] / b[i];
      return;
    case K::kScale: {
      const float sc = s.scale, bi = s.bias;
      if (s.bias_zero) {
        for (int64_t i = 0; i < n; ++i) y[i] = sc * a[i];
      } else if (s.bias_after_scale) {
        for (int64_t i = 0; i < n; ++i) y[i] = sc * a[i] + bi;
      } else {
        for (int64_t i = 0; i < n; ++i) y[i] = sc * (a[i] + bi);
      }
      return;
    }
  }
}

}  // namespace

void RunChain(const std::vector<const float*>& inputs, const std::vector<ChainStep>& steps,
              float* out, int64_t n) {
  const size_t num_inputs = inputs.size();
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  const auto cost = static_cast<int64_t>(steps.size()) * kBlock * 4;
  ParallelFor(0, blocks, cost, [&](int64_t first, int64_t last) {
    // one block per step; the last step writes straight into out
    std::vector<float> scratch(steps.size() * kBlock);
    std::vector<const float*> reg(num_inputs + steps.size());
    for (int64_t blk = first; blk < last; ++blk) {
      const int64_t begin = blk * kBlock, len = std::min(kBlock, n - begin);
      for (size_t i = 0; i < num_inputs; ++i) reg[i] = inputs[i] + begin;
      for (size_t j = 0; j < steps.size(); ++j) {
        float* y = j + 1 == steps.size() ? out + begin : scratch.data() + j * kBlock;
        Step(steps[j], reg[static_cast<size_t>(steps[j].a)], reg[static_cast<size_t>(steps[j].b)],
             y, len);
        reg[num_inputs + j] = y;
      }
    }
  });
}

}  // namespace oar::funcs
